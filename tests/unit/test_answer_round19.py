"""Round 19 (issue 25): who held a thing before someone took it over, a hand-over written in
small letters, a day written in digits, what went out the door, and a total budget that is
money."""

from __future__ import annotations

from dataclasses import replace

from knowledge_platform.dating import CHANGE
from knowledge_platform.serve.answers.asks import asks_old, content_terms, read_ask
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.conflicts import disagreement
from knowledge_platform.serve.answers.disagreements import _statement, between, find_conflicts
from knowledge_platform.serve.answers.extractive import (
    CHANGED_BELOW,
    _stale,
    newest_first_pick,
    pick,
)
from knowledge_platform.serve.answers.glossary import words
from knowledge_platform.serve.answers.relevance import MIN_SCORE, Scored, asks_event
from knowledge_platform.serve.answers.sentences import Sentence
from knowledge_platform.serve.answers.values import values
from tests.store_fixtures import make_chunk


def said(text: str, n: int) -> Scored:
    """A scored sentence of document `n` (dated `n` days into 2024)."""
    chunk = make_chunk(n=n, text=text)
    return Scored(Sentence(text, ref=n, rank=n, position=0, chunk=chunk), 0.8, 0.5, 0.4)


def test_who_took_it_over_is_not_what_the_question_is_about() -> None:
    """ "before Hamish took it over" asks for the one before: neither Hamish nor his taking
    over is a word the answer must hold (before: "took" and "over" were subject terms, and
    the tax manager's row lost two of five)."""
    question = "Who signed off tax returns before Hamish took it over?"
    assert asks_old(question)
    assert content_terms(question) >= {"tax", "return"}
    assert not content_terms(question) & {"took", "over", "hamish"}
    assert read_ask(question).names == ()


def test_a_hand_over_in_small_letters_names_who_it_was_from() -> None:
    """A chat line writes names in small letters, and "cuthbert" is also a word of the
    model's vocabulary: after "takes over ... from" it is still who held it."""
    change = change_in("heads up: mireya takes over vantcliffe from cuthbert as of 1 September.")
    assert change.makes_old("client: Vantcliffe Software; account lead: Cuthbert Abiodun")
    assert not change_in("Priya takes over the account from today.").says_change


def test_a_day_in_digits_is_a_date() -> None:
    said = values("Bridge team recommended a load posting, letter to Jocasta Weds 10/7.")
    assert [v.kind for v in said if v.kind != "name"] == ["date"]  # not the numbers 10 and 7
    assert [v.norm for v in values("Raised: 17/06/2026")] == ["2026-06-17"]
    assert [v.kind for v in values("24/7 cover")] == ["number", "number"]


def test_what_went_out_the_door_was_delivered_or_issued() -> None:
    question = "anything go out the door yesterday?"
    assert asks_event(question)  # a "did" left out
    assert {"deliv"} <= words(question) & words("winter ale spot v04 delivered to bram")
    assert {"deliv"} <= words(question) & words("Issued: kitchen joinery drawings (C2).")


def test_a_total_budget_is_money_unless_the_question_counts_time() -> None:
    assert read_ask("What's the narrowgate film's total budget?").kinds == ("money",)
    assert read_ask("What is the egret budget?").kinds == ("money", "duration")  # hours too
    assert "duration" in read_ask("What is the total budget in hours?").kinds


def test_two_statements_dated_differently_disagree_about_no_person() -> None:
    """A hand-over "as of 1 September" and a contingency rule "as of 1 Oct" differ only in
    when each was said: for a question after a person, no conflict (before: "Sources
    disagree (date)" quoted the contingency rule first)."""

    handover = said("heads up: mireya takes over vantcliffe from cuthbert as of 1 September.", 1)
    rule = said("heads up: as of 1 Oct it's 10% contingency on every budget we send out.", 2)
    assert find_conflicts("Who is the account lead for Vantcliffe?", [handover], [rule]) == []
    # a question after a day is answered by the days two sources give
    kickoff = said("The Vantcliffe kickoff is on 1 September.", 3)
    moved = said("The Vantcliffe kickoff is on 1 October.", 4)
    found = find_conflicts("When is the Vantcliffe kickoff?", [kickoff], [moved])
    assert [f.kind for f in found] == ["date"]


