"""Round 33 (issue 25): what a plain-text record without headings requires, read from its
labelled list or line; a record's number written with or without its leading zero; a
unit's short form ("60 min"); "how much free time" asked as a duration; a step's size and a
measured average that are no side of a conflict; and a tool "out as of" a day as a
statement of change."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from knowledge_platform.dating import CHANGE_CUE
from knowledge_platform.serve.answers.asks import mentions, read_ask
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.conflicts import Statement, disagreement
from knowledge_platform.serve.answers.extractive import extractive_answer
from knowledge_platform.serve.answers.values import values
from tests.answer_fixtures import hits, local_embedder
from tests.store_fixtures import chunk_file

TB_12 = (
    "TB-12 — Attic air handlers: secondary pan float switch\nIssued: 03/02/2026\n"
    "Issued by: Gus Ambrose, SM\nStatus: Active\n\n"
    "Why: 3 ceiling-damage claims last summer, all attic AHs with clogged primaries and no "
    "switch in the pan. Never again.\n\n"
    "Applies to: every air handler / furnace+coil **in an attic**. (basement + closet units: "
    "not required under this TB)\n\nRequired:\n"
    '1. Secondary drain pan under the unit, at least 3" bigger than the unit footprint.\n'
    "2. **Float switch in the secondary pan** wired to shut the system down on high water.\n"
    "3. If there's a pan but no switch — add the switch. Customer can decline.\n\n"
    "Tune-ups: check the pan + float switch on every attic unit in the spring TU.\n"
)

SP_26 = (
    "# SP-26 Superchlorination & Reopening\n"
    "Rev 1 · Effective 15 June 2026 · Owner: Curtis Ambrose · Status: Active\n\n"
    "1. Shock at close only, CPO only. CLOSED sign on gate + front door.\n"
    "2. Pump on high overnight.\n"
    "3. **Before reopening:** free chlorine must read **4.0 ppm or lower**, and you need **two "
    "readings 15 minutes apart** that both meet that.\n"
    "4. If FC is still high at open time, delay open and text the pool lead.\n"
)

SP_09 = (
    "SP-9  SUPERCHLORINATION (SHOCKING)\nRev. 3, 2025-04-14 | Owner: Curtis A. | Status: Active"
    "\n\nWho: CPO only (pool lead or Curtis).\n\nSteps\n"
    "1. Shock at close, never with swimmers in. Post the CLOSED sign on the gate.\n"
    "2. Run the pump on high overnight.\n"
    "3. Test FC before open. **The pool stays closed until free chlorine reads 5.0 ppm or "
    "lower.** If it's higher, delay open and call Curtis.\n"
)


@pytest.mark.parametrize(
    ("path", "text", "day", "question", "said", "not_said"),
    [
        # its first sentence was quoted ("Never again."): a plain record has no "## Decision"
        (
            "bulletins/TB-12-attic-ah-float-switch.md",
            TB_12,
            date(2026, 3, 2),
            "What did TB-12 require?",
            "Float switch in the secondary pan",
            "Never again",
        ),
        # its first item was quoted, not the one its label says holds what is asked
        (
            "safety/SP-26-superchlorination-reopening.md",
            SP_26,
            date(2026, 6, 15),
            "What does SP-26 require before a pool can reopen after superchlorination?",
            "4.0 ppm",
            "Shock at close",
        ),
        # "SP-9" and the file's "SP-09" were two records: only the header line named it
        (
            "safety/SP-09-superchlorination.md",
            SP_09,
            date(2025, 4, 14),
            "What free chlorine level did SP-9 require before a shocked pool could reopen?",
            "5.0 ppm",
            "Shock at close",
        ),
    ],
)
def test_a_plain_record_answers_from_the_line_that_says_what_is_asked(
    path: str, text: str, day: date, question: str, said: str, not_said: str
) -> None:
    chunks = chunk_file(path, text, day, "standing", title=Path(path).stem)
    got = extractive_answer(
        question,
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
        named={chunks[0].doc_id},  # as the service finds the record the question names
    )
    assert got.mode == "extractive" and said in got.answer, got.answer
    assert not_said not in got.answer, got.answer


def test_a_record_number_is_the_same_with_or_without_its_leading_zero() -> None:
    assert mentions("SP-09-superchlorination: Test FC before open.", ["SP-9"])
    assert not mentions("SP-19-lightning: Clear the pool.", ["SP-9"])


def test_short_units_are_durations_and_how_much_time_asks_for_one() -> None:
    assert [v.norm for v in values("Open service ports, **circulate 60 min**.")] == ["0.04167d"]
    assert [v.kind for v in values("6 wks out, then 2 hrs on site")] == ["duration"] * 2
    assert [v.kind for v in values("min. order 5")] == ["number"]
    asked = "How much free time do carriers get at our docks before detention can be charged?"
    assert read_ask(asked).kinds == ("duration", "percent")  # or a share of one saved
    assert {"free", "time"} <= read_ask(asked).subject  # words of what is asked
    assert read_ask("How much did we charge for overtime?").kinds == ("money",)


def test_a_step_size_and_a_measured_average_are_no_side_of_a_conflict() -> None:
    """ "Free time is 2 hours" and a rate card's "$65 per hour, 15-minute increments" were two
    answers to how long free time is; a month's "P1 average attend time: 31 min" was newer than the
    rule "attends within 30 minutes" and led the answer."""
    asked = "How much free time do carriers get at our docks before detention can be charged?"
    free = Statement("**Free time is 2 hours** from the appointment time.", "Onboarding pack")
    row = Statement(
        "Item: Detention at our docks, after free time; Charge: $65 per hour, 15-minute "
        "increments.",
        "Ironside Haulage",
    )
    assert disagreement(asked, free, row) is None
    rule = Statement("P1: an engineer or security officer attends within 30 minutes.")
    month = Statement("P1 average attend time: 31 min (the entrapment took 42 min).")
    assert disagreement("How quickly must someone attend a P1 emergency?", rule, month) is None
    old = Statement("Priority: P1 emergency; Attend within: 60 minutes.")
    found = disagreement("How quickly must someone attend a P1 emergency?", rule, old)
    assert found is not None and found.kind == "duration", found


def test_a_tool_out_as_of_a_day_is_a_statement_of_change() -> None:
    out = "Lakeshore Reporting is out for anything new (they finish what's already booked)."
    assert [v.text for v in change_in(out).old] == ["Lakeshore Reporting"]
    assert CHANGE_CUE.search("TimeSlate is out as of Friday 7/31 at 6 p.m.")
    assert CHANGE_CUE.search("We use LexLedger now — from Saturday 8/1 it all goes there.")
    assert not CHANGE_CUE.search("The phones are busy right now — call back later.")


def test_abbreviations_of_a_kpi_sheet_count_as_the_question_words() -> None:
    """ "What was the average ticket last month?" had half its words in "Month: Oct; ... Avg
    ticket: $419" (0.626 against the threshold); "first-time-fix rate" none of "FTF %"."""
    from knowledge_platform.serve.answers.glossary import initials, words

    assert "averag" in words("Avg ticket: $419") and "week" in words("6 wks out")
    assert initials("What was our first-time-fix rate last week?")["ftf"] == {
        "first",
        "time",
        "fix",
    }


def test_a_ratio_is_one_value_and_not_a_time() -> None:
    """ "Minnow 1:4" and "Minnow 1:5" were four numbers 1, 4, 1 and 5: no conflict of ratios."""
    assert next((v.kind, v.norm) for v in values("Ratio **1:4**. 30 min.")) == ("number", "1:4")
    assert [v.norm for v in values("max ratio 1:12")] == ["1:12"]
    assert [v.kind for v in values("meet at 1:30 pm")] == ["time"]
    asked = "What is the maximum swimmer-to-instructor ratio for Minnow classes?"
    found = disagreement(
        asked,
        Statement("**Minnow** — ages 3 to 5, first class without a parent. Ratio **1:4**."),
        Statement("Ratios (max swimmers per instructor): Guppy 8 pairs · **Minnow 1:5**"),
    )
    assert found is not None and {found.a.norm, found.b.norm} == {"1:4", "1:5"}, found
    count = Statement("If a Minnow class hits 5 because of a make-up, call the pool lead.")
    table = Statement("Ratios (max swimmers per instructor): Guppy 8 pairs · **Minnow 1:5**")
    assert disagreement(asked, count, table) is None  # a count is no ratio
