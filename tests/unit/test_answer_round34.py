"""Round 34 (issue 25): a month's table row, whole or still open ("Nov 2026 MTD"), is of its
month; an account's running notes ("- 4/2 — March billed $18,940") are dated line by line;
a count of what was done ("How many swimmers attended ...") is found under the verb's
column; revenue asks for an amount; "first-time-fix" searches as "FTF"; and what other days
said is no conflict with the answer to a question about a window."""

from __future__ import annotations

from datetime import date

from knowledge_platform.dating import month_row
from knowledge_platform.models import Chunk
from knowledge_platform.serve.answers.asks import fits, read_ask
from knowledge_platform.serve.answers.contract import Answer
from knowledge_platform.serve.answers.extractive import extractive_answer
from knowledge_platform.serve.answers.glossary import synonyms
from knowledge_platform.serve.answers.sentences import said_during, sentences_of
from knowledge_platform.serve.answers.sources import Sources
from tests.answer_fixtures import hits, local_embedder
from tests.store_fixtures import chunk_file


def _ask(question: str, chunks: list[Chunk], during: tuple[date, date] | None = None) -> Answer:
    """The extractive answer over `chunks` (best first in that order), with the local model."""
    return extractive_answer(
        question, hits(*chunks), scope="internal", embedder=local_embedder(), during=during
    )


def _leads_with(got: Answer, value: str) -> bool:
    """Whether the answer's first sentence (up to its first citation) gives `value` once."""
    return got.answer.split("[1]")[0].count(value) == 1


REVENUE = """# Monthly revenue snapshot — 2026
_Cash basis. Updated 11/16 (Nov MTD thru Sun 11/15)._

| Month | Pocket | Arden | Total | notes |
|---|---|---|---|---|
| Aug 2026 | $92,115 | $78,460 | $170,575 | new tuition from 8/1 |
| Sep 2026 | $94,020 | $79,955 | $173,975 |  |
| Oct 2026 | $97,640 | $84,310 | $181,950 | first full month w/ sibling disc. |
| **Nov 2026 MTD (thru 11/15)** | $58,975 | $51,200 | $110,175 | Oct invoice paid 11/12 |
| YTD thru Oct | $924,945 | $768,520 | $1,693,465 | |
"""

ACCOUNT = """# Hickory Row Property Management (HRPM) — account notes
acct since Mar 2024 · ~340 rental units across 41 addresses

**Terms (standing)**
- NTE **$450** per work order. Over that, call Renee before doing the work.
- Billing: ONE consolidated invoice per month, sent the 1st/2nd business day, **Net 30**.

## 2026 running notes
- 2/3 — Jan billed $16,020.
- 3/3 — Feb billed $14,215 (slow month, only 47 WOs).
- 3/18 — 640 Brandt Ct flame rollout switch, warranty.
- 4/2 — March billed **$18,940** · 61 WOs. Renee happy w/ response times.
- 5/4 — April billed $17,380 (58 WOs).
- 10/2 — Sept billed $18,275.
- 11/2 — Oct billed $21,330 (fall checks + cold snap).
"""


def test_a_months_row_is_of_its_month_whole_or_so_far() -> None:
    assert month_row("**Nov 2026 MTD (thru 11/15)**".strip("*")) == date(2026, 11, 1)
    assert month_row("Nov 2026 (to 11/19)") == date(2026, 11, 1)
    assert month_row("Oct 2026") == date(2026, 10, 1)
    assert month_row("YTD thru Oct") is None and month_row("Nov 2026 budget") is None
    chunks = chunk_file("numbers/revenue-snapshot-2026.md", REVENUE, date(2026, 11, 16))
    # the open month's row was read as part of October's, the row above it
    october = [c for c in chunks if "$84,310" in c.text]
    assert october and all("$51,200" not in c.text for c in october), october
    assert {c.date for c in october} == {date(2026, 10, 1)}