def test_replaced_every_few_years_is_how_often_not_a_change() -> None:
    """ "Laptops are replaced every 3 years" says how often (before: "every 3 years" was read
    as the old value a change replaced, and the two pages' 3 and 4 years were no conflict)."""
    assert not change_in("Laptops are replaced every 3 years; ask Lachlan first.").says_change
    assert change_in("Clarity replaced Hotjar in May.").old_text == ("Hotjar",)
    it_page = said("Laptops are refreshed every 4 years, or sooner if repairs cost more.", 5)
    handbook = said("Laptops are replaced every 3 years; ask Lachlan if yours is struggling.", 6)
    found = find_conflicts("How often do laptops get replaced?", [it_page], [handbook])
    assert [(f.kind, f.sides[0].value, f.sides[1].value) for f in found] == [
        ("frequency", "every 4 years", "every 3 years")
    ]


def test_a_best_sentence_a_newer_one_says_is_old_answers_below_the_threshold() -> None:
    """The handbook's rule scores under the threshold ("sign-off" for "approval"); a log
    entry months later says its value is old. Two sources about one changed thing answer,
    the newer first (before: refused, best score 0.59 against 0.72)."""
    question = "Who do I need approval from before paying a deposit on a big event?"
    rule = "Event spend over $2,500 needs Cressida's sign-off before anything is deposited."
    handbook = replace(said(rule, 1), score=MIN_SCORE - CHANGED_BELOW / 2)
    log = "From now on any event spend over $2,500 goes to Henrietta for approval, not Cressida."
    chunk = make_chunk(n=100, text=log, marks=[CHANGE])
    change = Scored(Sentence(log, ref=2, rank=2, position=0, chunk=chunk), 0.48, 0.4, 0.3)
    assert pick([handbook], MIN_SCORE) == []
    assert pick([handbook, change], MIN_SCORE) == [handbook]
    assert newest_first_pick(question, [handbook], [change], MIN_SCORE)[0] is change


def test_a_sentence_differing_from_the_lead_only_in_its_date_is_not_stale() -> None:
    """New crew rates "from 1 June" and a per diem "from 1 October": for what a stagehand
    is paid a day they differ in nothing asked (their one difference is a date), so the
    rates are not left out as an older value of the same thing (before this round's kind
    check: kept only as the side of a date conflict, which that check no longer draws)."""
    question = "What do we pay a freelance stagehand for a day?"
    rates = (
        "**New freelance rates from 1 June** (Imogen signed off Wednesday): stagehand day goes "
        "from $340 to **$365**; runner/driver day from $245 to $260."
    )
    per_diem = "The per diem for travelling crew goes up from $55 to **$75** a day from 1 October."

    def passage(text: str, n: int, title: str, heading: str, block: str) -> Scored:
        chunk = make_chunk(n=n, text=block, title=title, headers=[title, heading])
        return Scored(Sentence(text, n, n, 0, chunk, block), 0.9, 1.0, 0.6)

    status = passage(
        rates,
        1,
        "Status — week 21",
        "Internal",
        f"{rates} Everything else on the rate card unchanged.",
    )
    minutes = passage(
        per_diem,
        200,
        "Ops meeting — minutes",
        "2. Freelancer per diem",
        f"Imogen and Marisol reviewed travel costs. {per_diem} Applies to out-of-state shows.",
    )
    found = disagreement(question, _statement(status.sentence), _statement(minutes.sentence))
    assert found is not None and found.kind == "date"  # what the kind check sets aside
    assert between(question, status.sentence, minutes.sentence) is None
    assert not _stale(question, status, minutes, [])


def test_who_reported_it_is_not_what_the_report_must_name() -> None:
    """ "How many inspections did Wystan report?": his weekly email's figures do not name him
    (before: Wystan was the subject, and only the email's From line was eligible)."""
    question = "How many inspections did Wystan report as completed on 16 October?"
    assert read_ask(question).names == ()
    assert read_ask("What chargeable ratio did Ulric give at the wrap?").names == ()
    assert read_ask("When did Dario join?").names == ("Dario",)


def test_taking_over_an_account_is_looking_after_it() -> None:
    question = "who looks after vantcliffe these days?"
    handover = "heads up: mireya takes over vantcliffe from cuthbert as of 1 September."
    assert {"manag", "vantcliff"} <= words(question) & words(handover)
