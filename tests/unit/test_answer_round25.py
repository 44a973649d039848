"""Round 25 (issue 25): a chat message or log line stamped with its time is a sentence of its
own, whatever its punctuation; abbreviations and everyday synonyms of ops and freight writing
are one word to a question."""

from __future__ import annotations

from knowledge_platform.serve.answers.glossary import words
from knowledge_platform.serve.answers.relevance import covered
from knowledge_platform.serve.answers.sentences import split_sentences

DISPATCH = """## Monday 2 November

[Mon 09:40] Marek: Tinicum won't be staying. Ironside keeps the Brightmere FTLs
[Mon 10:05] Marek: and we have a new one instead: Catasauqua Express, box trucks
[Mon 14:30] Bogdan: Lehigh St in is huge today, 118 pallets
"""


def test_a_stamped_chat_line_is_a_sentence_of_its_own() -> None:
    """A message without a full stop ran on into the next one ("... Brightmere FTLs [Mon
    10:05] Marek: and we have a new one"): the new carrier's message was never a sentence."""
    got = split_sentences(DISPATCH)
    assert "[Mon 10:05] Marek: and we have a new one instead: Catasauqua Express, box trucks" in (
        got
    )
    assert "[Mon 14:30] Bogdan: Lehigh St in is huge today, 118 pallets" in got
    assert "Ironside keeps the Brightmere FTLs" in got  # a sentence inside a message still ends


def test_a_line_opened_by_its_time_is_a_sentence_of_its_own() -> None:
    log = "09:59 — Bastiaan whiteboarding a nurture track\n10:26 — Ysmay drafting the report"
    assert split_sentences(log) == [
        "09:59 — Bastiaan whiteboarding a nurture track",
        "10:26 — Ysmay drafting the report",
    ]
    # a time inside a line is no stamp
    assert split_sentences("The call moved to\n10:30 on Tuesdays") == [
        "The call moved to 10:30 on Tuesdays"
    ]


def test_ack_is_acknowledge_and_a_trial_is_a_test() -> None:
    rule = words("A P1 page must be acknowledged within 15 minutes.")
    assert covered(list(words("ack")), rule)
    assert covered(list(words("meadow test")), words("Linden Court meadow trial write-up"))
    assert covered(list(words("reefer")), words("chilled trucking"))


HEADER = "| Lane | Equipment | Rate | Effective from |\n|---|---|---|---|\n"


def _row(cells: str, n: int, day, text: str):
    from tests.unit.test_answer_round23 import _scored

    return _scored(
        text,
        n,
        day,
        "event",
        0.75,
        0.88,
        chunk_text=HEADER + cells,
        source_id="gantry/carriers/ironside-haulage.md",
        title="Ironside Haulage — rate sheet",
    )


def test_a_later_row_of_a_rate_sheet_makes_the_lanes_earlier_row_old() -> None:
    """A rate sheet adds a row with its "Effective from" day per change: before, the
    answer quoted the $685 row beside the $740 one, neither marked, as if both held."""
    from datetime import date

    from knowledge_platform.serve.answers.extractive import made_old

    old = _row(
        "| Port Newark → Lehigh St | 40' container | $685 | 1 Jan 2026 |",
        1,
        date(2026, 1, 1),
        "Lane: Port Newark → Lehigh St; Equipment: 40' container; Rate: $685; "
        "Effective from: 1 Jan 2026.",
    )
    new = _row(
        "| Port Newark → Lehigh St | 40' container | $740 | 1 Jun 2026 |",
        2,
        date(2026, 6, 1),
        "Lane: Port Newark → Lehigh St; Equipment: 40' container; Rate: $740; "
        "Effective from: 1 Jun 2026.",
    )
    other = _row(
        "| Port of Baltimore → Lehigh St | 40' container | $1,120 | 1 Jun 2026 |",
        3,
        date(2026, 6, 1),
        "Lane: Port of Baltimore → Lehigh St; Equipment: 40' container; Rate: $1,120; "
        "Effective from: 1 Jun 2026.",
    )
    assert made_old([old, new]) == {id(old): new}
    assert made_old([old, other]) == {}  # another lane's later row says nothing of this one