def test_last_months_figure_is_its_rows_not_the_year_to_date() -> None:
    chunks = chunk_file("numbers/revenue-snapshot-2026.md", REVENUE, date(2026, 11, 16))
    got = _ask(
        "What was the Arden site's revenue last month?",
        chunks,
        (date(2026, 10, 1), date(2026, 10, 31)),
    )
    assert got.mode == "extractive" and got.answer.index("$84,310") >= 0, got.answer
    # the year to date and November so far were quoted first, or instead
    assert "$768,520" not in got.answer and "$51,200" not in got.answer, got.answer


def test_running_notes_in_a_list_are_dated_by_their_lines() -> None:
    chunks = chunk_file("clients/hickory-row-pm-account-notes.md", ACCOUNT)
    billed = {c.date for c in chunks if "March billed" in c.text}
    assert billed == {date(2026, 4, 2)}, [(c.date, c.text[:40]) for c in chunks]
    got = _ask(
        "How much did we bill Hickory Row Property Management in March?",
        chunks,
        (date(2026, 3, 1), date(2026, 3, 31)),
    )
    # "10/2 — Sept billed $18,275." led: the page had no date, so no line had one
    assert _leads_with(got, "$18,940"), got.answer
    assert "$18,275" not in got.answer, got.answer


def test_a_count_of_what_was_done_is_found_under_the_verbs_column() -> None:
    ask = read_ask("How many swimmers attended group lessons at Arden last week?")
    assert {"swimmer", "attend"} <= ask.counted
    row = "Wk of: Wk of 11/9; Enrolled (end of wk): 723; Sched.: 648; Attended: 587; Att %: 90.6%"
    assert fits(row, ask)
    assert not fits("Pool: Arden; Lanes: 4; Length: 20 yd", ask)


def test_revenue_asks_for_an_amount_and_first_time_fix_searches_as_ftf() -> None:
    assert read_ask("What was the Arden site's revenue last month?").kinds == ("money",)
    # a count ("organic sessions (7d) 19,305") is no revenue target
    assert "number" not in read_ask("What's Cobbleroot's organic revenue target?").kinds
    assert "name" in read_ask("Which client brought in the most revenue?").kinds
    # a rate asked as what we bill at: "PA hours are most of the additional-services billing"
    # answered it, holding no amount
    assert read_ask("what do we bill PA time at these days?").kinds == ("money",)
    assert read_ask("Who handles billing?").kinds == ("person",)
    assert "ftf" in synonyms("What was our first-time-fix rate last week?").split()
    assert "fu" not in synonyms("Who owns the follow-up email?").split()  # two parts: too many


def test_what_other_days_said_is_no_conflict_with_a_windows_figure() -> None:
    """Last week's KPI row was answered with a conflict against the week before's figure,
    said in a dispatch board's huddle line, and that side was quoted as the newer."""
    kpi = chunk_file(
        "kpi/weekly-kpi-2026.md",
        "# Weekly KPI 2026\n\n| Wk | w/c | Calls run | FTF % | Avg ticket | Callbacks |\n"
        "|---|---|---|---|---|---|\n| wk45 | 11/2 | 266 | 78.9% | $428 | 12 |\n"
        "| wk46 | 11/9 | 285 | 81.4% | $441 | 9 |\n| wk47 | 11/16 | 301 | 83.2% | $436 | 7 |\n",
        date(2026, 11, 16),
    )
    board = chunk_file(
        "dispatch/board-2026-11-02.md",
        "# Dispatch board — Tue 11/3\n\n0700 huddle — DW: first-time-fix rate came in at "
        "78.9% for the week, callbacks 12, too many on inducers.\n"
        "0745 #88266 EJ NH inducer, 1710 Hollister Ave CLOSED $611\n",
        date(2026, 11, 3),
        "event",
    )
    got = _ask(
        "What was our first-time-fix rate last week?",
        [*kpi, *board],
        (date(2026, 11, 9), date(2026, 11, 15)),
    )
    assert _leads_with(got, "81.4%"), got.answer
    assert not got.conflicts, got.conflicts


ORDERS = """# Pinecrest order sheet 2026

| Week (w/c) | Site | Order ref | Total | Signed |
|---|---|---|---|---|
| 02/11 | Northgate | PD-21744 | $1,268.55 | RD |
| 02/11 | Riverside | PD-21750 | $1,119.05 | HB |
| 09/11 | Northgate | PD-21801 | $1,437.80 | RD |
| 09/11 | Riverside | PD-21815 | $1,022.65 | HB |
"""


