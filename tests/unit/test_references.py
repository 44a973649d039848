"""Which document a question names: by title, by number, by path."""

from __future__ import annotations

from typing import Any

import pytest

from knowledge_platform.models import Chunk
from knowledge_platform.serve.references import has_cue, names


def _chunk(source_id: str, title: str, kind: Any = "decision") -> Chunk:
    return Chunk(
        id="c",
        doc_id=f"git_docs:{source_id}",
        source="git_docs",
        source_id=source_id,
        scope="internal",
        title=title,
        text="...",
        headers=[],
        ordinal=0,
        kind=kind,
    )


ADR7 = _chunk("decisions/0007-monthly-reports.md", "ADR 7: monthly client reports")
UNTITLED = _chunk("adr/0012-edge-store.md", "Qdrant Edge for the embedded store")
NOTES = _chunk("memory/notes.md", "Notes", kind="memory")


@pytest.mark.parametrize(
    ("question", "chunk", "named"),
    [
        ("What did ADR 7 decide?", ADR7, True),
        ("what did adr-007 say", ADR7, True),
        ("What did decision #7 decide?", ADR7, True),
        ("What did ADR 70 decide?", ADR7, False),
        ("What did runbook 7 say?", ADR7, False),  # another family of numbers
        ("What did the monthly client reports record decide?", ADR7, True),  # its title
        ("When do client reports go out?", ADR7, False),
        ("What does decisions/0007-monthly-reports.md say?", ADR7, True),
        ("Summarise 0007-monthly-reports", ADR7, True),  # its file stem
        ("What did ADR 12 decide?", UNTITLED, True),  # the number in its file name
        ("Any notes on the audit?", NOTES, False),  # a one-word title is no name
    ],
)
def test_names(question: str, chunk: Chunk, named: bool) -> None:
    assert names(question, chunk) is named


@pytest.mark.parametrize(
    ("question", "cue"),
    [
        ("What did ADR 7 decide?", True),
        ("see runbooks/incident-response.md", True),
        ("What does decisions/0007-monthly-reports say?", True),
        ("Do we run A/B tests?", False),
        ("reindex at 02:00 America/New_York", False),
        ("what happened on 2026-11-23", False),
    ],
)
def test_only_numbers_and_paths_are_cues(question: str, cue: bool) -> None:
    assert has_cue(question) is cue