def test_a_correction_after_an_apology_and_a_figures_full_stop_is_a_change() -> None:
    """ "Correction to yesterday's mileage post — sorry! It's 70 cents a mile ($0.70), not
    72": before, the "!" and the full stop of "$0.70" hid the correction (its passage was not
    marked a statement of change, and its sentence named no old value)."""
    from knowledge_platform.dating import CHANGE, marks
    from knowledge_platform.serve.answers.changes import change_in

    post = (
        "Correction to yesterday's mileage post — sorry! It's **70 cents a mile ($0.70), not "
        "72**. I read the wrong line of Maggie's note."
    )
    assert marks(post) == [CHANGE]
    said = change_in("It's **70 cents a mile ($0.70), not 72**.")
    assert said.says_change and [v.norm for v in said.old_in("goes up to 72 cents a mile")]
    assert [v.text for v in change_in("It's Tuesday, not Monday.").old] == ["Monday"]
    # what something is not, in words, is no correction
    assert marks("It's a guideline, not a rule.") == []
    assert not change_in("It's a guideline, not a rule.").says_change


def _chunk(path: str, text: str, date=None, kind="standing"):
    from tests.store_fixtures import chunk_file

    return chunk_file(path, text, date, kind)


def test_a_message_stamped_with_a_spelled_or_figured_day_is_dated_by_it() -> None:
    """ "Nov 4, 2026 3:15 PM — Aisha: ..." and "14/10 08:55 - Hector: ..." open a chat
    export's messages: before, every message was dated the file's own first day."""
    from datetime import date

    channel = (
        "# #team — November 2026 (export)\n\n"
        "Nov 2, 2026 8:05 AM — Theo: October wrap: 176 bbl brewed.\n"
        "Nov 4, 2026 3:15 PM — Aisha: New account: Birch & Barley in Colchester\n"
        "  ↳ Rosa (3:20 PM): nice\n"
        "Nov 19, 2026 7:05 AM — Theo: Ember Lane brewed today\n"
    )
    chunks = _chunk("team/2026-11.md", channel)
    day_of = {said: c.date for c in chunks for said in ("wrap", "Birch", "Ember") if said in c.text}
    assert day_of == {
        "wrap": date(2026, 11, 2),
        "Birch": date(2026, 11, 4),
        "Ember": date(2026, 11, 19),
    }
    chat = (
        "Chat export — PMs — 12/10/2026 to 25/10/2026\n\n"
        "12/10 07:48 - Hector: Morning.\n14/10 08:55 - Glen: huddle in 5\n"
        "15/10 09:40 - Priya: car 2 leveling again\n"
    )
    dated = _chunk("chat/pm-group_2026-10-12.md", chat, date(2026, 10, 12), "event")
    assert {c.date for c in dated if "Priya" in c.text} == {date(2026, 10, 15)}


def test_a_records_header_date_in_figures_with_a_two_figure_year_dates_it() -> None:
    """ "Brew date: Thu 11/19/26" in a batch log's header block: before, the log was an
    undated standing text."""
    from datetime import date

    from knowledge_platform.dating import document_time, header_date, written_date

    log = "Batch: B-2026-115\nBrew date: Thu 11/19/26\nStyle: Smoked Porter\n\nMash in 7:05."
    assert header_date(log) == (date(2026, 11, 19), False)
    assert document_time({}, "batches/B-2026-115.md", None, body=log) == (
        date(2026, 11, 19),
        "event",
    )
    assert written_date("Sat 7/4/26") == date(2026, 7, 4)  # the weekday says month first
    assert written_date("3/3/26") == date(2026, 3, 3)
    assert header_date("# Task\nDue date: 12/01/26\n")[0] is None  # a day ahead: not when


def test_an_undated_pages_week_column_dates_its_rows_in_weeks_gone_by() -> None:
    """ "| w/e 15 Nov | 1,486 | ..." under a "Week" header on a page without a date: before,
    no row had a day, so "last week" found none of them."""
    from datetime import date

    from knowledge_platform.dating import past_day

    table = (
        "# Taproom weekly sales\n\n| Week | Pints |\n|---|---|\n"
        "| w/e 8 Nov | 1,391 |\n| w/e 15 Nov | 1,486 |\n"
    )
    days = {c.date for c in _chunk("taproom/weekly-sales.md", table)}
    assert {d.month for d in days if d} == {11} and len({d for d in days if d}) == 2
    assert past_day("w/e 15 Nov", date(2026, 11, 20)) == date(2026, 11, 15)
    assert past_day("w/e 29 Nov", date(2026, 11, 20)) == date(2025, 11, 29)