def test_a_row_of_another_site_is_not_quoted_beside_the_one_asked_about() -> None:
    chunks = chunk_file("orders/order-sheet-2026.md", ORDERS, date(2026, 11, 16))
    got = _ask(
        "northgate pinecrest order total last wk?",
        chunks,
        (date(2026, 11, 9), date(2026, 11, 15)),
    )
    assert "$1,437.80" in got.answer, got.answer
    assert "$1,022.65" not in got.answer and "$1,268.55" not in got.answer, got.answer


KENNEL = """# Portland kennel — occupancy log, wk47

## Mon 16 Nov
- 0800 count: 9 dogs, 1 cat. Check-ins: Moose, Remy. Check-outs: Pip.

## Fri 20 Nov
**Running total since Mon 16th (as of 1530 Fri): 13 check-ins, 10 check-outs.** Tonight
should be 12 dogs.

## Previous weeks
| Week | Check-ins | Check-outs | Highest count |
|---|---|---|---|
| wk44 | 14 check-ins | 16 check-outs | 11 dogs |
| wk45 | 19 check-ins | 15 check-outs | 13 dogs |
| wk46 | 17 check-ins | 18 check-outs | 12 dogs |
"""


def test_a_running_total_answers_how_many_have_come_in_since_monday() -> None:
    ask = read_ask("How many boarders have checked in to the Portland kennels since Monday?")
    assert {"boarder", "check"} <= ask.counted  # "have checked in": the counted's own verb
    chunks = chunk_file(
        "kennel/portland-occupancy-log-wk47.md", KENNEL, date(2026, 11, 20), "event"
    )
    for question in (ask.text, "pwm kennel check-ins so far this week?"):
        got = _ask(question, chunks, (date(2026, 11, 16), date(2026, 11, 20)))
        assert "13 check-ins" in got.answer, got.answer
        # other weeks' rows were quoted beside it
        assert "19 check-ins" not in got.answer and "17 check-ins" not in got.answer, got.answer


REPORTERS = """# Court reporters — switching away from Lakeshore (email thread)

**From:** Dana Ruiz
**Sent:** Friday, April 24, 2026 9:12 AM

From 1 May all new deposition bookings go to Prairie State Reporting. Our contact at Prairie
State is Hollis Grant (scheduling).

> On Thu, Apr 23, 2026 at 4:41 PM Tess Morley wrote:
>
> Dana — the log since January, as asked:
> - 5 transcripts late out of 9
> - their new rate sheet from 4/1 is $6.25/page for the original plus a $110 appearance fee,
>   up from $4.90 and $75
"""


def test_a_sentence_of_another_firm_does_not_answer_for_the_one_named() -> None:
    """Lakeshore's "$6.25/page" answered what Prairie State Reporting charges, a price no
    page gives: the sentence and its paragraph name neither word of the firm asked about."""
    chunks = chunk_file(
        "notes/2026-04-24-court-reporters.md", REPORTERS, date(2026, 4, 24), "event"
    )
    got = _ask("What does Prairie State Reporting charge per transcript page?", chunks)
    assert got.mode == "not_found", got.answer


def test_a_wiki_page_is_as_of_its_last_edit_not_its_creation() -> None:
    """A QC SOP exported with "Created: February 2, 2026" and "Last edited: September 9,
    2026" was an event of 2 February, older than the March handbook it disagrees with."""
    from knowledge_platform.dating import document_time, stated_review

    body = (
        "# QC & cupping SOP\n\nCreated: February 2, 2026 8:55 AM\nCreated by: Mags Dufresne\n"
        "Last edited: September 9, 2026 4:48 PM\nLast edited by: Mags Dufresne\n"
        "Owner: Mags Dufresne (QC lead)\n\n---\n\n## Purpose\n\nArrival samples must be "
        "cupped **within 3 working days of arrival**.\n"
    )
    got = document_time(
        {}, "qc-cupping-sop.md", "QC & cupping SOP", stated=stated_review(body), body=body
    )
    assert got == (date(2026, 9, 9), "standing")
    minutes = "# Ops meeting\n\nDate: 3 March 2026\nLast edited: 5 March 2026\n\n- agreed X\n"
    assert document_time(
        {}, "ops.md", "Ops meeting", stated=stated_review(minutes), body=minutes
    ) == (
        date(2026, 3, 3),
        "event",
    )  # a meeting's own day, however late its notes were tidied


