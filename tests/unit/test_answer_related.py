"""An extractive answer looks up other sources of what it says with its best sentence as the
query: a second source that retrieval ranked out of the question's hits (another phrasing of
the question found only one) still shows up as a conflict, and a later statement that
changed the value marks the stale one as older."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from knowledge_platform.dating import CHANGE
from knowledge_platform.serve.answers.sentences import candidates
from knowledge_platform.serve.answers.sources import Sources
from knowledge_platform.serve.retrieval import Retriever
from tests.answer_fixtures import answer, hash_retriever, hits
from tests.store_fixtures import make_chunk

ONCALL = make_chunk(
    n=1,
    source_id="oncall.md",
    title="On-call",
    text="Out-of-hours escalations for Copper Kettle go to Nina Park.",
    date=date(2026, 10, 1),
)
CONTACTS = make_chunk(
    n=2,
    source_id="contacts.md",
    title="Contacts",
    text="Out-of-hours escalations for Copper Kettle go to Theo Lind.",
    date=date(2026, 3, 2),
)
TOOLS = make_chunk(
    n=3,
    source_id="tools.md",
    title="Tools",
    text="Experiment platform: Tallyhook.",
    date=date(2026, 1, 20),
)
SWITCH = make_chunk(
    n=4,
    source_id="memory/2026-07-06.md",
    title="2026-07-06 daily log",
    text="Vantor replaces Tallyhook as our experiment platform from today.",
    date=date(2026, 7, 6),
    marks=[CHANGE],
)
LOGS = [
    make_chunk(
        n=10 + i,
        source_id=f"memory/2026-11-0{i + 1}.md",
        title=f"2026-11-0{i + 1} daily log",
        text=f"Copper Kettle reported a checkout problem at night, ticket {100 + i}.",
        date=date(2026, 11, i + 1),
    )
    for i in range(6)
]


@pytest.fixture
def retriever(tmp_path: Path) -> Iterator[Retriever]:
    with hash_retriever(tmp_path, (ONCALL, CONTACTS, TOOLS, SWITCH, *LOGS)) as found:
        yield found


def test_a_second_source_retrieval_left_out_is_shown_as_a_conflict(retriever: Retriever):
    result = answer(
        "Who should I call about a Copper Kettle problem at night?",
        hits(ONCALL, *LOGS),
        retriever,
    )
    assert "Nina Park" in result.answer and "Theo Lind" in result.answer
    (conflict,) = result.conflicts
    assert {c.value for c in conflict.claims} == {"Nina Park", "Theo Lind"}
    newer = next(c for c in result.citations if c.number == conflict.newer)
    assert newer.doc_id == ONCALL.doc_id


def test_a_stale_value_is_marked_by_the_change_retrieval_left_out(retriever: Retriever):
    result = answer("What tool do we run experiments in?", hits(TOOLS, *LOGS), retriever)
    assert "Vantor" in result.answer
    (conflict,) = result.conflicts
    newer = next(c for c in result.citations if c.number == conflict.newer)
    assert newer.doc_id == SWITCH.doc_id


def test_a_later_change_hit_lends_only_its_statements_of_change() -> None:
    """A daily log found for its statement of change, ranked below the hits an answer reads,
    gives that statement, not its other notes (another day's figures)."""
    log = make_chunk(
        n=20,
        source_id="memory/2026-08-17.md",
        title="2026-08-17 daily log",
        text="Heatmap review for Copper Kettle: 419 dead clicks.\n\n"
        "#incidents replaces #war-room for incident coordination from today.",
        date=date(2026, 8, 17),
        marks=[CHANGE],
    )
    sources = Sources(hits(*LOGS, log))
    said = [s.text for s in candidates(sources, max_hits=len(LOGS))]
    assert "#incidents replaces #war-room for incident coordination from today." in said
    assert not any("419" in s for s in said)
