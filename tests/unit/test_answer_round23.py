"""Round 23 (issue 25): a file is dated by what its header block, its name's month, a mail's
"Date:" lines or a page's numeric review date say; a count is of the verb the question asks
about; a newer page naming fewer of the question's words is no rival of the best sentence."""

from __future__ import annotations

from datetime import date

import pytest

from knowledge_platform.dating import document_time, heading_span, section_time, stated_review
from knowledge_platform.ingest.chunking import Chunker
from knowledge_platform.ingest.tokens import WordPieceCounter
from knowledge_platform.models import Document
from knowledge_platform.serve.answers.asks import fits, read_ask
from knowledge_platform.serve.answers.glossary import synonyms
from knowledge_platform.serve.answers.sentences import split_sentences

COUNTER = WordPieceCounter()

MAIL = """From: Beth Lindqvist <beth@deltamere.com>
To: Rutger Haas <rutger@deltamere.com>
Date: Wed, 20 May 2026 09:12 -0500
Subject: RE: Rate review 2026

VendorDesk rate tables are updated for the new rate.

> From: Rutger Haas <rutger@deltamere.com>
> To: freelancers-all@deltamere.com
> Date: Wed, 13 May 2026 16:40 -0500
> Subject: Rate review 2026
>
> From 1 June our standard rate goes up from $0.12 to $0.14 per word.
"""


def test_a_records_header_block_dates_it_and_its_status_keeps_it_standing() -> None:
    """ "Date: 2026-04-29" under a decision record's title (no front matter): before, the
    record was undated."""
    record = (
        "# OPS-011 — Move paging to Ringfold\n\nStatus: Accepted\nDate: 2026-04-29\n\n## Context\n"
    )
    assert document_time({}, "OPS-011-paging.md", "OPS-011", body=record) == (
        date(2026, 4, 29),
        "standing",
    )
    notice = "# PN-015\n\nIssued: 28 Jul 2026 (Tomasz)\nEffective: 1 Aug 2026\n"
    assert document_time({}, "PN-015.md", "PN-015", body=notice)[0] == date(2026, 7, 28)
    # an effective date alone still dates it; a quoted message's is another message's
    assert document_time({}, "PN.md", None, body="Effective: 1 Aug 2026\n")[0] == date(2026, 8, 1)
    assert document_time({}, "n.md", None, body="> Date: 3 May 2026\n") == (None, "standing")


def test_a_file_named_by_its_month_is_dated_by_it() -> None:
    assert document_time({}, "foundry-hill-2026-10.md", "Foundry Hill — October report") == (
        date(2026, 10, 1),
        "event",
    )
    assert document_time({}, "2026-05-rate-review.md", None)[0] == date(2026, 5, 1)
    # a mail thread's own "Date:" is more precise than its name's month
    assert document_time({}, "2026-05-rate-review.md", None, body=MAIL)[0] == date(2026, 5, 20)
    # a month's file heads its weeks up to the month's end; other logs six days on
    assert heading_span("dashboard/2026-10.md", date(2026, 10, 1)) == 30
    assert heading_span("dashboard/2026-02.md", date(2026, 2, 1)) == 27
    assert heading_span("memory/2026-10-05.md", date(2026, 10, 5)) == 6
    assert section_time(["Week of Mon 19 Oct 2026"], date(2026, 10, 1), "event", 30) == (
        date(2026, 10, 19),
        "event",
    )
    assert section_time(["Week of Mon 19 Oct 2026"], date(2026, 10, 1), "event")[0] == date(
        2026, 10, 1
    )


def test_a_weeks_range_heading_is_dated_by_its_first_day() -> None:
    """ "On-call handover - 2026-W46 (9-16 Nov)" (an en dash in the file) was dated the 16th,
    outside last week."""
    heading = ["On-call handover \u2014 2026-W46 (9\u201316 Nov)"]
    assert section_time(heading, date(2026, 11, 13), "event") == (date(2026, 11, 9), "event")


def test_a_review_date_in_figures_at_the_end_of_a_long_line_counts() -> None:
    page = (
        "# Working with us\n\n_Page owner: Sam Achterberg. Page last reviewed 09/22/2026. Sent "
        "to every new client with the welcome pack; also on the website under How we work._\n"
    )
    assert stated_review(page) == date(2026, 9, 22)
    # a long line's "reviewed" without "last" is a log's sentence, not a footer
    log = "# Notes\n\n" + "We reviewed the budget on 3 May 2026 with the client. " * 4 + "\n"
    assert stated_review(log) is None


