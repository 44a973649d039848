"""Round 28 (issue 25): an archive's mails dated by the "Date:" line over their "From:", a
binder's sections by their own review quarter, a week's figures by the day it ended, a running
list by each item's bracketed day, a shift report's rows and notes by their weekdays, months
and ISO weeks alone in a table's column, an ISO month and a revision table's row; statements
of change in brackets and "X is out, we use Y"; a name after "by"; a numbered item asked for
a value weighed with the other sources; a record asked what it found; a table's unit named
once above its rows."""

from __future__ import annotations

from datetime import date

from knowledge_platform.dating import (
    day_or_month,
    month_heading,
    stated_review,
    week_ending,
    weekday_year,
)
from knowledge_platform.serve.answers.asks import fits, read_ask
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.conflicts import Statement, disagreement
from knowledge_platform.serve.answers.extractive import (
    _notable,
    _partners,
    day_pick,
    extractive_answer,
)
from knowledge_platform.serve.answers.sources import Sources
from tests.answer_fixtures import hits, local_embedder
from tests.store_fixtures import chunk_file

NOW = date(2026, 11, 20)


def _by_day(chunks) -> dict[date | None, str]:
    """Each day's chunks' texts, one after another."""
    days: dict[date | None, str] = {}
    for c in chunks:
        days[c.date] = days.get(c.date, "") + "\n" + c.text
    return days


def test_an_archives_mails_are_each_of_the_day_their_date_line_gives() -> None:
    """An all-staff archive whose mails open "Date: 06/15/2026" over "From:" was one text of
    its first mail's day: the July fee rise was said in January."""
    archive = (
        "# All-staff mails 2026\n\nPasted here, oldest first.\n\n---\n\n"
        "Date: 01/06/2026\nFrom: Ruth Amsel\nTo: all-staff\nSubject: Payroll\n\n"
        "Payday moves to the 15th from February.\n\n---\n\n"
        "Date: 06/15/2026\nFrom: Olu Barnes\nTo: all-staff\nSubject: Night fee\n\n"
        "From 1 July the night consult fee goes up to $210.\n"
    )
    days = _by_day(chunk_file("mail/all-staff.md", archive))
    # "06/15/2026" can only be month first, so "01/06/2026" is 6 January, not 1 June
    assert "Payday" in days[date(2026, 1, 6)]
    assert "$210" in days[date(2026, 6, 15)] and "$210" not in days[date(2026, 1, 6)]


def test_a_binders_sections_are_as_of_their_own_review_quarter() -> None:
    """SOPs in one file, each closed by "Reviewed Q1 2026 by ...", were undated: a quarter
    was no date, and a section's own footer dated nothing."""
    assert day_or_month("Q2 2026 by Ike") == date(2026, 4, 1)
    assert day_or_month("Q5 2026") is None
    binder = (
        "# Pharmacy SOPs\n\n## SOP-06 Dispensing\n\nRepeat scripts take 48 hours.\n\n"
        "Reviewed Q1 2026 by Ike\n\n## SOP-07 Fridges\n\nRead the fridge twice daily.\n\n"
        "Reviewed Q3 2026 by Ike\n"
    )
    assert stated_review(binder) == date(2026, 7, 1)
    said = {c.text.split("\n")[0]: c.date for c in chunk_file("sop/pharmacy.md", binder)}
    assert said["Repeat scripts take 48 hours."] == date(2026, 1, 1)
    assert said["Read the fridge twice daily."] == date(2026, 7, 1)


def test_a_weeks_figures_under_the_day_it_ended_are_of_that_week() -> None:
    """Monday's huddle notes carry "**Numbers w/e 15.11.**": last week's figures were said
    on Monday, so "last week" found the week before's."""
    assert week_ending("Numbers w/e 15.11.", date(2026, 11, 16)) == date(2026, 11, 15)
    assert week_ending("Week ending 8 Nov", date(2026, 11, 16)) == date(2026, 11, 8)
    assert week_ending("Numbers for October", date(2026, 11, 16)) is None
    notes = (
        "# Huddle Mon 16.11.\n\n**Group**\n- Party venue booked.\n\n**Numbers w/e 15.11.**\n\n"
        "| Clinic | Consults |\n|---|---|\n| Northgate | 214 |\n"
    )
    days = _by_day(chunk_file("huddles/2026-11-16.md", notes, NOW, "event"))
    assert "214" in days[date(2026, 11, 15)] and "venue" not in days[date(2026, 11, 15)]


