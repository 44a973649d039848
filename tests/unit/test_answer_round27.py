"""Round 27 (issue 25): a journal's paragraphs led by their day in bold, a day in figures with
its weekday, a week's report by its title and its weekday labels, an undated page's month
sections and a table's month rows are dated; a month and year in figures dates a review; a
chat stamp's weekday is no name and "14-Oct" is a day; a question about one day is answered by
that day's entries; whom to go to; a record asked what it announced."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

from knowledge_platform.dating import (
    day_or_month,
    names_month_of,
    section_time,
    stated_review,
    text_date,
    week_heading,
    weekday_label,
    weekday_year,
)
from knowledge_platform.embeddings.factory import make_embedder
from knowledge_platform.serve.answers.extractive import (
    _rest_of_names,
    asks_content,
    extractive_answer,
)
from knowledge_platform.serve.answers.relevance import _ASKS_GO_TO, _NAMES_GO_TO
from knowledge_platform.serve.answers.values import values
from knowledge_platform.serve.when import resolve
from tests.answer_fixtures import answer, hash_retriever, hits
from tests.store_fixtures import chunk_file

NOW = date(2026, 11, 20)

JOURNAL = """# Parlane programme log

Running journal. Newest entry at the top.

**2026.05.13** — Noemie off sick; Bastien covered the FR review.

**2026.05.12** — Bad one. The JA calendar view in the patch build showed dates as MM/DD.
Ravi fixed the fallback the same day.

**2026.05.11** — 26.05.1 strings in, 1,240 new words.
"""

TALLY = """# Tallybird — release journal

Newest at the top.

## November

**Thu 19 Nov** — TB 26.11 live in DE, FR and JA at 14:10 ET.

**Wed 18 Nov** — Final LQA on the 26.11 RC signed off.
"""


def test_a_journals_paragraphs_led_by_their_day_in_bold_are_entries_of_that_day() -> None:
    """An undated journal whose entries open "**2026.05.12** — ..." was one standing text:
    "What went wrong on 12 May?" had no entry of that day to answer from."""
    assert text_date("**2026.11.17** — RC1 arrived") == date(2026, 11, 17)
    assert text_date("release 26.12.1") is None and text_date("v1.2.3") is None
    days = {c.date: c.text for c in chunk_file("log/parlane.md", JOURNAL)}
    assert "MM/DD" in days[date(2026, 5, 12)] and "MM/DD" not in days.get(date(2026, 5, 13), "")
    assert all(c.time_kind == "event" for c in chunk_file("log/parlane.md", JOURNAL)[1:])
    tally = {c.date: c.text for c in chunk_file("log/tallybird.md", TALLY)}
    assert "14:10 ET" in tally[date(2026, 11, 19)]


def test_days_weeks_and_months_a_heading_names_date_what_is_under_it() -> None:
    assert weekday_year("### 13/10 (Tue)", NOW) == date(2026, 10, 13)
    assert weekday_year("Tue 13/10", NOW) == date(2026, 10, 13)
    assert weekday_year("04/02 (Wed)", NOW) == date(2026, 2, 4)  # day first
    assert weekday_year("10/13 (Tue)", NOW) == date(2026, 10, 13)  # only month first fits
    calls = (
        "# Vendor call notes\n\n### 04/02 (Wed)\n- Rates live.\n\n"
        "### 13/10 (Tue)\n- Holiday cover agreed.\n"
    )
    said = {c.date: c.text for c in chunk_file("meetings/vendor-calls.md", calls)}
    assert "Holiday cover" in said[date(2026, 10, 13)]  # after an entry of February
    assert week_heading("QA weekly report — Week 46 (9\u201315 Nov)", NOW) == date(2026, 11, 9)
    assert week_heading("Morning standup notes — w/c 16 Nov", NOW) == date(2026, 11, 16)
    assert week_heading("Weekly numbers", NOW) is None
    assert section_time(("Invoicing 2026", "October 2026"), None, "standing") == (
        date(2026, 10, 1),
        "event",
    )
    page = (
        "# Invoicing summaries 2026\n\nNewest month first.\n\n## October 2026\n\n"
        "| Client | Words billed |\n|---|---|\n| Parlane | 212,480 |\n\n## September 2026\n\n"
        "| Client | Words billed |\n|---|---|\n| Parlane | 198,310 |\n"
    )
    months = {c.date: c.text for c in chunk_file("finance/invoicing.md", page)}
    assert "212,480" in months[date(2026, 10, 1)] and "198,310" in months[date(2026, 9, 1)]
    meters = (
        "# Meter readings\n\n| Month | Tower A | Annex |\n|---|---|---|\n"
        "| Feb 2026 | 296,115 | 58,915 |\n| Mar 2026 | 287,930 | 55,380 |\n"
    )
    rows = {c.date: c.text for c in chunk_file("energy/readings.md", meters)}
    assert "55,380" in rows[date(2026, 3, 1)] and "55,380" not in rows[date(2026, 2, 1)]
    assert day_or_month("03.2026") == date(2026, 3, 1)
    guide = (
        "# French style guide\n\nParlane FR queries go to Élodie.\n\n## Changelog\n\n"
        "2026-01-12  first version\n2026-07-06  Tallybird: per diem (TD-014)\n"
    )
    assert stated_review(guide) == date(2026, 7, 6)  # as of its last change
    assert stated_review("# Tower B — Building Manual\n\nRevised: 03.2026\n\nLifts: Liftec.\n") == (
        date(2026, 3, 1)
    )


def test_a_weeks_standup_dates_each_entry_by_its_weekday_label() -> None:
    """Under "Thu:", "- Open tickets: 53" was said on the week's Monday, so "How many tickets
    were open at yesterday's standup?" (a Friday) had nothing of Thursday."""
    notes = (
        "# Morning standup notes — w/c 16 Nov\n\nMon:\n- Open tickets: 49\n\n"
        "Thu:\n- Open tickets: 53\n- Luis: Tower B inspection done.\n\nFri:\n- Open tickets: 44\n"
    )
    assert weekday_label("Thu", date(2026, 11, 16)) == date(2026, 11, 19)
    assert weekday_label("Thursday hours", date(2026, 11, 16)) is None
    title = "Morning standup notes — w/c 16 Nov"
    chunks = chunk_file("standups/2026-11-16.md", notes, date(2026, 11, 16), "event", title)
    said = {c.text: c.date for c in chunks}
    assert said["Thu:\n- Open tickets: 53"] == date(2026, 11, 19)
    assert said["Fri:\n- Open tickets: 44"] == date(2026, 11, 20)
    assert said["Mon:\n- Open tickets: 49"] == date(2026, 11, 16)


