"""Round 19 (issue 25): who held a thing before someone took it over, a hand-over written in
small letters, a day written in digits, what went out the door, and a budget that is money."""

from __future__ import annotations

from knowledge_platform.serve.answers.asks import asks_old, content_terms, read_ask
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.disagreements import find_conflicts
from knowledge_platform.serve.answers.glossary import words
from knowledge_platform.serve.answers.relevance import Scored, asks_event
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


def test_a_day_in_digits_is_a_date_and_a_fields_opening_word_no_name() -> None:
    said = values("Bridge team recommended a load posting, letter to Jocasta Weds 10/7.")
    assert [v.kind for v in said if v.kind != "name"] == ["date"]  # not the numbers 10 and 7
    assert [v.norm for v in values("Raised: 17/06/2026")] == ["2026-06-17"]
    assert [v.kind for v in values("24/7 cover")] == ["number", "number"]
    row = "Person: Tobias Krell; What to go to them for: Final review of every tax return."
    assert [v.text for v in values(row) if v.kind == "name"] == ["Tobias Krell"]
    assert [v.text for v in values("Owner: Marisol")] == ["Marisol"]


def test_what_went_out_the_door_was_delivered_or_issued() -> None:
    question = "anything go out the door yesterday?"
    assert asks_event(question)  # a "did" left out
    assert {"deliv"} <= words(question) & words("winter ale spot v04 delivered to bram")
    assert {"deliv"} <= words(question) & words("Issued: kitchen joinery drawings (C2).")


def test_a_budget_is_money_unless_the_question_counts_time() -> None:
    assert read_ask("What's the narrowgate film's total budget?").kinds == ("money",)
    assert "duration" in read_ask("How many hours are budgeted for the audit?").kinds


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