def test_a_running_list_of_calls_is_dated_by_each_items_bracketed_day() -> None:
    # the year in its heading, so the days do not hang on the clock's year
    page = (
        "# K-9 account notes 2026\n\n## Calls\n\n- (2 Jul) New PO 27-0188 from the July invoice.\n"
        "- (28 Sep) Lena takes over the account from Mateo on 1 Oct.\n"
    )
    days = _by_day(chunk_file("clients/k9.md", page))
    assert "27-0188" in days[date(2026, 7, 2)] and "Lena" in days[date(2026, 9, 28)]


def test_a_shift_reports_rows_and_notes_are_days_of_its_week() -> None:
    """ "Mon 11/2" was read day first, in whichever year 11 February was a Monday (2019), and
    "- Wed - ..." notes were all said on the report's Friday."""
    assert weekday_year("Mon 11/2", date(2026, 11, 6)) == date(2026, 11, 2)
    assert weekday_year("Fri 11/6", date(2026, 11, 6)) == date(2026, 11, 6)
    report = (
        "Shift B report - wk 45 - 2-6 Nov 2026\n\n| Day | Units sewn |\n|---|---:|\n"
        "| Mon 11/2 | 350 |\n| Fri 11/6 | 318 |\n\nNotes\n"
        "- Mon \u2013 blanks came up short from the cutting table.\n"
        "- Wed \u2013 15 rejects, mostly placement.\n"
    )
    days = _by_day(chunk_file("shifts/2026-W45-B.md", report, date(2026, 11, 6), "event"))
    assert "350" in days[date(2026, 11, 2)] and "318" in days[date(2026, 11, 6)]
    assert "15 rejects" in days[date(2026, 11, 4)]
    assert not any(d is not None and d.year != 2026 for d in days)


def test_months_and_weeks_alone_in_a_column_iso_months_and_revision_rows_date_a_page() -> None:
    assert month_heading("2026-10") == date(2026, 10, 1) and month_heading("2026-10-05") is None
    assert day_or_month("2026-04 (W. Okafor)") == date(2026, 4, 1)
    policy = (
        "| Rev | Date | By |\n|---|---|---|\n| Rev D | 2026-09 | D. Amaral |\n"
        "| Rev C | 2025-11 | D. Amaral |\n\n# Safety policy\n\nEar defenders in the print room.\n"
    )
    assert stated_review(policy) == date(2026, 9, 1)
    oee = (
        "# OEE monthly, 2026\n\n| Month | OEE |\n|---|---:|\n| Sep | 68.9% |\n| Oct | 71.4% |\n"
        "| Nov (to 11/19) | 72.6% |\n"
    )
    rows = _by_day(chunk_file("metrics/oee-2026.md", oee))
    assert "71.4%" in rows[date(2026, 10, 1)] and "68.9%" not in rows[date(2026, 10, 1)]
    rates = (
        "# Weekly defect rates, fall 2026\n\n| Week | Rate |\n|---|---:|\n"
        "| W45 (11/02-11/06) | 1.2% |\n| W46 (11/09-11/13) | 2.8% |\n"
    )
    weeks = _by_day(chunk_file("metrics/qc-2026.md", rates))
    assert "2.8%" in weeks[date(2026, 11, 13)] and "1.2%" in weeks[date(2026, 11, 6)]


def test_statements_of_change_in_brackets_and_out_with_what_is_used_now() -> None:
    raised = change_in("Reactive budget for Q4 raised to $42,000 (from $38,500) for the new rate.")
    assert [v.text for v in raised.old] == ["$38,500"]
    out = change_in("Lingodock is out, we use Scribeway now.")
    assert out.old_text == ("Lingodock",) and out.new_text == ("Scribeway",)
    assert not change_in("Kim is out today.").says_change