def test_a_mail_threads_messages_are_dated_by_their_own_date_lines() -> None:
    chunks = Chunker(COUNTER, 256).chunk(
        Document(
            source="memory_files",
            source_id="mail/2026-05-rate-review.md",
            scope="internal",
            title="Rate review",
            kind="memory",
            text=MAIL,
            date=date(2026, 5, 20),
            time_kind="event",
        )
    )
    dated = {c.date for c in chunks if "0.14" in c.text}
    assert dated == {date(2026, 5, 13)}  # the quoted message, said a week before the reply
    assert {c.date for c in chunks if "VendorDesk" in c.text} == {date(2026, 5, 20)}


def test_a_mails_quote_marks_and_header_lines_are_not_sentences_text() -> None:
    said = split_sentences(MAIL)
    assert "From 1 June our standard rate goes up from $0.12 to $0.14 per word." in said
    assert "Date: Wed, 13 May 2026 16:40 -0500" in said  # a paragraph of its own
    assert not any(s.startswith(">") or " > " in s for s in said)


def test_a_count_is_of_the_verb_the_question_asks_about() -> None:
    """ "Thu 19 Nov — opened 34, closed 29" counts what the desk opened (before: no tickets
    named, so no count, and the question was refused)."""
    ask = read_ask("How many tickets did the service desk open yesterday?")
    assert ask.counted == frozenset({"ticket", "open"})
    assert fits("deskbot: Thu 19 Nov — opened 34, closed 29, backlog 72", ask)
    # the words after a place are not the verb
    assert "park" not in read_ask("How many bulbs did the crew plant at Mill Park?").counted


def test_a_surcharge_is_a_share_whatever_money_words_follow() -> None:
    ask = read_ask("What surcharge do we charge clients for rush jobs?")
    assert "percent" in ask.kinds
    assert fits("The rush surcharge is **30%** of the job price.", ask)


def test_a_run_of_three_words_searches_by_its_initials_too() -> None:
    assert "tms" in synonyms("Which translation management system do we use?").split()
    assert "wu" not in synonyms("Which translation management system do we use?").split()


def _scored(
    text: str,
    n: int,
    when: date,
    kind: str,
    lexical: float,
    score: float,
    chunk_text: str = "",
    **kw,
):
    """The sentence `text` of a chunk (of `chunk_text`, default `text` alone), scored."""
    from knowledge_platform.models import Hit
    from knowledge_platform.serve.answers.relevance import Scored
    from knowledge_platform.serve.answers.sentences import sentences_of
    from knowledge_platform.serve.answers.sources import Sources
    from tests.store_fixtures import make_chunk

    chunk = make_chunk(n=n, text=chunk_text or text, date=when, time_kind=kind, **kw)
    hit = Hit(chunk=chunk, score=1.0)
    said = next(s for s in sentences_of(Sources([hit]), [hit], n) if s.text == text)
    return Scored(said, score, lexical, 0.5)


def test_a_newer_standing_page_naming_fewer_of_the_questions_words_is_no_rival() -> None:
    """For how quickly a P1 page is acknowledged, the newer runbook's "Any P1, and any P2
    longer than two hours, gets an incident report" no longer leads the answer above the
    policy's "P1 pages: acknowledge within 10 minutes" (before: it did, the newest); a newer
    log line still does, though it names fewer ("It's 70 cents a mile, not 72")."""
    from knowledge_platform.serve.answers.extractive import newest_first_pick

    question = "How quickly must the on-call engineer acknowledge a P1 page?"
    best = _scored(
        "P1 pages: acknowledge within 10 minutes, be hands-on-keyboard within 30 minutes.",
        1,
        date(2026, 2, 11),
        "standing",
        0.8,
        0.94,
        title="On-call policy",
        headers=["On-call policy"],
    )
    runbook = _scored(
        "Any P1, and any P2 longer than two hours, gets an incident report in `incidents/`.",
        2,
        date(2026, 3, 2),
        "standing",
        0.6,
        0.73,
        title="On-call escalation runbook",
        headers=["On-call escalation runbook"],
    )
    assert newest_first_pick(question, [best], [best, runbook], 0.3)[0] is best
    logged = _scored(
        "Correction: P1 pages are acknowledged within 15 minutes now.",
        3,
        date(2026, 3, 2),
        "event",
        0.6,
        0.73,
        title="On-call escalation runbook",
        headers=["On-call escalation runbook"],
    )
    assert newest_first_pick(question, [best], [best, logged], 0.3)[0] is logged


