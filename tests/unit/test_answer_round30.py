"""Round 30 (issue 25): a weekly sheet pasted as comma-separated values in a fence, a docket's
"5/12 — ..." lines on a page of no date, a reply's "On Mon, Jul 27, 2026 at 11:20 AM ...
wrote:"; a name in bold; a sum asked over days; a statement of change named as one; a
record's header block and the list its lead opens."""

from __future__ import annotations

from datetime import date

from knowledge_platform.ingest.chunking import csv_tables
from knowledge_platform.serve.answers.asks import read_ask
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.extractive import asks_content, extractive_answer
from knowledge_platform.serve.answers.sentences import split_sentences
from knowledge_platform.serve.answers.values import same, values
from tests.answer_fixtures import hits, local_embedder
from tests.store_fixtures import chunk_file


def _dated(chunks, text: str) -> date | None:
    """The date of the chunk holding `text`."""
    return next(c.date for c in chunks if text in c.text)


SHEET = (
    "# Fuel dock — weekly gallons, 2026\n\nPasted from the fuel-dock sheet every Monday.\n\n"
    "```\nweek_starting,diesel_gal,gas_gal,occupancy_pct\n2026-10-26,538,610,84\n"
    "2026-11-02,611,702,77\n2026-11-09,412,455,72\n```\n\nOwen keeps this from September.\n"
)


def test_a_fence_of_comma_separated_values_is_a_table_a_row_a_week() -> None:
    """The sheet's rows were one undated block of code: "How many gallons of diesel last
    week?" had no row of that week to answer from."""
    table = csv_tables(SHEET)
    assert "| week starting | diesel gal | gas gal | occupancy pct |" in table
    assert "| 2026-11-09 | 412 | 455 | 72 |" in table and "```" not in table
    chunks = chunk_file("fuel/weekly.md", SHEET, date(2026, 11, 16), "standing")
    assert _dated(chunks, "| 2026-11-09 | 412 |") == date(2026, 11, 9)
    assert _dated(chunks, "| 2026-11-02 | 611 |") == date(2026, 11, 2)
    # code that is no sheet stays as written
    code = "```python\nprint(1, 2)\nx = f(a, b)\n```\n"
    assert csv_tables(code) == code
    assert csv_tables("```\nnot, a, sheet\n1, 2\n```") == "```\nnot, a, sheet\n1, 2\n```"


def test_a_dockets_month_day_lines_on_an_undated_page_and_a_replys_quoted_day() -> None:
    """ "5/12 — Rule 16 scheduling conference" down a docket sheet with no date of its own
    was undated: "What happened in the Harlow Foods case on 12 May?" found nothing."""
    docket = (
        "# M-26-0014 — Harlow Foods Inc. — docket sheet\n\nJudge Osei.\n\n"
        "1/30 — Complaint filed.\n2/3 — JLL retained.\n"
        "5/12 — Rule 16 scheduling conference before MJ Halvorsen.\n5/28 — Initial disclosures.\n"
    )
    chunks = chunk_file("matters/docket.md", docket, None, "standing")
    assert _dated(chunks, "Rule 16") == date(2026, 5, 12)  # "1/30": month first
    assert _dated(chunks, "Complaint filed") == date(2026, 1, 30)
    intake = (
        "# New-matter intake log\n\nKept by Gwen.\n\n"
        "| Opened | Matter no. | Client |\n|---|---|---|\n"
        "| 11/12 | M-26-0100 | Oakhurst Dental Group |\n| 11/16 | M-26-0101 | Lakeview Charter |\n"
    )
    chunks = chunk_file("firm/intake-log.md", intake, None, "standing")
    assert _dated(chunks, "Lakeview Charter") == date(2026, 11, 16)
    thread = (
        "# Cutover (email thread)\n\nNewest message first.\n\nEveryone, LexLedger from 8/1.\n\n"
        "> On Mon, Jul 27, 2026 at 11:20 AM Ravi Sood wrote:\n>\n> Test migration finished.\n>\n"
        "> > On Fri, Jul 24, 2026 at 5:12 PM Dana Ruiz wrote:\n> >\n> > Signed the order form.\n"
    )
    chunks = chunk_file("notes/2026-07-28-cutover.md", thread, date(2026, 7, 28), "event")
    assert _dated(chunks, "Test migration finished") == date(2026, 7, 27)
    assert _dated(chunks, "Signed the order form") == date(2026, 7, 24)
    assert _dated(chunks, "LexLedger from 8/1") == date(2026, 7, 28)


def test_a_name_in_bold_is_a_name_and_a_rows_abbreviation_ends_no_sentence() -> None:
    """ "logged in **FixTrack**" held no name (its bold read as a sentence's start), and a
    rate table's "2026 rate (eff. 7/1)" header cut its row in two at "eff."."""
    assert [v.text for v in values("All work orders are logged in **FixTrack**, always.")] == [
        "FixTrack"
    ]
    rates = "| Timekeeper | Init. | 2026 rate (eff. 7/1) |\n|---|---|---|\n"
    rates += "| Tess Morley | TM | $190 |\n"
    assert split_sentences(rates) == [
        "Timekeeper: Tess Morley; Init.: TM; 2026 rate (eff. 7/1): $190."
    ]
    assert len(split_sentences("Line stopped 1 h 40 min on shift A. Ordered another spare.")) == 2
    assert len(split_sentences("Okoye v. Lakeview Charter Schools, FMLA retaliation.")) == 1


