"""Round 10's hand-written set (issue 25): an architecture practice writes one log a week
with a heading a day, says changes its own way ("Tessaly is out, Pomfret & Dray is in",
"principals go up to $245 an hour (they were $225)"), and writes a paragraph whose first
sentence names what the next ones speak of."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from knowledge_platform.dating import CHANGE, marks
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.extractive import _own_sentences
from knowledge_platform.serve.answers.relevance import Scored
from knowledge_platform.serve.answers.sentences import Sentence, split_sentences
from tests.answer_fixtures import answer, hash_retriever, hits
from tests.store_fixtures import make_chunk

REPORT = (
    "Ebbfleet's report on the Brindlecombe reading-room pilot is in. The two bays ran side by "
    "side for three weeks (21 days of readings), and the wood-wool panels beat the PET felt. "
    "Percival likes the look of the wood-wool too."
)
PERMIT = (
    "Scaldwell permit application went in today: change of use for the taproom plus the "
    "fit-out. Yevgenia and Caradoc got it in a day ahead of the date we promised Fitz."
)


def test_what_is_out_and_what_was_are_old() -> None:
    swap = "Tessaly is out, Pomfret & Dray is in. All print sets go to Pomfret & Dray."
    assert CHANGE in marks(swap)
    assert change_in(swap).old_text == ("Tessaly",)
    assert change_in(swap).new_text == ("Pomfret & Dray",)
    rates = "New hourly rates from 1 July: principals go up to $245 an hour (they were $225)."
    assert CHANGE in marks(rates)
    assert "$225" in [v.text for v in change_in(rates).old]
    assert not change_in("The old way is out, and we are in the office.").says_change


def test_a_sentence_is_quoted_after_the_one_that_names_what_it_speaks_of(tmp_path: Path) -> None:
    """ "The two bays ran ... three weeks" answers how long, but only the sentence before it
    says whose trial it was."""
    log = make_chunk(n=1, source_id="memory/2026-06-08.md", text=REPORT, date=date(2026, 6, 11))
    with hash_retriever(tmp_path, [log]) as retriever:
        found = answer(
            "How long did Ebbfleet run the Brindlecombe reading-room trial?", hits(log), retriever
        )
    assert "three weeks" in found.answer, found.answer
    assert "Ebbfleet's report on the Brindlecombe reading-room pilot is in. The two bays" in (
        found.answer
    )


def test_a_paragraph_is_not_cut_to_a_sentence_that_drops_its_subject() -> None:
    """Of "Scaldwell permit application went in today ... Yevgenia and Caradoc got it in",
    the second names people (the asked kind, "which ... went in" asking for a name) and comes
    close, but does not say what went in: the paragraph stays whole."""
    log = make_chunk(n=2, source_id="memory/2026-10-12.md", text=PERMIT, date=date(2026, 10, 14))
    first, second = split_sentences(PERMIT)

    def scored(text: str, score: float, lexical: float, fits: bool, block: str) -> Scored:
        return Scored(Sentence(text, 1, 0, 0, log, block), score, lexical, 0.5, 1.0, fits)

    whole = scored(f"{first} {second}", 1.0, 1.0, True, "")
    parts = [
        whole,
        scored(second, 0.85, 0.5, True, whole.sentence.text),
        scored(first, 0.45, 1.0, False, whole.sentence.text),
    ]
    assert _own_sentences([whole], parts, asks_kind=True) == [whole]
    # a part that names as much as the whole does answers alone
    named = scored(second, 0.85, 1.0, True, whole.sentence.text)
    assert _own_sentences([whole], [whole, named], asks_kind=True) == [named]


def test_who_takes_over_from_him_as_a_role_makes_its_holder_old() -> None:
    """ "Idonea takes over from him as issue checker" names no old value ("him"): the role
    she takes does, in the standing rule that names its holder."""
    takes = change_in(
        "Emrys goes to three days a week from August, so Idonea takes over from him as issue "
        "checker: from Monday 3 August every set gets her sign-off."
    )
    assert takes.role == "issue checker"
    rule = "No set is issued until the issue checker, Emrys Tregunna, has checked a full print."
    assert [v.text for v in takes.old_in(rule)] == ["Emrys Tregunna"]
