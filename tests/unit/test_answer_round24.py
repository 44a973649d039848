"""Round 24 (issue 25): a correction is a statement of change, a later day's entry of one log
may make an earlier day's value old, and a question that asks only what happened on one day is
answered by that day's log."""

from __future__ import annotations

from datetime import date

from knowledge_platform.dating import CHANGE, CHANGE_CUE
from knowledge_platform.serve.answers.asks import read_ask
from knowledge_platform.serve.answers.changes import change_in
from tests.unit.test_answer_round23 import _scored

LOG = "moss/chat/ops-2026-10.md"
SAID = "Priya Nair: Laurel Ridge tipping goes to $61/ton from Oct 12."
CORRECTION = "Priya Nair: Correction to yesterday — Laurel Ridge is $56/ton, not 61."


def test_a_correction_names_the_value_it_corrects_as_old() -> None:
    """ "Correction to yesterday — ... $56/ton, not 61" said nothing changed (before: no old
    value, and its chunk was not marked as a statement of change)."""
    assert CHANGE_CUE.search(CORRECTION)
    corrected = change_in(CORRECTION)
    assert [v.norm for v in corrected.old_in(SAID)] == ["$61"]
    # "not" without a correction or a "now" is no change
    assert not change_in("Laurel Ridge is $56/ton, not the $61 the others pay.").old


def _entry(text: str, day: date, score: float, lexical: float):
    return _scored(
        text,
        1,
        day,
        "event",
        lexical,
        score,
        source_id=LOG,
        title="#ops · October 2026",
        marks=[CHANGE] if CHANGE_CUE.search(text) else [],
    )


def test_a_later_days_entry_of_one_log_may_make_an_earlier_days_value_old() -> None:
    """Both entries are in one month's chat export: before, a statement of change in the same
    document was never a rival, so the answer led with the $61 the next day's entry corrects
    and quoted it as current."""
    from knowledge_platform.serve.answers.extractive import made_old, newest_first_pick

    said = _entry(SAID, date(2026, 10, 5), 1.0, 1.0)
    corrected = _entry(CORRECTION, date(2026, 10, 6), 0.84, 0.67)
    question = "What does Laurel Ridge Compost charge us per ton?"
    assert newest_first_pick(question, [said], [said, corrected], 0.72)[0] is corrected
    assert made_old([corrected, said]) == {id(said): corrected}
    # one day's entry does not make another sentence of the same day old
    same_day = _entry(CORRECTION, date(2026, 10, 5), 0.84, 0.67)
    assert made_old([same_day, said]) == {}


def test_a_question_about_what_happened_on_one_day_is_answered_by_that_days_log() -> None:
    """ "What did we damage on 14 May?" was not found: no sentence says "damage" ("hit the
    mainline at Orchard Row with the trencher")."""
    from knowledge_platform.serve.answers.extractive import day_pick

    day = date(2026, 5, 14)
    standing = _scored(
        "Damage to client property is reported the same day.", 2, day, "standing", 1, 0.6
    )
    logged = _entry("Dev: hit the mainline at Orchard Row with the trencher.", day, 0.45, 0.0)
    named = _entry("On Thursday 14 May the crew cut the irrigation line.", day, 0.4, 0.0)
    other_day = _entry("Dev: hit a cable at Pruitt.", date(2026, 5, 20), 0.5, 0.0)
    scored = [other_day, standing, logged, named]
    picked = day_pick(read_ask("What did we damage on 14 May?"), scored, (day, day))
    assert picked == [named, logged]
    # a question that names something, asks for a kind of value or covers more than a day
    # is answered as any other
    assert day_pick(read_ask("What did Dev damage on 14 May?"), scored, (day, day)) == []
    assert day_pick(read_ask("How much did we spend on 14 May?"), scored, (day, day)) == []
    week = (date(2026, 5, 11), date(2026, 5, 17))
    assert day_pick(read_ask("What did we damage last week?"), scored, week) == []


def test_an_answer_to_which_record_names_the_record() -> None:
    """ "What incident did we have on 12 May?" quoted "Incident closed with the district."
    (before: without the record it is of); a question for what a record says is not."""
    from knowledge_platform.serve.answers.extractive import record_titles

    closed = _scored(
        "Incident closed with the district.",
        1,
        date(2026, 5, 12),
        "event",
        1.0,
        0.8,
        title="INC-2026-007 — Middle school core switch failure",
    )
    assert record_titles("What incident did we have on 12 May?", [closed]) == {
        id(closed): "INC-2026-007 — Middle school core switch failure: "
    }
    assert record_titles("What did INC-2026-007 find?", [closed]) == {}
    untitled = _scored("Incident closed.", 2, date(2026, 5, 12), "event", 1.0, 0.8)
    assert record_titles("Which incident was closed?", [untitled]) == {}
