"""Round 31 (issue 25): a week report's table of its days, a short line over the list it
labels, a count asked in the passive, a page that repeats a rate table's replaced row, and a
mail's first-person sentence said by its writer."""

from __future__ import annotations

from datetime import date

from knowledge_platform.dating import week_numbered
from knowledge_platform.serve.answers.asks import read_ask
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.conflicts import Statement, disagreement
from knowledge_platform.serve.answers.extractive import extractive_answer
from knowledge_platform.serve.answers.sentences import Sentence, said_during
from tests.answer_fixtures import hits, local_embedder
from tests.store_fixtures import chunk_file


def _dated(chunks, text: str) -> date | None:
    """The date of the chunk holding `text`."""
    return next(c.date for c in chunks if text in c.text)


SHIFT_REPORT = (
    "# Shift A report — 2026-W47 (Nov 16-20)\n\nLead: Marisa Coelho · posted Fri 11/20\n\n"
    "| Day | Units sewn | Rejects |\n|---|---:|---:|\n| Mon | 428 | 7 |\n| Tue | 417 | 9 |\n"
    "| Wed | 409 | 8 |\n| Thu | 446 | 6 |\n| Fri | 395 | 10 |\n"
    "| **Week** | **2,095** | **40** |\n\n"
    "## Notes\n- Thu - overlocker #3 down 25 min in the morning.\n"
)


def test_a_week_reports_table_of_its_days_dates_each_row_by_its_weekday() -> None:
    """ "| Thu | 446 | 6 |" in the week report of 16-20 November was part of one chunk dated
    the Monday: "How many units did shift A sew yesterday?" (the 19th) had no row of that
    day to answer from."""
    chunks = chunk_file("shifts/2026-W47-A.md", SHIFT_REPORT, date(2026, 11, 20), "event")
    assert _dated(chunks, "| Thu | 446 |") == date(2026, 11, 19)
    assert _dated(chunks, "| Mon | 428 |") == date(2026, 11, 16)
    assert _dated(chunks, "| Fri | 395 |") == date(2026, 11, 20)
    row = next(c.text for c in chunks if "| Thu | 446 |" in c.text)
    assert row.startswith("| Day | Units sewn | Rejects |") and "| Wed |" not in row
    # a week's schedule of days on a standing page stays one table
    rota = (
        "# Opening hours\n\n| Day | Open | Close |\n|---|---|---|\n| Mon | 8:00 | 18:00 |\n"
        "| Tue | 8:00 | 18:00 |\n"
    )
    kept = chunk_file("docs/hours.md", rota, date(2026, 3, 1), "standing")
    assert sum("| Mon | 8:00" in c.text and "| Tue | 8:00" in c.text for c in kept) == 1


def test_a_short_line_over_a_list_labels_each_of_its_items() -> None:
    """ "Numbers w/e 11/20" over "- Q4 to date (BQE): 3,144.25 fee-earning hrs" was an entry of
    its own, and the item a chunk of three words nobody's search found."""
    thread = (
        "# Weekly studio numbers\n\n**Comment — Joan Ferreira · 13 Nov 2026, 14:55**\n\n"
        "Week ending 13 Nov: fee-earning hours **431.5**. Q4 to date: 2,726 hrs.\n\n"
        "**Comment — Joan Ferreira · 20 Nov 2026, 15:30**\n\nNumbers w/e 11/20\n"
        "- Fee-earning hours: 418.25\n- Q4 to date (BQE): 3,144.25 fee-earning hrs\n\n"
        "Early post, I'm out at 4.\n"
    )
    chunks = chunk_file("tasks/weekly-numbers.md", thread, date(2026, 11, 20), "event")
    texts = [c.text for c in chunks]
    assert "Numbers w/e 11/20\n- Q4 to date (BQE): 3,144.25 fee-earning hrs" in texts
    assert _dated(chunks, "3,144.25") == date(2026, 11, 20)
    assert "Early post, I'm out at 4." in texts  # a sentence after the list is its own


