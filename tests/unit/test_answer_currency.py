"""A newer statement of change ranks above the older hit whose value it says is old only
when that hit's statement is about what the question asks (answers/currency.py)."""

from __future__ import annotations

from datetime import date

from knowledge_platform.dating import CHANGE
from knowledge_platform.models import Hit
from knowledge_platform.serve.answers.currency import current_first
from tests.store_fixtures import make_chunk

TOOLS = make_chunk(
    n=1,
    source_id="tools.md",
    title="Tools",
    text="Session replay: Glimmer.\n\nExperiment platform: Tallyhook.",
    date=date(2026, 1, 20),
)
SWITCH = make_chunk(
    n=2,
    source_id="memory/2026-07-06.md",
    title="2026-07-06 daily log",
    text="Vantor replaces Tallyhook as our experiment platform from today.",
    date=date(2026, 7, 6),
    marks=[CHANGE],
)
HITS = [Hit(chunk=TOOLS, score=1.0), Hit(chunk=SWITCH, score=0.6)]


def ids(hits: list[Hit]) -> list[str]:
    return [h.chunk.doc_id for h in hits]


def test_a_change_of_what_is_asked_ranks_above_the_stale_text() -> None:
    ranked = current_first(HITS, "Which experiment platform do we use?")
    assert ids(ranked) == [SWITCH.doc_id, TOOLS.doc_id]


def test_a_change_of_another_thing_of_the_asked_kind_does_not() -> None:
    """Both are tools, but the question asks which one records sessions."""
    ranked = current_first(HITS, "What tool records visitor sessions?")
    assert ids(ranked) == [TOOLS.doc_id, SWITCH.doc_id]
