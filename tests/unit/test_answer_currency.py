"""A newer statement of change ranks above the older hit whose value it says is old only
when that hit's statement is about what the question asks (answers/currency.py)."""

from __future__ import annotations

from datetime import date

from knowledge_platform.dating import CHANGE
from knowledge_platform.models import Hit
from knowledge_platform.serve.answers.currency import current_first, newer_values_first
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


OPS = make_chunk(
    n=3,
    source_id="ops.md",
    title="Operations",
    text="We host 54 client sites on Driftnode, across two regions.",
    date=date(2026, 2, 23),
    time_kind="standing",
)
COUNT = make_chunk(
    n=4,
    source_id="memory/2026-10-26.md",
    title="2026-10-26 daily log",
    text="Ravensmoor microsites live, so we're at 67 hosted sites.",
    date=date(2026, 10, 26),
    time_kind="event",
)
TARGETS = make_chunk(
    n=5,
    source_id="clients.md",
    title="Clients",
    text="Velvetine Cosmetics: KPI is share of voice in prestige beauty press, target 30%.",
    date=date(2026, 1, 12),
    time_kind="standing",
)
MEASURED = make_chunk(
    n=6,
    source_id="memory/2026-11-02.md",
    title="2026-11-02 daily log",
    text="Velvetine share of voice for October: 27.9%.",
    date=date(2026, 11, 2),
    time_kind="event",
)


def test_a_newer_log_entry_with_another_value_ranks_above_the_standing_text() -> None:
    """No word of change ("we're at 67"), yet a later figure of the same thing: current."""
    hits = [Hit(chunk=OPS, score=1.0), Hit(chunk=COUNT, score=0.7)]
    assert ids(newer_values_first(hits, "How many client sites do we host?")) == [
        COUNT.doc_id,
        OPS.doc_id,
    ]


def test_the_earlier_value_asked_for_keeps_the_standing_text_first() -> None:
    hits = [Hit(chunk=OPS, score=1.0), Hit(chunk=COUNT, score=0.7)]
    assert ids(newer_values_first(hits, "How many sites did we host before the move?")) == [
        OPS.doc_id,
        COUNT.doc_id,
    ]


def test_a_measure_is_no_new_target() -> None:
    """October's share of voice is not a new share-of-voice target."""
    hits = [Hit(chunk=TARGETS, score=1.0), Hit(chunk=MEASURED, score=0.7)]
    question = "What share-of-voice target did we agree with Velvetine?"
    assert ids(newer_values_first(hits, question)) == [TARGETS.doc_id, MEASURED.doc_id]
    asked = "What is Velvetine's share of voice?"
    assert ids(newer_values_first(hits, asked)) == [MEASURED.doc_id, TARGETS.doc_id]


def test_a_change_that_says_nothing_of_what_is_asked_does_not_supersede() -> None:
    """The delivery review's move "from Monday 09:30" names the time a sentence about the
    huddle gives, but the question asks about the huddle, which the move never mentions."""
    huddle = make_chunk(
        n=5,
        source_id="memory/2026-04-07.md",
        title="2026-04-07 daily log",
        text="Too many of us on morning radio calls at 9:30 and the huddle kept running into them.",
        date=date(2026, 4, 7),
        time_kind="event",
    )
    review = make_chunk(
        n=6,
        source_id="memory/2026-09-02.md",
        title="2026-09-02 daily log",
        text="The weekly delivery review moved from Monday 09:30 to Wednesday 11:00.",
        date=date(2026, 9, 2),
        time_kind="event",
        marks=[CHANGE],
    )
    hits = [Hit(chunk=huddle, score=1.0), Hit(chunk=review, score=0.6)]
    assert ids(current_first(hits, "What time is the newsroom huddle?")) == [
        huddle.doc_id,
        review.doc_id,
    ]


def test_a_change_less_about_what_is_asked_stays_below_the_log_entry_that_is() -> None:
    """Both moves are statements of change and the later one names "Monday" and the 9:30
    the earlier one replaced, but only the earlier one is about the kick-off asked for: the
    later move of the delivery review does not rank above it."""
    kickoff = make_chunk(
        n=7,
        source_id="memory/2026-08-03.md",
        title="2026-08-03 daily log",
        text="From now on the Monday kick-off starts at 10:15 instead of 9:30.",
        date=date(2026, 8, 3),
        time_kind="event",
        marks=[CHANGE],
    )
    review = make_chunk(
        n=8,
        source_id="memory/2026-09-02.md",
        title="2026-09-02 daily log",
        text="The weekly delivery review moved from Monday 09:30 to Wednesday 11:00.",
        date=date(2026, 9, 2),
        time_kind="event",
        marks=[CHANGE],
    )
    hits = [Hit(chunk=kickoff, score=1.0), Hit(chunk=review, score=0.5)]
    asked = "What time is the Monday kick-off?"
    assert ids(current_first(hits, asked)) == [kickoff.doc_id, review.doc_id]
    # a later move of the kick-off itself still ranks above the earlier one
    later = make_chunk(
        n=9,
        source_id="memory/2026-10-05.md",
        title="2026-10-05 daily log",
        text="The Monday kick-off moved from 10:15 to 10:30.",
        date=date(2026, 10, 5),
        time_kind="event",
        marks=[CHANGE],
    )
    hits = [Hit(chunk=kickoff, score=1.0), Hit(chunk=later, score=0.5)]
    assert ids(current_first(hits, asked)) == [later.doc_id, kickoff.doc_id]