def test_a_sum_asked_over_days_answers_with_the_total_row() -> None:
    """ "How many words since Monday?" of a week's daily rows and its "Week to date" row
    answered with Monday's row."""
    dashboard = (
        "# Production dashboard — November 2026\n\n## Week of Mon 16 Nov 2026 (to date)\n\n"
        "| Day | Words translated | Jobs delivered |\n|---|---|---|\n"
        "| Mon 11/16 | 31,480 | 8 |\n| Tue 11/17 | 29,860 | 11 |\n| Wed 11/18 | 33,120 | 9 |\n"
        "| **Week to date** | **94,460** | **28** |\n"
    )
    chunks = chunk_file("dashboard/2026-11.md", dashboard, date(2026, 11, 1), "event")
    got = extractive_answer(
        "How many words have we translated since Monday?",
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
        during=(date(2026, 11, 16), date(2026, 11, 20)),
    )
    first = got.answer.index("94,460")  # the week's total, ahead of any day's figure
    assert all(
        got.answer.find(day) in (-1,) or got.answer.find(day) > first
        for day in ("31,480", "29,860", "33,120")
    ), got.answer


def test_a_statement_of_change_is_led_by_what_it_changed_from() -> None:
    """ "Going forward the PM huddle is Tuesdays at 8:30, not Mondays 9:00." was quoted with
    nothing to say that Monday is the old day."""
    chat = (
        "# PM group chat\n\n25/05 09:10 - Glen W: Going forward the PM huddle is Tuesdays at "
        "8:30, not Mondays 9:00.\n25/05 09:12 - Anneliese: noted\n"
    )
    chunks = chunk_file("chat/pm-group_2026-05-25.md", chat, date(2026, 5, 25), "event")
    got = extractive_answer(
        "On what day is the weekly PM huddle held?",
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
    )
    assert "(changed from Mondays) Glen W: Going forward" in got.answer, got.answer


def test_a_record_asked_for_its_gist_answers_with_its_rule_not_its_header() -> None:
    """FP-06's "Rev. 1 · March 2022 Status: Current" (two header lines read as one) was its
    answer; SN-07's lead "At the fuel dock:" stopped before the list it opens."""
    assert asks_content("fp-14, what's the gist?")
    assert asks_content("fp-06 - what's the rule in there?")
    assert not asks_content("Who owns the rota?")
    policy = (
        "# FP-06 — Remote Work\n\nRev. 1 · March 2022\nStatus: Current\nOwner: Dana Ruiz\n\n"
        "1. Lawyers and staff may work remotely **up to two days a week**, with approval.\n"
        "2. Core hours: 9:30 a.m. to 4:00 p.m. Central.\n"
    )
    chunks = chunk_file("policies/FP-06.md", policy, date(2022, 3, 1), title="FP-06 — Remote Work")
    got = extractive_answer(
        "What does FP-06 say?",
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
        named={chunks[0].doc_id},
    )
    assert "two days a week" in got.answer and "Status: Current" not in got.answer, got.answer
    notice = (
        "# SN-07 — Fuel dock: lightning\n\nIssued: 2026.05.19 · By: Hollis Brandt\n"
        "Status: In force\n\nSummer storms come up the Severn fast. At the fuel dock:\n\n"
        "1. **Stop fueling and clear the fuel dock when lightning is within 10 miles.**\n"
        "2. Staff off the fuel dock and into the dock office.\n"
    )
    title = "SN-07 — Fuel dock: lightning"
    chunks = chunk_file("safety/SN-07.md", notice, date(2026, 5, 19), title=title)
    got = extractive_answer(
        "What did safety notice SN-07 require?",
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
        named={chunks[0].doc_id},
    )
    assert "10 miles" in got.answer, got.answer


def test_a_day_a_change_starts_from_is_not_what_it_changed_from() -> None:
    """ "Kelsey moves to the parts counter with Nadia from Monday the 14th" made the crew
    sheet's "Staff meeting: Mondays 07:30" old, and answered the staff meeting's day."""
    starts = change_in("Kelsey moves to the parts counter with Nadia from Monday the 14th.")
    assert not starts.old and not starts.makes_old("Staff meeting: Mondays 07:30, yard office.")
    moved = change_in("We moved the review to Thursday from Tuesday.")
    assert [v.text for v in moved.old] == ["Tuesday"]
    assert "wednesday" in {v.norm for v in change_in("No more Wednesday 07:30.").old}


def test_a_radio_channel_or_a_floor_is_asked_by_its_number() -> None:
    """ "Which VHF channel ...?" asked for a name, like a tool's ("Which Slack channel"), so
    "hail the dockmaster on **VHF 71**" held nothing it asked for: not found."""
    assert read_ask("Which VHF channel should a boat use to hail the dock office?").kinds[0] == (
        "number"
    )
    assert read_ask("which floor is the server room on?").kinds[0] == "number"
    assert read_ask("Which Slack channel do alerts go to?").kinds[0] == "name"


def test_net_30_is_thirty_days_to_pay() -> None:
    """The policy's "Payment terms are net 30" held no duration, so the FAQ's "45 days to
    pay" had nothing to disagree with."""
    (terms,) = values("Payment terms are net 30 from the invoice date.")
    assert terms.kind == "duration" and same(terms, values("30 days")[0])
    assert [v.kind for v in values("net 3,000 units")] == ["number"]
