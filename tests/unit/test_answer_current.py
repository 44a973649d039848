"""The current value of a thing said several times (issue 25, found by the fresh hand-written
set): a measurement logged on several dates is answered with the newest, the older ones as
its conflicts; a standing sentence that says two things ("hosted with X; Y holds the
account") is restated by a newer one about one of them; "moved the sites off X" names X as
old; "how far ahead" asks for a duration and "what open rate" for a percentage."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from knowledge_platform.config.registry import AnswerConfig
from knowledge_platform.dating import CHANGE, marks
from knowledge_platform.embeddings.deterministic import HashEmbedder
from knowledge_platform.models import Chunk
from knowledge_platform.serve.answers.ask import WINDOW_RELIEF, answer_question
from knowledge_platform.serve.answers.asks import read_ask
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.conflicts import Statement, disagreement
from knowledge_platform.serve.answers.extractive import CLEAR_BELOW
from knowledge_platform.serve.answers.relevance import W_DURING, score_sentences
from knowledge_platform.serve.answers.sentences import candidates, split_sentences
from knowledge_platform.serve.answers.sources import Sources
from knowledge_platform.serve.question import Question, understand
from knowledge_platform.serve.retrieval import Retriever
from tests.answer_fixtures import answer, hash_retriever, hits
from tests.store_fixtures import make_chunk


def _open_rate(n: int, day: date, rate: str) -> object:
    text = f"Pemberton Orchards newsletter: open rate {rate}."
    return make_chunk(
        n=n,
        source_id=f"memory/{day.isoformat()}.md",
        title=f"{day.isoformat()} daily log",
        text=text,
        date=day,
    )


MAY = _open_rate(1, date(2026, 6, 16), "38%")
FEBRUARY = _open_rate(2, date(2026, 3, 10), "41%")
AUGUST = _open_rate(3, date(2026, 9, 15), "44%")
OCTOBER = _open_rate(4, date(2026, 11, 12), "47%")


@pytest.fixture
def retriever(tmp_path: Path) -> Iterator[Retriever]:
    with hash_retriever(tmp_path, (MAY, FEBRUARY, AUGUST, OCTOBER)) as found:
        yield found


def test_the_newest_measurement_leads_and_the_older_ones_are_shown_as_older(
    retriever: Retriever,
) -> None:
    """Retrieval ranked the May figure first; before, the answer led with it and never said
    that 47% is the newest."""
    result = answer(
        "What's the latest open rate on the Pemberton Orchards newsletter?",
        hits(MAY, FEBRUARY, AUGUST, OCTOBER),
        retriever,
    )
    assert result.answer.index("47%") < min(
        result.answer.index(v) for v in ("38%", "41%", "44%") if v in result.answer
    )
    newest = next(c.number for c in result.citations if c.doc_id == OCTOBER.doc_id)
    assert result.conflicts and all(c.newer == newest for c in result.conflicts)
    shown_old = {claim.value for c in result.conflicts for claim in c.claims}
    for value in ("38%", "41%", "44%"):  # quoted only as a conflict's older side
        assert value not in result.answer or value in shown_old


def test_a_newer_sentence_restates_one_clause_of_a_standing_one() -> None:
    """Two names in the standing sentence: before, which one was the subject was a guess and
    no conflict was found."""
    stale = Statement(
        "Client websites are hosted with Cobaltline; Tobiah Quennell holds the account.",
        "Vendors > Hosting",
        "Vendors",
    )
    newer = Statement(
        "All client hosting is on Northvane Cloud now.", "2026-07-22 > Infrastructure", "2026-07-22"
    )
    found = disagreement("Which provider hosts our client websites?", stale, newer)
    assert found is not None and (found.a.text, found.b.text) == ("Cobaltline", "Northvane Cloud")
    assert CHANGE in marks(newer.text)
    assert CHANGE not in marks("We are done for now.")


def test_moving_off_a_value_names_it_as_old() -> None:
    change = change_in("Finished moving the last client sites off Cobaltline.")
    assert [v.text for v in change.old] == ["Cobaltline"]
    assert [v.text for v in change_in("We are migrating away from Borealis.").old] == ["Borealis"]


def test_how_far_ahead_asks_for_a_duration_and_a_rate_for_a_percentage() -> None:
    ahead = read_ask("How far ahead must holiday requests go in?")
    assert ahead.kinds == ("duration",) and ahead.subject == frozenset({"holiday", "request"})
    rate = read_ask("What open rate does the Calloway Dental newsletter get?")
    assert "percent" in rate.kinds and {"open", "rate"} <= rate.subject


def test_a_term_only_the_sentences_list_item_has_counts_half() -> None:
    """ "Photographer: Mina Castellane." is about the Pemberton shoot its list item describes."""
    shoot = make_chunk(
        n=9,
        source_id="memory/2026-05-12.md",
        title="2026-05-12 shoot day",
        text="- Pemberton Orchards photoshoot in Ledbury. Photographer: Mina Castellane.\n"
        "- Everyone else: quiet day.",
        date=date(2026, 5, 12),
    )
    scored = score_sentences(
        "Which photographer shot the Pemberton pictures?",
        candidates(Sources(hits(shoot)), 1),
        HashEmbedder(),
    )
    lexical = {s.sentence.text: s.lexical for s in scored}
    # subject: photographer, shot, pemberton, pictur; its own: photographer; its item: pemberton
    assert lexical["Photographer: Mina Castellane."] == pytest.approx((1 + 0.5 * 1) / 4)
    assert lexical["Everyone else: quiet day."] == 0.0


def test_two_things_said_of_one_client_do_not_disagree() -> None:
    """A photoshoot and a hand-over both name Pemberton Orchards: the shared name is what both
    are about, not a word they share about it (before: a conflict, the hand-over quoted first
    for a question about the photographer)."""
    shoot = Statement(
        "Pemberton Orchards photoshoot at the old press house in Ledbury.", "2026-05-12", ""
    )
    handover = Statement(
        "Handover today, 19 May: Ines Valcourt has handed Pemberton Orchards over to Rafael "
        "Oduya, who is the account lead from now on.",
        "2026-05-19 > Pemberton Orchards",
        "2026-05-19",
    )
    question = "Which photographer shot the Pemberton blossom pictures in May?"
    assert disagreement(question, shoot, handover) is None


def test_one_question_word_in_common_is_not_the_same_subject() -> None:
    """ "weekly cycles" of a test's duration shares only "week" with a question about weeks of
    notice for leave (before: a conflict between four weeks and 21 days)."""
    leave = Statement(
        "Annual leave requests need four weeks' notice, so client cover can be arranged.",
        "Operations notes > Leave",
        "Operations notes",
    )
    test = Statement(
        "Minimum test duration raised from 14 to 21 days (decision 0009): three full weekly "
        "cycles.",
        "2026-05-18 daily log > Notes",
        "2026-05-18 daily log",
    )
    assert disagreement("Is two weeks' notice enough to book annual leave?", leave, test) is None
    new_head = Statement(
        "Priya Nair is our new head of design; Malik moves to the product team.", "Notes", ""
    )
    library = Statement(
        "Our component library is called Loom and lives in the design-system repository.",
        "Design system > Components",
        "Design system",
    )
    assert disagreement("Who is the head of design?", new_head, library) is None
    files = Statement(
        "Large client files are sent only through Sendfold.", "Security > Sharing files", ""
    )
    transfers = Statement("Client file transfers go through Parcelry.", "Toolkit > Tools", "")
    found = disagreement(
        "Which service should I use to share a big video file with a client?", files, transfers
    )
    assert found is not None and {found.a.text, found.b.text} == {"Sendfold", "Parcelry"}


def test_the_name_after_before_is_not_the_subject() -> None:
    """ "before Quarrystone" names what came after: sentences need not mention it (before:
    only the sentence of the switch to Quarrystone was eligible, never the old warehouse)."""
    ask = read_ask("Which analytics warehouse did we use before Quarrystone?")
    assert ask.names == ()
    assert read_ask("Who was Juniper Yoga's lead before Farah Haddad?").names == ("Juniper", "Yoga")


def test_a_question_that_names_when_is_answered_a_little_more_readily() -> None:
    """Searched only among what was said then, a windowed question's threshold is
    WINDOW_RELIEF of the usual one; an open window ("before May") or a long one is not
    narrow enough."""
    booked = make_chunk(
        n=20,
        source_id="memory/2026-11-04.md",
        title="2026-11-04",
        text="Booked Millrace Lodge for the winter offsite on 10 December.",
        date=date(2026, 11, 4),
    )
    today = date(2026, 11, 20)
    windowed = understand("Which venue did we book two weeks ago?", today)
    plain = Question.plain(windowed.search_text)
    env = {"OPENAI_API_KEY": ""}

    def ask(question: Question, threshold: float) -> str:
        config = AnswerConfig(min_score=threshold)
        return answer_question(
            question,
            hits(booked),
            scope="internal",
            config=config,
            embedder=HashEmbedder(),
            env=env,
        ).mode

    best = answer_question(
        plain,
        hits(booked),
        scope="internal",
        config=AnswerConfig(min_score=0.0),
        embedder=HashEmbedder(),
        env=env,
    ).confidence
    # the lodge is the one sentence, a clear winner: answered CLEAR_BELOW under any threshold
    threshold = (best + CLEAR_BELOW) / (WINDOW_RELIEF + 0.05)
    assert ask(plain, threshold) == "not_found"
    assert ask(windowed, threshold) == "extractive"
    assert windowed.dates is not None and windowed.dates.text == "two weeks ago"
    assert understand("Where is the offsite we booked a couple of weeks back?", today).dates
    opened = understand("Which venue did we book before May?", today)
    assert ask(opened, threshold) == "not_found"


def test_which_venue_asks_for_a_name() -> None:
    """Before: no kind of value, so the sentence naming the lodge got nothing for holding one."""
    assert "name" in read_ask("Which venue did we book?").kinds
    assert "name" in read_ask("What hotel is the offsite at?").kinds


@pytest.mark.parametrize(
    "text",
    [
        "From next month, the retainer will be $5,000.",
        "Starting 1 July, stand-ups are at 10:00.",
        "The new price is $40.",
        "Our new CRM is Pipewell.",
        "We swapped Slack for Teams.",
        "The meeting has been rescheduled to Thursdays.",
        "The retainer has gone up to $15,500.",
        "Support hours were extended to 20:00.",
        "The deadline was pushed to Friday.",
        "Henceforth, all tests need two reviewers.",
        "As of Monday, the office opens at 8.",
        "We migrated the CRM to Pipewell.",
        "The approval limit is $2,000 (was $1,000).",
        "Ravi handing Saltmarsh over to Wrenna from 1 Jul.",
        "Moved Mon WIP to 10:15 from next wk.",
        "Harrowgate launch slipped to November 9.",
        "Mina promoted to senior designer.",
        "Retainer bumped to $6k from January.",
        "Saltmarsh ROAS 4.7x, up from 4.2x.",
        "The test budget was cut to $3,000.",
    ],
)
def test_statements_of_change_said_otherwise_are_marked(text: str) -> None:
    """Each was unmarked before, so no search for newer statements could find it."""
    assert CHANGE in marks(text)


def test_old_values_said_otherwise_are_read() -> None:
    cases = {
        "Jonas has taken over QA from Elif.": ("Elif", "Jonas"),
        "Pipewell will replace Salesbook next quarter.": ("Salesbook", "Pipewell"),
        "The approval limit is $2,000 (was $1,000).": ("$1,000", None),
        "Freelancer invoices: Ilse signs off from now on, not Oona.": ("Oona", None),
    }
    for text, (old, new) in cases.items():
        change = change_in(text)
        assert [v.text for v in change.old] == [old], text
        assert new is None or change.new_text == (new,), text
    assert CHANGE not in marks("We welcomed a new client.")
    # a chunk is marked as a whole: the cue counts where its sentence opens, not only at the top
    assert CHANGE in marks("- Quiet day.\n- Our new CRM is Pipewell.")
    assert CHANGE not in marks("We announced the new CRM is live.")


def test_questions_that_ask_for_a_kind_in_other_words() -> None:
    """Before, each asked for no kind of value: any sentence about the subject fitted."""
    assert read_ask("Whose job is it to approve invoices?").kinds == ("person",)
    assert "date" in read_ask("What's the cutoff for expense claims?").kinds
    assert read_ask("What's our response time for support tickets?").kinds == ("duration",)
    assert "name" in read_ask("Which client did we sign last week?").kinds


def test_a_handover_naming_the_old_first_name_supersedes_the_full_name() -> None:
    """A terse log names only the first name of the one handing over and the client, not the
    role the question asks about; both name what the question names (before: no conflict,
    and the stale directory line answered alone)."""
    roster = Statement(
        "Account director: Ravi Castellanos.",
        "Client directory > Saltmarsh Outfitters",
        "Client directory",
    )
    log = Statement(
        "Ravi handing Saltmarsh over to Wrenna from 1 Jul so he can focus on Harrowgate.",
        "2026-06-22 daily log > Log",
        "2026-06-22 daily log",
    )
    found = disagreement("Who's the account director on Saltmarsh?", roster, log)
    assert found is not None and found.superseding == "b"
    assert (found.a.text, found.b.text) == ("Ravi", "Wrenna")  # the old value as the log says it


def test_a_longer_form_counts_in_the_sentence_not_in_its_heading() -> None:
    """ "Client directory" in a heading made every line of the page about a director."""
    page = make_chunk(
        n=3,
        title="Client directory",
        headers=["Client directory", "Saltmarsh"],
        text="Client contact: Tamsin Greaves.\n\nAccount director: Ravi Castellanos.",
    )
    scored = score_sentences(
        "Who's the account director on Saltmarsh?",
        candidates(Sources(hits(page)), 1),
        HashEmbedder(),
    )
    lexical = {s.sentence.text: s.lexical for s in scored}
    assert lexical["Account director: Ravi Castellanos."] == 1.0
    assert lexical["Client contact: Tamsin Greaves."] == pytest.approx(1 / 3)  # Saltmarsh only


def _log_entry(n: int, day: date, text: str, title: str | None = None) -> Chunk:
    """A daily log's chunk: an event said on `day`."""
    return make_chunk(
        n=n,
        source_id=f"memory/{day.isoformat()}.md",
        title=title or day.isoformat(),
        text=text,
        date=day,
        time_kind="event",
    )


