"""A newer sentence that says something changed without naming the old value ("Uptime checks
now run every minute", "We switched the analytics warehouse to Quarrystone") makes the older
statement it restates old: in the answer (a conflict whose `newer` is the change) and in the
ranking (current_first). Before, only a sentence naming the old value ("moved from X to Y")
did, and an answer quoted the stale standing text alone. Also: a near miss that names the
subject but none of the words of the asked attribute, and "What replaced X?"."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import date
from pathlib import Path

import pytest

from knowledge_platform.dating import CHANGE, marks
from knowledge_platform.embeddings.deterministic import HashEmbedder
from knowledge_platform.models import Chunk, Hit
from knowledge_platform.serve.answers import relevance
from knowledge_platform.serve.answers.conflicts import Statement, disagreement
from knowledge_platform.serve.answers.currency import current_first
from knowledge_platform.serve.answers.relevance import score_sentences
from knowledge_platform.serve.answers.sentences import candidates
from knowledge_platform.serve.answers.sources import Sources
from knowledge_platform.serve.retrieval import Retriever
from tests.answer_fixtures import answer, hash_retriever, hits
from tests.store_fixtures import make_chunk

VENDORS = make_chunk(
    n=1,
    source_id="vendors.md",
    title="Vendors",
    headers=["Vendors", "Uptime monitoring"],
    text="PingPost watches every client storefront; the uptime checks run every 5 minutes.",
    date=date(2026, 1, 20),
)
UPTIME = make_chunk(
    n=2,
    source_id="memory/2026-08-08.md",
    title="2026-08-08 notes",
    text="Uptime checks now run every minute.",
    date=date(2026, 8, 8),
    marks=marks("Uptime checks now run every minute."),
)
CRIT = make_chunk(
    n=3,
    source_id="memory/2026-09-01.md",
    title="2026-09-01 notes",
    text="The design crit now runs every Thursday.",
    date=date(2026, 9, 1),
    marks=marks("The design crit now runs every Thursday."),
)
TRAVEL = make_chunk(
    n=4,
    source_id="travel.md",
    title="Travel guide",
    headers=["Travel guide", "Booking"],
    text="Book trains through Railhop at least a week ahead.",
    date=date(2026, 5, 4),
)
LOGS = [
    make_chunk(
        n=10 + i,
        source_id=f"memory/2026-11-0{i + 1}.md",
        title=f"2026-11-0{i + 1} daily log",
        text=f"Heatmap review for a client storefront: {100 + i} dead clicks.",
        date=date(2026, 11, i + 1),
    )
    for i in range(6)
]


@pytest.fixture
def retriever(tmp_path: Path) -> Iterator[Retriever]:
    with hash_retriever(tmp_path, (VENDORS, UPTIME, CRIT, TRAVEL, *LOGS)) as found:
        yield found


def ids(found: Sequence[Hit]) -> list[str]:
    return [h.chunk.doc_id for h in found]


def test_a_change_cue_marks_the_chunk() -> None:
    assert CHANGE in UPTIME.marks and CHANGE in CRIT.marks


def test_a_newer_restatement_retrieval_left_out_makes_the_standing_value_old(
    retriever: Retriever,
) -> None:
    result = answer(
        "How frequently is PingPost checking the storefronts?", hits(VENDORS, *LOGS), retriever
    )
    assert "every minute" in result.answer
    (conflict,) = result.conflicts
    newer = next(c for c in result.citations if c.number == conflict.newer)
    assert newer.doc_id == UPTIME.doc_id
    assert result.answer.index("every minute") < result.answer.index("every 5 minutes")


def test_a_restatement_ranks_above_the_older_text_it_restates() -> None:
    ranked = current_first(hits(VENDORS, *LOGS, UPTIME), "How often do the uptime checks run?")
    assert ids(ranked)[:2] == [UPTIME.doc_id, VENDORS.doc_id]


def test_a_change_cue_about_another_thing_moves_nothing() -> None:
    """The crit's new day shares one word ("run") with the uptime checks: not the same thing."""
    found = hits(VENDORS, *LOGS, CRIT)
    assert ids(current_first(found, "How often do the uptime checks run?")) == ids(found)


def _score(question: str, chunk: Chunk) -> float:
    (scored,) = score_sentences(question, candidates(Sources(hits(chunk)), 1), HashEmbedder())
    return scored.score


def test_a_near_miss_on_the_asked_attribute_scores_lower(monkeypatch: pytest.MonkeyPatch) -> None:
    """The subject (Railhop) and a value of the asked kind (a duration) are there, the
    attribute (the contract's renewal) is not; a question whose attribute the sentence
    states ("book") is not marked down."""
    miss, booked = "When does the Railhop contract renew?", "When should Railhop trains be booked?"
    before = {q: _score(q, TRAVEL) for q in (miss, booked)}
    monkeypatch.setattr(relevance, "ATTRIBUTE_PENALTY", 1.0)
    without = {q: _score(q, TRAVEL) for q in (miss, booked)}
    assert before[miss] == pytest.approx(0.9 * without[miss], abs=1e-3)
    assert before[booked] == without[booked]


def test_what_replaced_x_favours_the_sentence_that_says_x_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    switch = make_chunk(
        n=30,
        source_id="memory/2026-08-17.md",
        title="2026-08-17 daily log",
        text="#incidents replaces #war-room for incident coordination from today.",
        date=date(2026, 8, 17),
        marks=[CHANGE],
    )
    asked, other = "What replaced the war-room channel?", "What replaced the heatmap review?"
    before = {q: _score(q, switch) for q in (asked, other)}
    monkeypatch.setattr(relevance, "W_CHANGE", 0.0)
    assert before[asked] == pytest.approx(_score(asked, switch) + 0.15, abs=1e-3)
    assert before[other] == _score(other, switch)  # the heatmap review did not change


def test_is_x_still_so_is_answered_by_the_restatement() -> None:
    """The value the question gives ("Idris Khan") was left out of the comparison, so the
    stale text and the restatement had nothing to disagree on."""
    found = disagreement(
        "Is Idris Khan still our security contact?",
        Statement("Security contact: Idris Khan.", "Studio policies > Security", "Studio policies"),
        Statement("Security contact is now Mirela Popescu."),
    )
    assert found is not None
    assert {found.a.text, found.b.text} == {"Idris Khan", "Mirela Popescu"}