def test_a_rule_that_shares_a_word_or_two_is_no_side_of_a_conflict() -> None:
    """The make-up policy's "at least 2 hours before class" (a time to cancel by) was the
    newer side of a conflict with how early families arrive, and led the answer."""
    handbook = chunk_file(
        "pages/parent-handbook.md",
        "# Marlin Swim Academy — Family Handbook\n\n## Before your lesson\n\n- Please arrive "
        "**15 minutes** before class so "
        "your swimmer can change, shower, and be on the bench on time.\n",
        date(2026, 6, 10),
    )
    policy = chunk_file(
        "pages/makeup-lesson-policy.md",
        "# Make-up lesson policy\n\n**Effective July 1, 2026** — replaces the January 2025 "
        "version.\n\n## Rules\n\n1. **Earning a make-up.** Cancel the lesson in the SwimDesk "
        "parent app (or call the front desk) at least **2 hours before class**.\n2. Make-up "
        "credits must be used within **45 days**.\n",
        date(2026, 6, 19),
        "event",
    )
    got = _ask("How early should families arrive before their lesson?", [*handbook, *policy])
    assert _leads_with(got, "15 minutes"), got.answer
    assert not got.conflicts and "2 hours" not in got.answer, got.answer


def test_a_weeks_total_row_is_of_that_week() -> None:
    """Only a total to date ("YTD thru Oct") is of no one month: a week's "Total" row was
    read as one, so last week's 137 tickets were no longer said in last week."""
    digest = chunk_file(
        "digests/wk46.md",
        "# Service desk digest\n\n| Client | Opened | Closed |\n|---|---|---|\n"
        "| Pennine Freight | 35 | 38 |\n| Calder & Rowe | 19 | 17 |\n"
        "| **Total** | **137** | **141** |\n",
        date(2026, 11, 13),
        "event",
    )
    found = hits(*digest)
    rows = [x for x in sentences_of(Sources(found), found, 0) if "**Total**" in x.text]
    assert rows and said_during(rows[0], (date(2026, 11, 9), date(2026, 11, 15))), rows
    ytd = chunk_file("numbers/revenue-snapshot-2026.md", REVENUE, date(2026, 11, 16))
    found = hits(*ytd)
    rows = [x for x in sentences_of(Sources(found), found, 0) if "YTD" in x.text]
    assert rows and not said_during(rows[0], (date(2026, 10, 1), date(2026, 10, 31))), rows


ANNOUNCEMENTS = """# All-staff announcements 2026

Date: 07/20/2026
From: Priya Raman
To: all-staff
Subject: Summer rota

Hi all, the summer rota is on the board. I'm covering Riverside on Fridays.

Priya

---

Date: 08/03/2026
From: Ike Brannigan
To: all-clinical
Subject: Vetlock goes live Monday 10 August — controlled drugs

From **Monday 10 August** all controlled drug entries go in **Vetlock**.

I'm the Vetlock admin: I set up everyone's account and PIN, and I do PIN resets. If you're
locked out, text me.

Ike
"""


def test_an_archives_mails_are_each_said_by_their_writer() -> None:
    """ "I'm the Vetlock admin" in an archive of several mails had no writer (only a single
    mail's chunks had one), so who resets a Vetlock password was answered without a name."""
    chunks = chunk_file("announcements/all-staff-2026.md", ANNOUNCEMENTS, date(2026, 11, 16))
    said = {c.extra.get("writer") for c in chunks if "Vetlock admin" in c.text}
    assert said == {"Ike Brannigan"}, said
    assert {c.extra.get("writer") for c in chunks if "summer rota" in c.text} == {"Priya Raman"}
    found = hits(*chunks)
    admin = [x for x in sentences_of(Sources(found), found, 0) if "Vetlock admin" in x.text]
    assert admin and {x.speaker for x in admin} == {"Ike Brannigan"}, admin