def test_a_name_after_by_is_labelled_by_the_verb_the_question_asks_with() -> None:
    """The manual's "collected by GreenCart Waste from the Kingsbridge Plaza bin store" named
    three things: which was its answer was a guess, so no conflict with the handbook."""
    question = "Which company collects the waste and recycling from our three buildings?"
    newer = Statement(
        "Waste and recycling for all three buildings is collected by Metro Recycling."
    )
    older = Statement(
        "General waste and recycling are collected by GreenCart Waste from the shared "
        "Kingsbridge Plaza bin store (Tower A and Tower B), Tuesdays and Fridays, before 07:00."
    )
    found = disagreement(question, newer, older)
    assert found is not None and {found.a.text, found.b.text} == {
        "Metro Recycling",
        "GreenCart Waste",
    }


def test_a_numbered_item_asked_for_a_value_is_weighed_with_the_other_sources() -> None:
    """ "How quickly must someone attend a P1 emergency?" quoted the FAQ's "P1" item alone:
    the handbook's table row saying 60 minutes was never compared."""
    faq = (
        "# Helpdesk FAQ\n\nUpdated 20 Aug 2026.\n\n**How fast do we get someone there?**\n\n"
        "- P1 - (entrapment, flood, power loss) an engineer attends within 30 minutes.\n"
        "- P2 - (no heating to a zone) an engineer attends within 4 hours.\n"
    )
    handbook = (
        "# Ops handbook\n\n| Priority | Examples | Attend within |\n|---|---|---|\n"
        "| P1 emergency | entrapment, flood, power loss | 60 minutes |\n"
        "| P2 urgent | no heating to a zone | 4 hours |\n"
    )
    chunks = [
        *chunk_file("handbook/faq.md", faq, date(2026, 8, 20), title="Helpdesk FAQ"),
        *chunk_file("handbook/ops.md", handbook, date(2026, 2, 9), title="Ops handbook"),
    ]
    got = extractive_answer(
        "How quickly must someone attend a P1 emergency?",
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
    )
    assert "30 minutes" in got.answer and "60 minutes" in got.answer
    assert got.conflicts and got.conflicts[0].newer is not None


def test_a_record_asked_what_it_found_answers_with_its_why_paragraph() -> None:
    report = (
        "# NM-2026-09 - Insulin drawn up in the wrong syringe\n\n"
        "Clinic: Hillcrest\nEvent date: 14 Aug 2026\nStatus: Closed 28 Aug 2026\n\n"
        "**What happened**\nEvening insulin for a diabetic dog was drawn up wrongly. "
        "The second nurse saw it before it was given.\n\n"
        "**Why**\nU-100 syringes were in the same ward drawer as the U-40 syringes.\n\n"
        "**Actions**\n- Syringes now kept in separate drawers.\n"
    )
    title = "NM-2026-09 - Insulin drawn up in the wrong syringe"
    chunks = chunk_file("incidents/NM-2026-09.md", report, date(2026, 8, 14), title=title)
    got = extractive_answer(
        "What did near-miss report NM-2026-09 conclude?",
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
        named={chunks[0].doc_id},
    )
    assert "U-100" in got.answer and "Event date" not in got.answer


def test_a_tables_unit_named_once_above_its_rows_counts_its_named_column() -> None:
    """ "How many kWh did the Annex use in March?" of "Month: Mar 2026; Tower A: 287,930;
    Annex: 55,380" (the unit in the page's intro) fitted nothing; a count of things named by
    no column still needs its word ("How many consults ..." of a row naming no consults)."""
    row = "Month: Mar 2026; Tower A: 287,930; Tower B: 233,905; Annex: 55,380."
    assert fits(row, read_ask("How many kWh of electricity did the Annex use in March?"))
    assert not fits(
        "w/c: 09/11; Northgate: 431.", read_ask("How many consults did Northgate do last week?")
    )


