"""The retrieved passages past the ones an answer reads from are read for a conflict's other
side (extractive.SIDE_HITS): the client list's row, ranked past the first six hits, against
the client's own page, with no related look-up to find it again."""

from __future__ import annotations

from datetime import date

import pytest

from knowledge_platform.embeddings.deterministic import HashEmbedder
from knowledge_platform.serve.answers import extractive
from knowledge_platform.serve.answers.extractive import MAX_HITS, extractive_answer
from tests.answer_fixtures import hits
from tests.store_fixtures import make_chunk

PAGE = make_chunk(
    n=1,
    source_id="clients/wrenhallow.md",
    title="Wrenhallow Hotel: client brief",
    headers=["People"],
    text="Our contact at the Wrenhallow Hotel is Aurelie Strooper.",
    date=date(2026, 7, 6),
)
LIST = make_chunk(
    n=2,
    source_id="clients.md",
    title="Clients",
    text="| Client | Contact |\n|---|---|\n| Wrenhallow Hotel | Horatio Vellacott |",
    date=date(2026, 2, 16),
)
OTHERS = [
    make_chunk(
        n=10 + i,
        source_id=f"memory/2026-11-0{i + 1}.md",
        title=f"2026-11-0{i + 1} daily log",
        text=f"the kiln room was booked for firing number {i + 1}.",
        date=date(2026, 11, i + 1),
    )
    for i in range(MAX_HITS)
]
QUESTION = "Who is our contact at the Wrenhallow Hotel?"


def _ask():
    return extractive_answer(
        QUESTION,
        hits(PAGE, *OTHERS, LIST),
        scope="internal",
        embedder=HashEmbedder(),
        min_score=0.3,
        related=lambda text, limit: [],
    )


def test_a_row_past_the_read_hits_is_the_other_side_of_a_conflict() -> None:
    answer = _ask()
    assert answer.mode == "extractive", answer.answer
    assert "Aurelie Strooper" in answer.answer.split("[1]")[0], answer.answer
    (conflict,) = answer.conflicts
    said = {claim.value.strip() for claim in conflict.claims}
    assert said == {"Aurelie Strooper", "Horatio Vellacott"}, conflict
    newer = next(c for c in conflict.claims if c.citation == conflict.newer)
    assert newer.value.strip() == "Aurelie Strooper"


def test_without_the_side_hits_the_row_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extractive, "SIDE_HITS", 0)
    answer = _ask()
    assert "Aurelie Strooper" in answer.answer
    assert not answer.conflicts and "Horatio" not in answer.answer, answer.answer