def test_a_change_of_the_answers_own_subject_counts_with_none_of_the_questions_words() -> None:
    """ "Security contact is now Mirela Popescu" shares no word with who to tell about a lost
    laptop, but two with the answer's "Security contact: Idris Khan": it is the newer value,
    while a change of something else with one shared unit ("72 hours before the delivery
    day") is not."""
    policy = chunk_file(
        "handbook/security.md",
        "# Security\n\nSecurity contact: Idris Khan. Report a lost laptop to the security "
        "contact within one hour.\n",
        date(2026, 1, 12),
    )
    notes = chunk_file(
        "memory/2026-10-10.md",
        "# 2026-10-10\n\n## Notes\n\n- Security contact is now Mirela Popescu.\n",
        date(2026, 10, 10),
        "event",
    )
    got = _ask("Who should I tell if I lose my laptop?", [*policy, *notes])
    assert _leads_with(got, "Mirela Popescu"), got.answer


def test_done_with_a_supplier_is_a_change_quoted_with_what_came_in() -> None:
    """ "we're done with Pisgah Roll-Off" was no statement of change, and its paragraph's
    "Starting today, ... Swannanoa Waste Services handles all our roll-offs" two sentences on
    was not quoted: the old supplier was the answer."""
    from knowledge_platform.dating import CHANGE_CUE
    from knowledge_platform.serve.answers.changes import change_in

    said = "**Dumpsters: we're done with Pisgah Roll-Off.**"
    assert CHANGE_CUE.search(said) and [v.text for v in change_in(said).old] == ["Pisgah Roll-Off"]
    assert not CHANGE_CUE.search("I am done with the report, sending it later.")
    calls = chunk_file(
        "pages/who-to-call.md",
        "# Who to call\n\nUpdated 3/2/26\n\n## Suppliers\n\n- Roll-off dumpsters — Pisgah "
        "Roll-Off, Terry 828-555-0119. Swaps need 24 hr notice.\n- Porta-johns — Mountain "
        "Johns 828-555-0121\n",
        date(2026, 3, 2),
    )
    memo = chunk_file(
        "memos/2026-08-17-monday-memo.md",
        "# Monday memo 8/17\n\n**Dumpsters: we're done with Pisgah Roll-Off.** Three missed "
        "swaps in July and the one at Baird that sat full for 5 days. Starting today, Monday "
        "August 17 (8/17), Swannanoa Waste Services handles all our roll-offs. Dispatch "
        "828-555-0124, order by 2pm for next-day swap.\n",
        date(2026, 8, 17),
        "event",
    )
    got = _ask("Which company supplies our roll-off dumpsters?", [*calls, *memo])
    assert "Swannanoa Waste Services" in got.answer, got.answer


def test_the_house_is_named_by_its_staff_handbook_before_a_dash() -> None:
    """ "How long is a Gantry quote valid for?" kept "Gantry" as a name every answering
    sentence had to give, and "Our quotes are valid for 14 days" never does: a page titled
    "Gantry Freight — Employee Handbook" says what the house is called."""
    from knowledge_platform.serve.question import without_workplace, workplace_names

    titles = (t for t in ["Customer FAQ", "Gantry Freight — Employee Handbook"])  # read once
    names = workplace_names(titles, ["Fernhill Digital"])
    assert names == {"Gantry Freight", "Gantry", "Fernhill Digital"}
    assert without_workplace("How long is a Gantry quote valid for?", names) == (
        "How long is a quote valid for?"
    )
    flint = workplace_names(["Flint & Fennel Catering Ltd — Staff Handbook"])
    assert "Flint & Fennel" in flint
    assert without_workplace("What was Flint & Fennel's total revenue in March?", flint) == (
        "What was our total revenue in March?"
    )
    # a building's manual and a customer's handbook name no workplace
    assert not workplace_names(["Tower A — Building Manual", "Marina — Slip-Holder Handbook"])