def test_a_chat_stamps_weekday_is_no_name_and_a_tables_day_is_no_month() -> None:
    """ "[Thu 16:31] Ines: ..." set "Thu" against "Bayline" as a conflict of names; a ticket
    row's "Opened: 08-Oct" read as the month's total for "tickets opened last month"."""
    said = [(v.kind, v.text) for v in values("[Thu 16:31] Ines: moved door 3 to door 5")]
    assert ("name", "Ines") in said and ("name", "Thu") not in said
    assert ("date", "14-Oct") in [(v.kind, v.text) for v in values("Closed: 14-Oct.")]
    october = (date(2026, 10, 1), date(2026, 10, 31))
    assert not names_month_of("Ticket: TK-01689; Opened: 08-Oct; Closed: 09-Oct.", *october)
    assert names_month_of("October close: 187 tickets opened.", *october)


def test_a_question_about_what_happened_one_day_is_answered_by_that_days_entry() -> None:
    """ "anything go wrong on the 12th of may?" and "What went wrong on one of our departures
    on 12 May?" were not found: the day's entry shares no word with them."""
    report = (
        "# Week 20\n\n- **Monday** — quiet start, all groups on the road.\n"
        "- **Tuesday** — The minibus lost its clutch at Bridge of Orchy with the group on "
        "board. Guests walked on; the bags waited two hours. No harm done, one grumpy email.\n"
        "- **Wednesday** — Rhoda signed Mossbank for the September retreat.\n"
    )
    chunks = chunk_file("ops/2026-W20.md", report, date(2026, 5, 11), "event", "Week 20")
    tuesday = [c for c in chunks if c.date == date(2026, 5, 12)]
    assert tuesday and all("clutch" in c.text for c in tuesday)
    # the local model the service answers with: what is alike in meaning is what this reads
    embedder = make_embedder("local", cache_dir=Path(os.environ["KP_MODEL_CACHE"]), threads=1)
    for question in (
        "anything go wrong on the 12th of may?",
        "What went wrong on one of our departures on 12 May?",
    ):
        got = extractive_answer(
            question,
            hits(*tuesday, *(c for c in chunks if c not in tuesday)),
            scope="internal",
            embedder=embedder,
            during=(date(2026, 5, 12), date(2026, 5, 12)),
        )
        assert got.mode == "extractive" and "clutch" in got.answer, question
        assert "Mossbank" not in got.answer