def test_a_log_entry_of_the_window_the_question_names_counts_more() -> None:
    """ "How did Saltmarsh's ROAS look last week?": the week's log line, not the standing page
    that names ROAS, is what happened then (before: the log line was refused, at 0.61)."""
    log = _log_entry(4, date(2026, 11, 11), "- Saltmarsh ROAS 4.2x", "2026-11-11 daily log")
    question = "How did Saltmarsh's ROAS look?"
    sentences = candidates(Sources(hits(log)), 1)
    plain = score_sentences(question, sentences, HashEmbedder())[0].score
    week = (date(2026, 11, 9), date(2026, 11, 15))
    then = score_sentences(question, sentences, HashEmbedder(), during=week)[0].score
    before = score_sentences(
        question, sentences, HashEmbedder(), during=(date(2026, 10, 1), date(2026, 10, 31))
    )[0].score
    assert then > plain + W_DURING / 2 and before == plain


def test_a_reprice_of_the_tool_a_paragraph_names_supersedes_its_fragment() -> None:
    """ "Agency plan, $480/month." is about Postmarque only through its paragraph; the log
    names Postmarque and the old price (before: no conflict, the stale price answered)."""
    page = Statement(
        "Agency plan, $480/month.",
        "Tools and vendors > Email",
        "Tools and vendors",
        "Postmarque is our ESP for every client email program. Agency plan, $480/month.",
    )
    log = Statement(
        "Postmarque renewal came in: $615/mo from September (was 480).",
        "2026-08-03 daily log > Log",
        "2026-08-03 daily log",
    )
    found = disagreement("What's the monthly cost of our email platform?", page, log)
    assert found is not None and found.superseding == "b"
    assert (found.a.text, found.b.text) == ("$480", "$615")
    alone = Statement("Agency plan, $480/month.", "Tools and vendors > Email", "Tools and vendors")
    assert disagreement("What's the monthly cost of our email platform?", alone, log) is None


