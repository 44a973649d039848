"""Round 17 (issue 25): logs and pages dated as real exports write them (a chat channel's day
separators, a week's report named by its ISO week, a properties table, a version history),
a month's total over its weeks, a register kept as a table, months said without "in", and
a question about a name no source mentions."""

from __future__ import annotations

from datetime import date

from knowledge_platform.dating import (
    document_time,
    iso_week,
    names_month_of,
    stated_review,
    weekday_in_week,
)
from knowledge_platform.ingest.chunking import Chunker
from knowledge_platform.models import Chunk
from knowledge_platform.serve.answers.asks import read_ask
from knowledge_platform.serve.answers.glossary import words
from knowledge_platform.serve.answers.items import asked, find_item
from knowledge_platform.serve.when import resolve
from tests.unit.test_answer_items import hit
from tests.unit.test_chunking import COUNTER, doc


def _chunks(source_id: str, text: str, when: date | None = None) -> list[Chunk]:
    return Chunker(COUNTER, 256).chunk(doc(text, source_id=source_id, date=when, time_kind="event"))


def test_a_chat_exports_day_separators_date_its_messages() -> None:
    """ "--- Friday, November 13 ---" under "# #ops · November 2026" dates the messages
    below it (before: the file was one undated standing text)."""
    text = (
        "# #ops · November 2026\n\n--- Friday, November 6 ---\n[15:25] Priya: Weekly numbers: "
        "jobs completed 52\n\n--- Friday, November 13 ---\n[15:38] Priya: Weekly numbers: jobs "
        "completed 49\n"
    )
    dated = {c.text.split(": ", 1)[-1]: (c.date, c.time_kind) for c in _chunks("ops.md", text)}
    assert dated["Weekly numbers: jobs completed 52"] == (date(2026, 11, 6), "event")
    assert dated["Weekly numbers: jobs completed 49"] == (date(2026, 11, 13), "event")


def test_a_week_report_is_dated_by_its_iso_week_and_its_entries_by_their_weekday() -> None:
    """ "2026-W46.md" is the report of 9-15 November, said on its Friday; "the board picked
    The Granite Hall (Wednesday)" on the 11th; what is planned under **Next** and a
    heading's festival dates do not date anything."""
    assert iso_week("status/2026-W46.md") == date(2026, 11, 13)
    assert iso_week("notes/2026-05-04.md") is None
    when = document_time({}, "2026-W46.md", "Status — week 46")
    assert when == (date(2026, 11, 13), "event")
    text = (
        "# Status — week 46\n\n## Lanternfall 2026 (3-13 Dec)\n**Done**\n- The board picked The "
        "Granite Hall for the AGM (Wednesday).\n- 1,204 tickets this week.\n\n**Next**\n- Build "
        "starts Monday.\n"
    )
    dated = {c.text: c.date for c in _chunks("status/2026-W46.md", text, date(2026, 11, 13))}
    assert dated["- The board picked The Granite Hall for the AGM (Wednesday)."] == date(
        2026, 11, 11
    )
    assert dated["- 1,204 tickets this week."] == date(2026, 11, 13)
    assert dated["- Build starts Monday."] == date(2026, 11, 13)
    assert weekday_in_week("Venue walk booked for next Thursday.", date(2026, 11, 13)) is None
    assert weekday_in_week("Ops meets Tuesdays now.", date(2026, 11, 13)) is None


def test_a_properties_table_or_a_version_history_dates_a_page() -> None:
    """A wiki export's "| Last edited | January 14, 2026 10:42 AM |" row and a document's
    "## Version history" table (day first when a row can only be: 13/01/2025) say when the
    page was last reviewed (before: undated)."""
    page = (
        "# Rates\n\n| Owner | Dara |\n|---|---|\n| Status | Live |\n| Last edited | January 14, "
        "2026 10:42 AM |\n\nGarden maintenance: $74 an hour.\n"
    )
    assert stated_review(page) == date(2026, 1, 14)
    card = (
        "# Crew rate card\n\nRigger: $410 a day.\n\n## Version history\n\n| Version | Date | "
        "Change |\n|---|---|---|\n| v1 | 13/01/2025 | First card |\n| v2 | 02/04/2026 | Rigger "
        "rate updated |\n"
    )
    assert stated_review(card) == date(2026, 4, 2)


def test_a_months_total_answers_for_the_month_not_its_weeks() -> None:
    """A week's row names a day of the month ("Week of: 19 Oct"), not the month; the line
    after the table is said on its last row's day, after the weeks it sums."""
    october = (date(2026, 10, 1), date(2026, 10, 31))
    assert names_month_of("**October close:** 894,410 words delivered.", *october)
    assert not names_month_of("Week of: 19 Oct; Words delivered: 224,705.", *october)
    assert names_month_of("Comment · 1 Nov 2026, 11:05 October close: 96 sets", *october)
    text = (
        "# Numbers\n\n## October 2026\n\n| Week of | Words delivered |\n|---|---|\n| 5 Oct | "
        "218,805 |\n| 26 Oct | 219,770 |\n\n**October close:** 894,410 words delivered.\n"
    )
    dated = {c.text.split("\n")[-1]: c.date for c in _chunks("numbers.md", text)}
    assert dated["**October close:** 894,410 words delivered."] == date(2026, 10, 26)


def test_a_register_kept_as_a_table_answers_for_its_rows() -> None:
    """ "What does SD-4 say?" of a decision register's table: its row, said to be superseded
    by SD-9 with SD-9's row (before: not found, a table row being no item)."""
    register = (
        "## Style decisions\n\n| ID | Date | Decision | Status |\n|---|---|---|---|\n| SD-4 | 2 "
        "Mar 2026 | German UI addresses the user as Sie. | Superseded by SD-9 |\n| SD-9 | 15 Jul "
        "2026 | German UI switches to du. | Active |\n"
    )
    question = "What does SD-4 say?"
    item = find_item(question, [hit(register, "House style", "Style decisions")])
    assert asked(question) is not None and item is not None
    assert "German UI addresses the user as Sie" in item.text and "Date: 2 Mar 2026" in item.text
    assert item.superseded_by is not None and item.superseded_by.number == 9


def test_a_month_said_without_in_is_a_window() -> None:
    """ "site visit count for march?", "sept drawings issued total?" ask about those months
    (before: no window, so any month's figure answered)."""
    today = date(2026, 11, 20)
    march = resolve("site visit count for march?", today).window
    assert march is not None and (march.start, march.end) == (date(2026, 3, 1), date(2026, 3, 31))
    sept = resolve("sept drawings issued total?", today)
    assert sept.window is not None and sept.window.start == date(2026, 9, 1)
    assert sept.rest == "drawings issued total?"
    assert resolve("May I see the plan?", today).window is None


def test_hours_abbreviated_and_fee_earning_hours() -> None:
    """ "hrs" is hours; "fee-earning hrs" asks for hours, not an amount of money."""
    assert "hour" in words("Q4 to date: 3,144.25 fee-earning hrs")
    assert read_ask("fee-earning hrs last week?").kinds == ()
    assert read_ask("What is the fee for a site visit?").kinds == ("money",)