def test_whom_to_go_to_and_what_a_record_announced() -> None:
    for question in (
        "my wrenchly sign-in stopped working, who do i bug?",
        "new starter needs access to the booking system, who sets up the account?",
        "my till login stopped working, who can reset it?",
    ):
        assert _ASKS_GO_TO.search(question), question
    assert not _ASKS_GO_TO.search("Who approved the budget?")
    assert _NAMES_GO_TO.search("I'm the Wrenchly admin, ping me for logins")
    assert _NAMES_GO_TO.search("If your login doesn't work, Ben resets it")
    assert asks_content("What did tenant notice TN-2026-07 announce?")
    assert asks_content("whats in TN-2026-16?")


def test_a_notice_asked_what_it_announced_answers_with_its_first_paragraph(tmp_path) -> None:
    """ "What did tenant notice TN-2026-07 announce?" quoted "Lifts 1, 3 and 4 stay in
    service" and another notice's hours, not the dates the lift is out."""
    notice = (
        "# Tenant Notice TN-2026-07 — Tower A lift 2 modernisation\n\n"
        "Issued: 5 June 2026 · Building: Tower A · Status: Active\n\n"
        "Liftec will modernise lift 2. Lift 2 will be **out of service from Monday 6 July to "
        "Friday 24 July 2026**.\n\nLifts 1, 3 and 4 stay in service.\n"
    )
    title = "Tenant Notice TN-2026-07 — Tower A lift 2 modernisation"
    chunks = chunk_file("notices/TN-2026-07.md", notice, date(2026, 6, 5), title=title)
    with hash_retriever(tmp_path, chunks) as retriever:
        got = answer(
            "What did tenant notice TN-2026-07 announce?",
            hits(*chunks),
            retriever,
            named={chunks[0].doc_id},
        )
    assert "6 July" in got.answer


def test_a_day_in_figures_in_a_question_is_a_window_when_only_one_order_is_a_day() -> None:
    """ "vendor call 13/10 - what did we agree?" had no window: "13/10" was two numbers."""
    window = resolve("vendor call 13/10 - what did we agree?", NOW).window
    assert window is not None and (window.start, window.end) == (date(2026, 10, 13),) * 2
    window = resolve("what did we ship on 10/13/2026?", NOW).window
    assert window is not None and window.start == date(2026, 10, 13)
    for question in ("do we have 24/7 support?", "what happened on 4/5?", "the 50/50 split?"):
        assert resolve(question, NOW).window is None, question


def test_whom_to_go_to_is_answered_by_the_one_a_page_names_as_that() -> None:
    """ "my till login stopped working, who can reset it?" was not found: "If your login
    doesn't work, Ben resets it" scored below the threshold (no "till", no "stopped")."""
    faq = (
        "# Taproom staff FAQ\n\nUpdated Aug 14, 2026 — Ben.\n\n## Where do I clock in?\n"
        "Pourtrail, on the bar iPad or the app on your phone. Same PIN you use to ring sales. "
        "If your login doesn't work, Ben resets it — don't share someone else's.\n\n"
        "## Growlers\nNo. Crowlers only.\n"
    )
    chunks = chunk_file("taproom/staff-faq.md", faq, date(2026, 8, 14), title="Taproom staff FAQ")
    embedder = make_embedder("local", cache_dir=Path(os.environ["KP_MODEL_CACHE"]), threads=1)
    got = extractive_answer(
        "my till login stopped working, who can reset it?",
        hits(*chunks),
        scope="internal",
        embedder=embedder,
    )
    assert got.mode == "extractive" and "Ben resets it" in got.answer


def test_the_rest_of_a_name_is_its_other_words_not_what_it_owns() -> None:
    assert _rest_of_names("How many bulbs went in at Marlow Mill Park yesterday?") == {
        "Marlow": ["Mill", "Park"]
    }
    # "Corvina's TTFB": whose, then what; "TTFB" had let another client's log answer
    assert _rest_of_names("What was Corvina's TTFB last week?") == {}