def test_a_label_line_is_a_sentence_of_its_own() -> None:
    """ "Date: 2026-11-03" above a decision was read as the decision's first words."""
    text = (
        "Date: 2026-11-03\nDesign handoffs happen in Drafthouse only.\nOwner: Yusra\n"
        "All sites are audited."
    )
    assert split_sentences(text) == [
        "Date: 2026-11-03",
        "Design handoffs happen in Drafthouse only.",
        "Owner: Yusra",
        "All sites are audited.",
    ]
    assert split_sentences("Primary KPI: cost per lead,\ntarget $45.") == [
        "Primary KPI: cost per lead, target $45."
    ]


def test_when_something_was_done_is_the_day_of_the_log_that_says_so(tmp_path: Path) -> None:
    """ "When did we switch to Linemark?": the log line holds no date of its own, so it lacked
    the asked kind of value and the question was refused."""
    log = _log_entry(
        5,
        date(2026, 5, 19),
        "- From today all project boards live in Linemark instead of Ticketbird.",
    )
    sentences = candidates(Sources(hits(log)), 1)
    [scored] = score_sentences("When did we switch to Linemark?", sentences, HashEmbedder())
    assert scored.fits and scored.on == date(2026, 5, 19)
    [standing] = score_sentences("When is the board review?", sentences, HashEmbedder())
    assert standing.on is None
    with hash_retriever(tmp_path, [log]) as retriever:
        found = answer("When did we switch to Linemark?", hits(log), retriever)
    assert (
        "2026-05-19 (Tuesday 19 May) — From today all project boards live in Linemark"
        in found.answer
    )