def test_a_count_asked_in_the_passive_counts_what_its_verb_says() -> None:
    """ "How many tickets were opened across all clients last week?" counted tickets only, so
    the digest's "Client: **Total**; Opened: **137**" row (no word "tickets") did not fit, and
    the leavers runbook's "One Deskline ticket per leaver" was the answer."""
    assert "open" in read_ask("How many tickets were opened across all clients last week?").counted
    assert "sold" in read_ask("How many units were sold yesterday?").counted
    digest = (
        "# Service desk digest\n\nPriya's weekly roll-up.\n\n| Client | Opened | Closed |\n"
        "|---|---|---|\n| Pennine Freight | 35 | 38 |\n| Kirkstall Joinery | 6 | 5 |\n"
        "| **Total** | **137** | **141** |\n"
    )
    runbook = (
        "# Leaver offboarding\n\nUse this for every leaver. One Deskline ticket per leaver, "
        'category "Leaver", linked to the client\'s "Leavers" parent ticket.\n'
    )
    got = extractive_answer(
        "How many tickets were opened across all clients last week?",
        hits(
            *chunk_file("digests/wk46.md", digest, date(2026, 11, 13), "event"),
            *chunk_file("runbooks/leaver.md", runbook, None, "standing"),
        ),
        scope="internal",
        embedder=local_embedder(),
        during=(date(2026, 11, 9), date(2026, 11, 15)),
    )
    assert "137" in got.answer and "One Deskline ticket" not in got.answer, got.answer


def test_a_page_that_repeats_a_rate_tables_replaced_row_is_as_old_as_that_row() -> None:
    """The FAQ's undated "A routine hygiene appointment ... is $85" led the answer, ahead of
    the price list's "$95; Effective: 1 Jul 2026" row, which replaced its "$85; Effective: 5
    Jan 2026" row: the old price was given as the price."""
    prices = (
        "# Price list\n\n| Treatment | Price | Effective |\n|---|---|---|\n"
        "| Hygiene visit (30 min) | $85 | 5 Jan 2026 |\n"
        "| Hygiene visit (30 min) | $95 | 1 Jul 2026 |\n"
    )
    faq = (
        "# Website FAQ\n\n**How much does it cost to see the hygienist?** A routine hygiene "
        "appointment (scale and polish, 30 minutes) is $85.\n"
    )
    got = extractive_answer(
        "How much does a 30-minute hygiene visit cost?",
        hits(
            *chunk_file("website-faq.md", faq, None, "standing"),
            *chunk_file("price-list.md", prices, None, "standing"),
        ),
        scope="internal",
        embedder=local_embedder(),
    )
    assert got.answer.index("$95") < got.answer.index("$85"), got.answer
    faq_ref = next(c.number for c in got.citations if c.source_id == "website-faq.md")
    list_ref = next(c.number for c in got.citations if c.source_id == "price-list.md")
    assert f"(older; [{list_ref}] is newer) **How much" in got.answer or (
        f"(older; [{list_ref}] is newer) A routine" in got.answer
    ), (faq_ref, got.answer)


def test_a_mails_first_person_sentence_is_said_by_its_writer() -> None:
    """ "message me — I'm the Scribeway admin" in Owen's mail did not answer "Who administers
    Scribeway?": the sentence names no one, and a mail's writer was no speaker."""
    from knowledge_platform.ingest.chunking import mail_writer

    mail = (
        "# Moving to Scribeway\n\nFrom: Owen Tate\nTo: all-staff@\nSent: Fri 31 Jul 2026 16:45\n"
        "Subject: Lingodock → Scribeway this weekend\n\nHi everyone,\n\n"
        "Short version: **Lingodock is out, we use Scribeway now.**\n\nWhat you need to do:\n\n"
        "1. Look for an invite from Scribeway in your inbox. If your login doesn't work on "
        "Monday, message me — I'm the Scribeway admin and the only one who can reset accounts.\n"
    )
    assert mail_writer(mail) == "Owen Tate"
    assert mail_writer(mail + "\n> From: Ravi Sood\n> Sent: Thu\n") is None  # a thread
    chunks = chunk_file("announcements/2026-07-31-scribeway.md", mail, date(2026, 7, 31), "event")
    got = extractive_answer(
        "Who administers Scribeway?", hits(*chunks), scope="internal", embedder=local_embedder()
    )
    assert got.mode == "extractive" and "Owen Tate: " in got.answer, got.answer


def test_a_channel_exports_day_lines_date_the_messages_under_them() -> None:
    """ "#front-desk — Tue Nov 17" over the day's "[5:50 PM] Dana R.: EOD PWM: 79 checked in"
    was a line of text: every message of the week was dated its first day, so "How many
    patients were checked in at Portland yesterday?" had no message of that day."""
    export = (
        "#front-desk — Mon Nov 16\n[7:55 AM] Heather Q.: W46 totals: PWM 473 appts\n"
        "[5:58 PM] Dana R.: EOD PWM: 84 checked in, 3 no-shows\n\n"
        "#front-desk — Thu Nov 19\n[5:52 PM] Dana R.: EOD PWM: 82 checked in, 1 no-show\n"
    )
    chunks = chunk_file("slack/front-desk-2026-11-16_to_20.md", export, date(2026, 11, 16), "event")
    assert _dated(chunks, "82 checked in") == date(2026, 11, 19)
    assert _dated(chunks, "84 checked in") == date(2026, 11, 16)
    assert not any(c.text.startswith("#front-desk") for c in chunks)  # a heading, not a line