def test_a_value_in_bold_is_the_one_a_move_names_old() -> None:
    from knowledge_platform.serve.answers.changes import change_in

    moved = change_in("On-call paging moves from Klaxo to Ringfold.")
    assert [v.norm for v in moved.old_in("**Klaxo** — paging for on-call.")] == ["klaxo"]


def test_a_question_for_what_a_record_decides_leads_with_its_decision() -> None:
    """ "What does OPS-011 decide?" quotes the decision section's first sentence first (before:
    whichever of its sentences scored best, "Escalation rules are copied unchanged")."""
    from knowledge_platform.serve.answers.extractive import focus_pick

    decision = (
        "On-call paging moves from Klaxo to Ringfold. "
        "Escalation rules are copied unchanged (primary to secondary)."
    )
    record = dict(
        source_id="decisions/OPS-011.md",
        title="OPS-011",
        headers=["OPS-011", "Decision"],
        chunk_text=decision,
    )
    when = date(2026, 4, 29)
    first = _scored(decision.split(". ")[0] + ".", 1, when, "standing", 0.3, 0.5, **record)
    other = _scored(decision.split(". ")[1], 1, when, "standing", 0.3, 0.7, **record)
    picked = focus_pick("What does OPS-011 decide?", [other, first])
    assert picked[0].sentence.text == first.sentence.text


def test_the_name_of_a_role_asks_for_a_person_and_paying_for_an_amount() -> None:
    """ "What is the name of the owner of Shelburne Bay Marine?" asked for no kind of value
    (so any sentence about the marina answered it), "what are we paying for ringfold?" either
    ("Their new pricing also charges for secondary users" answered it)."""
    assert read_ask("What is the name of the owner of Shelburne Bay Marine?").kinds == ("person",)
    assert read_ask("What were the names of the auditors at the audit?").kinds == ("person",)
    ask = read_ask("what are we paying for ringfold?")
    assert ask.kinds == ("money",)
    assert not fits("Their new pricing also charges for secondary users.", ask)


def test_a_log_line_said_from_today_is_dated_by_its_day_for_a_when_question() -> None:
    """ "When did we switch over to Linqo?": the mail of 6 July saying "it is read-only from
    today and gets switched off on 31 July" is quoted with its day (before: without, as the
    sentence holds a date, 31 July, which is not when it was done)."""
    from knowledge_platform.embeddings.deterministic import HashEmbedder
    from knowledge_platform.serve.answers.relevance import score_sentences

    said = _scored(
        "Verbatrix is out: it is read-only from today and gets switched off on 31 July.",
        1,
        date(2026, 7, 6),
        "event",
        0.5,
        0.5,
    ).sentence
    (scored,) = score_sentences("When did we switch over to Linqo?", [said], HashEmbedder())
    assert scored.on == date(2026, 7, 6)


def test_a_double_barrelled_name_is_one_and_a_claim_drops_an_aside_without_its_value() -> None:
    """The brief's "Client contact: Delphine Okonkwo-Reyes, director of audience (Amos
    Thackeray left the museum in May ...)" against the client list's Amos Thackeray: the
    claim says Delphine Okonkwo-Reyes (before: "Delphine Okonkwo"), and its text no longer
    names the one she took over from, so it is not read as holding both values."""
    from knowledge_platform.serve.answers.contract import Citation
    from knowledge_platform.serve.answers.disagreements import claims
    from knowledge_platform.serve.answers.values import values

    said = (
        "Client contact: Delphine Okonkwo-Reyes, director of audience (Amos Thackeray left "
        "the museum in May; Delphine has the project now)."
    )
    assert "Delphine Okonkwo-Reyes" in [v.text for v in values(said)]
    cited = [
        Citation(
            number=1,
            doc_id="d",
            source_id="s",
            title="Brief",
            source="memory_files",
            scope="internal",
            kind="memory",
        )
    ]
    (claim,) = claims([(1, "Delphine Okonkwo-Reyes", said)], cited)
    assert claim.text == "Client contact: Delphine Okonkwo-Reyes, director of audience."
    (kept,) = claims([(1, "Amos Thackeray", said)], cited)
    assert "Amos Thackeray left" in kept.text  # an aside holding the value stays