def test_what_a_question_asks_for_and_values_said_more_exactly() -> None:
    """ "From what date does the $210 fee apply?" asked for money (the fee), "OOH" was a name
    every passage had to write, "twice daily" and "once daily" were one value, and "320°F"
    the same bare number as "125 mesh"."""
    from knowledge_platform.serve.answers.values import values

    assert read_ask("From what date does the $210 out-of-hours fee apply?").kinds[0] == "date"
    assert read_ask("What day rate do we charge?").kinds == ("money",)
    assert "number" in read_ask("At what temperature does plastisol have to cure?").kinds
    assert "OOH" not in read_ask("what does an OOH emergency consult cost?").names
    (once,), (twice,) = values("once daily"), values("twice daily")
    assert once.norm != twice.norm
    assert [v.text for v in values("cure at 320°F, underbase 125 mesh")] == ["320°F", "125"]
    no_more = change_in("No more Wednesday 07:30 - the night team never made it.")
    assert "wednesday" in {v.norm for v in no_more.old}
    assert not change_in("No more than 5 people per room.").says_change


def test_asked_whether_a_value_still_holds_the_change_that_ended_it_answers() -> None:
    """ "is rounds still wednesday first thing?" was not found: the huddle entry saying "No
    more Wednesday 07:30" and the new day scored just under the threshold."""
    notes = (
        "# Huddle Mon 31.8.\n\n**Group**\n- Clinical rounds are moving. No more Wednesday 07:30, "
        "the night team never made it. From this week rounds are **Thursday 12:30-13:30**, "
        "library + video link.\n- Shauna to fix the handbook.\n"
    )
    chunks = chunk_file("huddles/2026-08-31.md", notes, date(2026, 8, 31), "event")
    got = extractive_answer(
        "is rounds still wednesday first thing?",
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
    )
    assert got.mode == "extractive" and "Thursday" in got.answer


def test_what_happened_on_a_day_is_what_its_writer_stressed() -> None:
    """ "What happened at Hillcrest on 12 May?" quoted "Second-on tonight: Hal." and "Moxie
    discharged." of that day's handover, not its "**Power cut 02:10**"; and the handover's
    "Night → day" was read as a change of words, set against other pages as a conflict."""
    handover = (
        "# Hillcrest shift handover\n\n"
        "07:45 \u2014 Night \u2192 day (Colm \u2192 Maud). **Power cut 02:10**, whole avenue "
        "dark. Generator picked up after 40 s; ICU came back first. The oxygen concentrator "
        "did not restart by itself, so two patients went onto cylinders.\n"
        "07:50 \u2014 Rest of the ward: Moxie (spaniel, spay yesterday) eating, home today. New "
        "overnight: a collie with pelvic fractures, stable, on methadone.\n"
        "07:55 \u2014 Cylinders: used two of the spares overnight. Ordered two more.\n"
        "13:00 \u2014 Moxie discharged. Biscuit eating small amounts, lactate normal.\n"
        "19:30 \u2014 Day \u2192 night (Maud \u2192 Aurelio). Biscuit stable. Second-on tonight: "
        "Hal. Spare oxygen cylinders delivered 17:10, two full.\n"
    )
    assert "day" not in change_in("07:45 \u2014 Night \u2192 day (Colm \u2192 Maud).").new_text
    title = "Hillcrest shift handover"
    chunks = chunk_file(
        "handover/hillcrest/2026-05-12.md", handover, date(2026, 5, 12), "event", title
    )
    question, day = "What happened at Hillcrest on 12 May?", (date(2026, 5, 12),) * 2
    scored, _ = _partners(question, Sources(hits(*chunks)), local_embedder(), day)
    # the day's best-scoring line first, as a search that ranks it so would give it
    best = next(s for s in scored if "Second-on" in s.sentence.text)
    ordered = [best, *(s for s in scored if s is not best)]
    assert not _notable(best, day)
    picked = day_pick(read_ask(question), ordered, day)
    assert picked and "Power cut" in picked[0].sentence.text and _notable(picked[0], day)