def test_a_log_entrys_week_by_number_and_a_struck_through_price() -> None:
    """ "W45 totals: PWM 452 appts" said on Monday 9 November was read as that week's
    figure: "How many appointments did Portland complete last week?" (9-15 November) led
    with it. And "Price: ~~$68~~ $74" stated no change, so the FAQ's "$68" stood as
    current beside it."""
    week = (
        "# Portland (Forest Ave) — weekly numbers\n\n"
        "| Wk | w/c | Appts | Surg |\n|---|---|---|---|\n"
        "| wk45 | 2 Nov | 452 | 41 |\n| wk46 | 9 Nov | 437 | 38 |\n"
    )
    chat = (
        "#front-desk — Mon Nov 9\n[7:58 AM] Heather Q.: W45 totals: PWM 452 appts / 41 surg\n"
        "[5:57 PM] Dana R.: EOD PWM: 85 checked in, 4 no-shows\n"
    )
    got = extractive_answer(
        "How many appointments did the Portland clinic complete last week?",
        hits(
            *chunk_file("slack/front-desk-2026-11-09_to_14.md", chat, date(2026, 11, 9), "event"),
            *chunk_file("numbers/portland-weekly-2026.md", week, None, "standing"),
        ),
        scope="internal",
        embedder=local_embedder(),
        during=(date(2026, 11, 9), date(2026, 11, 15)),
    )
    assert "437" in got.answer and (
        "452" not in got.answer or got.answer.index("437") < got.answer.index("452")
    ), got.answer
    # the "W45 totals" post, said on 9 November, reports on 2-8 November, not on the week
    # it was said in
    posted = chunk_file("slack/front-desk-2026-11-09_to_14.md", chat, date(2026, 11, 9), "event")
    w45 = next(c for c in posted if "W45 totals" in c.text)
    said = Sentence("Heather Q.: W45 totals: PWM 452 appts / 41 surg", 1, 0, 0, w45)
    assert said.date == date(2026, 11, 9)
    assert not said_during(said, (date(2026, 11, 9), date(2026, 11, 15)))
    assert said_during(said, (date(2026, 11, 2), date(2026, 11, 8)))
    assert week_numbered("Pick 212 lb, box week 28 packed", date(2026, 11, 19)) is None
    assert week_numbered("week 3 of the trial", date(2026, 11, 19)) is None
    row = "Item: Wellness exam; Price: ~~$68~~ $74; As of: 09/01/2026."
    change = change_in(row)
    assert [v.text for v in change.old] == ["$68"] and "$74" in [v.text for v in change.new]


def test_a_roast_logs_batch_ids_date_its_rows() -> None:
    """ "| R-1119-04 | Guji Uraga | ... | 14.1% |" on the week's roast log was dated with the
    whole table: "What was the roast loss on the Guji Uraga batch yesterday?" had no row of
    the 19th to answer from."""
    log = (
        "# Roast log — week of R-1116\n\nBatch id = R-MMDD-NN.\n\n"
        "| Batch | Coffee | In | Out | Loss |\n|---|---|---|---|---|\n"
        "| R-1117-06 | Guji Uraga | 30.0 | 25.9 | 13.7% |\n"
        "| R-1119-04 | Guji Uraga | 30.0 | 25.8 | 14.1% |\n"
    )
    chunks = chunk_file("production/roast-log-2026-W47.md", log, date(2026, 11, 20), "event")
    assert _dated(chunks, "| R-1119-04 |") == date(2026, 11, 19)
    assert _dated(chunks, "| R-1117-06 |") == date(2026, 11, 17)


def test_a_list_item_fits_by_the_line_that_leads_it() -> None:
    """ "From what date does the $63.00 Nightjar price apply?" of "What changes from 1
    September:" over "- **Nightjar** espresso, 5 lb: $58.50 → **$63.00**": the item names no
    date, so the answer was "Not found"."""
    mail = (
        "# September pricing\n\nOur wholesale prices change from 1 September.\n\n"
        "What changes from 1 September:\n\n- **Nightjar** espresso, 5 lb: $58.50 → **$63.00**\n"
        "- **Lakewalk** house blend, 5 lb: $52.00 → **$55.50**\n"
    )
    chunks = chunk_file("email/2026-08-03-september-pricing.md", mail, date(2026, 8, 3), "event")
    got = extractive_answer(
        "From what date does the $63.00 Nightjar price apply?",
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
    )
    assert "What changes from 1 September: **Nightjar**" in got.answer, got.answer