def test_terse_logs_state_changes_their_own_way() -> None:
    """Round 8's hand-written logs: an arrow, initials, a desk handed "to" someone, a tool
    whose contract ends unrenewed; a noun "changes" states none."""
    arrow = change_in("Ed planning call moves Tue 14:45 -> Wed 11:00 ET from w/c 13 Apr")
    assert [v.text for v in arrow.old if v.kind == "time"] == ["14:45"]
    assert arrow.new_text == ("Wed 11:00 ET",)
    initials = change_in("RS handing Cobbleroot over to Evander from 1 Jun.")
    assert [v.text for v in initials.old_in("Account manager: Runa Skovgaard.")] == [
        "Runa Skovgaard"
    ]
    assert not initials.old_in("Account manager: Evander Kesterson.")  # EK is not RS
    desk = change_in("Ambrose Keating is handing the crisis desk to Nkechi Okonkwo from 1 June.")
    assert [v.text for v in desk.old] == ["Ambrose Keating"]
    assert desk.new_text == ("Nkechi Okonkwo",)
    ended = change_in("Clipwatch contract ends 10 July and we're not renewing.")
    assert ended.old_text == ("Clipwatch",)
    assert not change_in("The Saltmarsh contract ends in May.").says_change  # may be renewed
    assert CHANGE in marks("- Moving DNS + CDN to Skerrylight; Fintan migrating the zones.")
    assert CHANGE not in marks("- Pilar ran a retro: fewer late design changes next time.")