def test_a_pages_review_line_is_read_after_a_separator_and_in_the_pages_own_order() -> None:
    """ "_... · Updated 9 Sep 2026_" (its closing underscore read as part of the year) and
    "Leasing team · Reviewed: Aug 12, 2026 — Brooke. Applies to ..." (a long line) dated no
    page before; "Last updated 2/9/26" on a page that writes "1/22/26" is 9 February."""
    from datetime import date

    from knowledge_platform.dating import figures_order, stated_review

    faq = "# Resident FAQ\n\n_Birchgate · page owner: Maribel · Updated 9 Sep 2026_\n\nHi."
    assert stated_review(faq) == date(2026, 9, 9)
    long = "Leasing team · Reviewed: Aug 12, 2026 — Brooke Tanaka. " + "Applies to all. " * 12
    assert stated_review(f"# Screening\n\n{long}\n") == date(2026, 8, 12)
    notes = "# Ridgeline\n\n_Last updated 2/9/26 (Kevin)_\n\n- 1/22/26: rep changed\n"
    assert figures_order(notes) is False and stated_review(notes) == date(2026, 2, 9)
    # a sentence of a log that mentions a review is no footer
    said = "We reviewed the budget on 3 May 2026 and " + "it went on and on, " * 10 + "fine."
    assert stated_review(f"# Log\n\n{said}\n") is None


def test_an_undated_sheets_paragraphs_opened_by_their_day_are_entries_of_it() -> None:
    """A price sheet kept "newest on top", each change a paragraph "Updated 12 Aug: ...":
    before, the sheet was one undated standing text and its oldest prices as current as its
    newest."""
    from datetime import UTC, datetime

    sheet = (
        "# Brightfield Maltings\n\nNewest on top. Prices per lb delivered.\n\n"
        "Updated 12 Aug: From 1 Sept orders, Pilsner goes up to $0.98/lb.\n\n"
        "Updated 3 Apr: New base malt prices — Pilsner $0.92/lb.\n\n"
        "Updated 6 Jan: 2026 pricing. Pilsner $0.89/lb.\n"
    )
    days = {c.text[8:14]: c.date for c in _chunk("suppliers/brightfield.md", sheet)}
    today = datetime.now(UTC).date()
    assert all(d is not None and d <= today for k, d in days.items() if k[0].isdigit())
    assert days["12 Aug"] > days["3 Apr:"] > days["6 Jan:"]


def test_another_days_log_figure_is_no_conflict_for_a_question_about_one_day() -> None:
    """ "How many inspections ... on 16 October?": the day's "28 inspections completed" and a
    June correction of another week's field days are two periods' figures (before: drawn as
    sources that disagree, 64 against 59.5)."""
    from dataclasses import replace
    from datetime import date

    from knowledge_platform.serve.answers.disagreements import find_conflicts
    from tests.unit.test_answer_round23 import _scored

    day = _scored(
        "Numbers: 64 field days billed, 28 inspections completed, 3 near-misses.",
        1,
        date(2026, 10, 16),
        "event",
        0.67,
        0.9,
        source_id="pylon/memory/2026-10-16.md",
    )
    june = _scored(
        "Correction to last week's email: field days billed should have read 59.5, not 95.5.",
        2,
        date(2026, 6, 12),
        "event",
        0.33,
        0.5,
        source_id="pylon/memory/2026-06-12.md",
    )
    question = "How many field days did Wystan report as billed on 16 October?"
    assert find_conflicts(question, [replace(day, during=True)], [june]) == []
    # a standing page's figure beside the window's log line still is the other side
    page = _scored(
        "Field days billed: 59.5 a month on average.",
        3,
        date(2026, 3, 1),
        "standing",
        0.67,
        0.8,
        source_id="pylon/handbook.md",
    )
    assert find_conflicts(question, [replace(day, during=True)], [page]) != []


def test_the_old_value_said_again_beside_the_change_that_replaced_it_is_left_out() -> None:
    """ "Going forward the PM huddle is Tuesdays at 8:30, not Mondays 9:00." led the answer,
    then its message's "Monday mornings are eaten by weekend WOs" was quoted unmarked."""
    from datetime import date

    from knowledge_platform.serve.answers.extractive import _stale
    from tests.unit.test_answer_round23 import _scored

    text = (
        "Glen W: Going forward the PM huddle is Tuesdays at 8:30, not Mondays 9:00. "
        "Monday mornings are eaten by weekend WOs and nobody's prepped."
    )

    def said(sentence: str):
        return _scored(
            sentence,
            1,
            date(2026, 5, 27),
            "event",
            0.7,
            0.9,
            chunk_text=text,
            source_id="birch/chat/pm-group_2026-05-25.md",
        )

    lead = said("Glen W: Going forward the PM huddle is Tuesdays at 8:30, not Mondays 9:00.")
    again = said("Monday mornings are eaten by weekend WOs and nobody's prepped.")
    assert _stale("On what day is the weekly PM huddle held?", again, lead, [])
    assert not _stale("What day was the PM huddle before it moved?", again, lead, [])