def test_a_budget_is_answered_only_where_a_budget_is_named() -> None:
    """ "What is the budget for the staff holiday party?" was answered with the party memo's
    "Secret Santa is optional, $25 max." — an amount, but no budget."""
    memo = (
        "# Holiday party!\n\nFriday 12/11 at The Chart Room, 7 PM. Partners welcome. RSVP on "
        "the sheet by Friday 11/27. Secret Santa is optional, $25 max.\n"
    )
    chunks = chunk_file("memos/2026-11-03-holiday-party.md", memo, date(2026, 11, 3), "event")
    got = extractive_answer(
        "What is the budget for the staff holiday party?",
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
    )
    assert got.mode == "not_found", got.answer
    budget = "# Events\n\nThe holiday party budget is $3,000 (The Chart Room, food and drinks).\n"
    got = extractive_answer(
        "What is the budget for the staff holiday party?",
        hits(*chunk_file("events.md", budget, date(2026, 10, 1), "standing"), *chunks),
        scope="internal",
        embedder=local_embedder(),
    )
    assert "$3,000" in got.answer, got.answer


def test_two_look_alike_pages_are_no_conflict_for_a_question_naming_one() -> None:
    """ "falmouth appt count the week before last" quoted Portland's "Appts: 452" row beside
    Falmouth's "Appts: 301" as two sources that disagree: two clinics' weekly tables."""
    fal = Statement(
        "Wk: wk45; w/c: 2 Nov; Appts: 301; Surg: 31.",
        "Falmouth (Route 1) — weekly appts + surgeries 2026",
        "Falmouth (Route 1) — weekly appts + surgeries 2026",
    )
    pwm = Statement(
        "Wk: wk45; w/c: 2 Nov; Appts: 452; Surg: 41.",
        "Portland (Forest Ave) — weekly appointments & surgeries, 2026",
        "Portland (Forest Ave) — weekly appointments & surgeries, 2026",
    )
    assert disagreement("falmouth appt count the week before last", fal, pwm) is None
    # two pages of other kinds still disagree: the on-call page and the contacts page
    oncall = Statement("Out-of-hours escalations go to Nina Park.", "On-call", "On-call")
    contacts = Statement("Out-of-hours escalations go to Theo Lind.", "Contacts", "Contacts")
    assert disagreement("Who should I call at night?", oncall, contacts) is not None


def test_a_sentence_that_says_a_day_is_gone_is_led_by_it() -> None:
    """ "So: no more Thursday 12:30 meetings after this week." led the answer to "On which
    day is the weekly all-staff meeting held?" with nothing to say Thursday is the old day."""
    memo = (
        "# From Heather — staff meeting is moving\n\nPosted 3/27\n\nThe Thursday lunch slot "
        "keeps getting eaten by surgeries. So: no more Thursday 12:30 meetings after this "
        "week.\n\n**Starting Tuesday, April 7, the all-staff meeting moves to Tuesdays at 7:45 "
        "AM**, before doors open.\n"
    )
    chunks = chunk_file("memos/2026-03-27-staff-meeting.md", memo, date(2026, 3, 27), "event")
    got = extractive_answer(
        "On which day is the weekly all-staff meeting held?",
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
    )
    assert "Tuesday" in got.answer, got.answer
    assert "(no longer Thursday 12:30) So: no more Thursday" in got.answer, got.answer


def test_a_sentence_about_a_look_alike_of_the_named_thing_is_weighed_down() -> None:
    """ "How many pupils take part in the Hollins Road Primary school-garden programme?" was
    answered "**Pupils:** 28" from Hollins Park Primary's page, retrieved first."""
    park = "# Hollins Park Primary — Seed to Supper\n\n- **Class:** Grade 4\n- **Pupils:** 28\n"
    road = "# Hollins Road Primary — Seed to Plate\n\n- **Class:** Grade 3\n- **Pupils:** 24\n"
    got = extractive_answer(
        "How many pupils take part in the Hollins Road Primary school-garden programme?",
        hits(
            *chunk_file("school-gardens/hollins-park-primary.md", park, date(2026, 9, 9)),
            *chunk_file("school-gardens/hollins-road-primary.md", road, date(2026, 9, 14)),
        ),
        scope="internal",
        embedder=local_embedder(),
    )
    assert "24" in got.answer and "28" not in got.answer.split("[1]")[0], got.answer
