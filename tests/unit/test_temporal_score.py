"""The dated evaluation's scoring rules (bench/temporal.py's header) on hand-made answers."""

from bench.temporal_world.model import Question
from bench.temporal_world.score import (
    Asked,
    Citation,
    Claim,
    Conflict,
    Hit,
    Searched,
    conflict_flagged,
    named,
    reciprocal_rank,
    type_score,
)

CURRENT = Question(
    id="c",
    type="current",
    template="",
    instance="",
    question="Who leads QA?",
    expect=("Elif Demir",),
    old=("Oskar Lindqvist",),
    docs=("memory/x.md",),
)


def _asked(answer: str, **fields) -> Asked:
    return Asked(answer=answer, mode="extractive", **fields)


def test_an_old_value_counts_only_when_shown_as_old():
    both = "QA lead: Oskar Lindqvist. [1] Elif Demir leads QA. [2]"
    assert not type_score(CURRENT, _asked(both, citations=[Citation(number=1), Citation(number=2)]))
    superseded = [Citation(number=1, superseded_by="memory_files:memory/x.md"), Citation(number=2)]
    assert type_score(CURRENT, _asked(both, citations=superseded))
    assert type_score(
        CURRENT, _asked("Elif Demir leads QA [2]. Oskar Lindqvist was QA lead until August [1].")
    )
    flagged = Conflict(
        claims=[Claim(citation=1, value="Oskar Lindqvist"), Claim(citation=2, value="Elif Demir")],
        newer=2,
    )
    assert type_score(CURRENT, _asked(both, conflicts=[flagged]))
    assert type_score(CURRENT, _asked("Elif Demir leads QA. [1]"))
    assert not type_score(CURRENT, Asked(answer="Elif Demir", mode="not_found"))


def test_a_conflict_counts_with_both_values_and_newer_on_the_newer_claim():
    q = Question(
        id="k",
        type="conflict",
        template="",
        instance="",
        question="Retainer?",
        expect=("96 hours", "80 hours"),
        newer="96 hours",
    )
    claims = [
        Claim(citation=1, value="80", text="Retainer: 80 hours a month."),
        Claim(citation=2, value="96", text="Retainer: 96 hours a month."),
    ]
    assert conflict_flagged(q, _asked("", conflicts=[Conflict(claims=claims, newer=2)]))
    assert not conflict_flagged(q, _asked("", conflicts=[Conflict(claims=claims, newer=1)]))
    assert not conflict_flagged(q, _asked("", conflicts=[Conflict(claims=claims)]))
    assert not conflict_flagged(q, _asked("", conflicts=[Conflict(claims=claims[1:], newer=2)]))


def test_a_superseded_record_must_be_cited_and_said_to_be_superseded():
    q = Question(
        id="n",
        type="named",
        template="",
        instance="",
        question="What did 0005 say?",
        expect=("14 days",),
        docs=("decisions/0005-minimum-test-duration.md",),
        superseded=True,
    )
    record = Citation(number=1, doc_id="git_docs:decisions/0005-minimum-test-duration.md")
    text = "Every experiment runs for at least 14 days. [1]"
    assert not named(q, _asked(text, citations=[record]))
    assert named(q, _asked(text, citations=[record], warnings=["[1] is superseded by 0009"]))
    assert named(
        q,
        _asked(
            text,
            citations=[
                record.model_copy(
                    update={
                        "superseded_by": "git_docs:decisions/0009-minimum-test-duration-21-days.md"
                    }
                )
            ],
        ),
    )
    assert not named(q, _asked(text + " (superseded)", citations=[Citation(number=1)]))


def test_the_rank_is_of_the_first_hit_naming_the_document():
    q = Question(
        id="a", type="answerable", template="", instance="", question="?", docs=("clients.md",)
    )
    hits = [Hit(source_id="clients/copperline-outfitters.md"), Hit(doc_id="x:clients.md")]
    assert reciprocal_rank(q, Searched(hits=hits)) == 0.5
    assert reciprocal_rank(q, Searched(hits=hits[:1])) == 0.0