def test_a_rows_cells_of_other_months_are_left_out_of_a_months_answer() -> None:
    """ "foundry hill hours used last month?" (October) quoted "Engineering hours used;
    October 2026: 34.5; September 2026: 26.75." whole: September's figure as if it held."""
    from knowledge_platform.serve.answers.extractive import in_window_cells

    row = "Engineering hours used; October 2026: 34.5; September 2026: 26.75."
    october = (date(2026, 10, 1), date(2026, 10, 31))
    assert in_window_cells(row, *october) == "Engineering hours used; October 2026: 34.5."
    assert in_window_cells(row, date(2026, 11, 9), date(2026, 11, 15)) == row  # not a month
    assert in_window_cells("Client: Foundry Hill; Plan: Plus; Hours: 32.", *october).endswith(
        "Hours: 32."
    )


def test_what_a_record_sets_out_is_asked_of_its_sections() -> None:
    from knowledge_platform.serve.answers.extractive import asks_content

    assert asks_content("What did PN-007 set out?")
    assert asks_content("What does the policy lay down?")
    assert not asks_content("When was PN-007 set?")


def test_a_label_line_with_a_stop_in_its_label_is_a_line_of_its_own() -> None:
    said = split_sentences("Notice no.: PN-007\nIssued: 27 Jan 2026 (Tomasz)\nStatus: Withdrawn")
    assert said[0] == "Notice no.: PN-007"


def test_a_day_the_question_names_is_when_not_what() -> None:
    """ "what broke on may 12?" was about "12" and "broke": the day's entries, which do not
    repeat the day, had half its subject missing."""
    assert read_ask("what broke on may 12?").subject == frozenset({"broke"})
    assert read_ask("What did we damage on 14 May?").subject == frozenset({"damag"})


def test_a_figure_the_question_believes_still_holds_is_not_required() -> None:
    """ "is ops review still monday at 10?" halved every sentence without a 10 (before: the
    change to "Wednesdays 09:30" scored half and the question was refused)."""
    from knowledge_platform.embeddings.deterministic import HashEmbedder
    from knowledge_platform.serve.answers.relevance import score_sentences

    said = _scored(
        "ivo: ops review = Wednesday 09:30 from 8 April, not Monday.",
        1,
        date(2026, 3, 27),
        "event",
        0.5,
        0.5,
    ).sentence
    embedder = HashEmbedder()
    (still,) = score_sentences("is ops review still monday at 10?", [said], embedder)
    (plain,) = score_sentences("is ops review monday at 10?", [said], embedder)
    assert still.score > 1.5 * plain.score


def test_a_log_entrys_last_week_is_the_week_before_it_was_said() -> None:
    """Monday 9 November's minutes under "Numbers, last week (11/2-11/8)" report on 2-8
    November: for "last week" asked on 20 November (9-15 November) they are of another week
    (before: said in the window, they answered it with the week before's 124,180 words)."""
    from knowledge_platform.dating import week_before
    from knowledge_platform.embeddings.deterministic import HashEmbedder
    from knowledge_platform.serve.answers.relevance import KIND_PENALTY, score_sentences
    from knowledge_platform.serve.answers.sentences import reported_week, said_during

    assert week_before("Last week: 136,920 words.", date(2026, 11, 16)) == (
        date(2026, 11, 9),
        date(2026, 11, 15),
    )
    assert week_before("136,920 words.", date(2026, 11, 16)) is None
    minutes = _scored(
        "124,180 words, 34 jobs delivered.",
        1,
        date(2026, 11, 9),
        "event",
        1.0,
        0.9,
        headers=["Monday team meeting", "Numbers, last week (11/2-11/8)"],
    ).sentence
    last_week = (date(2026, 11, 9), date(2026, 11, 15))
    assert not said_during(minutes, last_week)
    assert reported_week(minutes) == (date(2026, 11, 2), date(2026, 11, 8))
    # and it scores as what it is, another week's figure, in last week's window
    question = "How many words did we translate last week?"
    (alone,) = score_sentences(question, [minutes], HashEmbedder())
    (then,) = score_sentences(question, [minutes], HashEmbedder(), during=last_week)
    assert then.score == pytest.approx(alone.score * KIND_PENALTY, abs=1e-3)
    assert said_during(minutes, (date(2026, 11, 2), date(2026, 11, 8)))
