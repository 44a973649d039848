"""Round 14's hand-written logs and records (issue 25): a studio's hurried log lines open with
the clock time they were noted ("- 15:15 spokewright bumper test results"), which is no value
they state; a rule's number carries its note ("**Rule 10 (supersedes rule 4).**"); a decision
record of one section is its decision, and two records one number names are both answered
from; the hits of a question lead with a passage that holds what it asks for; another page's
wording of the rule quoted is its other side; a job moved to something new makes what held it
old; an amount a question gives is a case of the limit a sentence states."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from knowledge_platform.dating import marks
from knowledge_platform.doc_names import name_keys
from knowledge_platform.models import Chunk, Hit
from knowledge_platform.serve.answers.asks import read_ask
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.currency import answering_first
from knowledge_platform.serve.answers.extractive import _restates
from knowledge_platform.serve.answers.items import find_item
from knowledge_platform.serve.answers.relevance import Scored, misses_number
from knowledge_platform.serve.answers.sentences import Sentence, candidates
from knowledge_platform.serve.answers.sources import Sources
from knowledge_platform.serve.references import named_current
from knowledge_platform.store.base import SearchFilter
from tests.answer_fixtures import answer, hash_retriever, hits
from tests.store_fixtures import make_chunk

RESULTS = (
    "- 15:15 spokewright bumper test results after three weeks: the 6-second bumpers won, "
    "click-through 2.4% vs 1.7% for the 15s."
)
LIVE = "- 16:40 spokewright bumper test goes live monday: 6-second vs 15-second pre-roll bumpers."


def _log(n: int, day: date, text: str) -> Chunk:
    return make_chunk(
        n=n, source_id=f"memory/{day}.md", title=f"{day} daily log", text=text, date=day,
        time_kind="event", marks=marks(text),
    )  # fmt: skip


def test_a_log_lines_clock_time_is_not_a_value_it_states(tmp_path: Path) -> None:
    results, live = _log(1, date(2026, 6, 26), RESULTS), _log(2, date(2026, 6, 5), LIVE)
    said = [s.text for s in candidates(Sources(hits(results, live)), 6)]
    assert said[0].startswith("spokewright bumper test results after three weeks")
    assert not any(s.startswith(("15:15", "16:40")) for s in said)
    with hash_retriever(tmp_path, [results, live]) as retriever:
        found = answer(
            "How long did the Spokewright bumper test run?", hits(results, live), retriever
        )
    assert "three weeks" in found.answer
    assert (
        "15:15" not in found.answer and not found.conflicts
    )  # two notes' times disagree on nothing
    # a standing page's schedule keeps its times
    agenda = make_chunk(n=3, text="- 09:15 Daily standup in the studio.", time_kind="standing")
    assert [s.text for s in candidates(Sources(hits(agenda)), 6)] == [
        "09:15 Daily standup in the studio."
    ]


STANDARDS = Hit(
    chunk=Chunk(
        source="memory_files", source_id="delivery-standards.md", scope="internal",
        title="Delivery standards", kind="doc", id="standards-0", doc_id="standards",
        headers=["Delivery standards"], ordinal=0,
        text=(
            "**Rule 4.** Social cut-downs have their captions burned in.\n\n"
            "**Rule 10 (supersedes rule 4).** Social cut-downs ship twice: clean and captioned."
        ),
    ),
    score=1.0,
)  # fmt: skip


def test_a_rule_whose_number_carries_a_note_supersedes_the_rule_it_names() -> None:
    old = find_item("What was rule 4 of the delivery standards?", [STANDARDS])
    assert old is not None and old.text == "Social cut-downs have their captions burned in."
    assert old.superseded_by is not None and old.superseded_by.label == "Rule 10"
    new = find_item("What does rule 10 say?", [STANDARDS])
    assert new is not None and new.text.startswith("(supersedes rule 4) Social cut-downs")


def _hit(n: int, text: str, **fields: object) -> Hit:
    return Hit(chunk=make_chunk(n=n, text=text, **fields), score=1.0 - n / 10)


def test_the_hits_lead_with_a_passage_that_holds_what_is_asked() -> None:
    rule = _hit(0, "No client runs more than 3 experiments at once.", time_kind="standing")
    change = _hit(
        1,
        "Vantor replaces Tallyhook as our experiment platform from today.",
        time_kind="event",
        date=date(2026, 7, 6),
    )
    other = _hit(2, "Bram presented the new test dashboard.", time_kind="event")
    asked = "Which experiment platform do we use?"
    assert [h.chunk.id for h in answering_first([rule, change, other], asked)] == [
        change.chunk.id,
        rule.chunk.id,
        other.chunk.id,
    ]
    # a question after the earlier value, or one that asks for no kind, keeps the order
    assert answering_first([rule, change], "Which platform did we use before Vantor?")[0] is rule
    assert answering_first([rule, change], "Tell me about experiments")[0] is rule
    assert answering_first([rule, change], "experiment platform")[0] is rule  # no question
    # about a window, only a log entry of it moves up, not a standing page
    page = _hit(3, "Experiment platform: Tallyhook.", time_kind="standing")
    assert answering_first([rule, page], asked, events=True)[0] is rule
    assert answering_first([rule, page], asked)[0] is page


def test_two_records_one_number_names_are_both_answered_from(tmp_path: Path) -> None:
    """A workspace keeps two series of decision records; "decision 4" names one of each. A
    record of one section (its title says it is a decision) is all decision."""
    pricing = make_chunk(
        n=1, source_id="decisions/0004-holdout-groups.md", kind="decision",
        title="Decision 0004: Holdout groups for pricing tests",
        headers=["Decision 0004: Holdout groups for pricing tests", "Decision"],
        text="Every pricing test keeps a 5% holdout group that never sees a variant.",
    )  # fmt: skip
    reviews = make_chunk(
        n=2, source_id="ledger/decisions/0004-second-reviewer.md", kind="decision",
        title="Decision 0004: A second person reviews every reconciliation",
        headers=["Decision 0004: A second person reviews every reconciliation"],
        text="Bank and card reconciliations are reviewed by a second person before the close.",
    )  # fmt: skip
    question = "What does decision 4 say?"
    with hash_retriever(tmp_path, [pricing, reviews]) as retriever:
        named = {pricing.doc_id, reviews.doc_id}
        found = answer(question, hits(pricing, reviews), retriever, named).answer
    assert "5% holdout group" in found and "reviewed by a second person" in found


def test_another_pages_wording_of_the_same_rule_is_the_other_side(tmp_path: Path) -> None:
    """The records policy and the handbook state one retention rule in their own words, with
    different years; the handbook's wording shares few of the question's words, so it scored
    too low to be read as the other side."""
    records = make_chunk(
        n=1, source_id="records-and-security.md", title="Records and security",
        text="Client workpapers and source documents are kept for five years after the "
        "engagement ends, then destroyed and the destruction logged.",
        date=date(2026, 6, 2), time_kind="standing",
    )  # fmt: skip
    handbook = make_chunk(
        n=2, source_id="handbook.md", title="Handbook",
        text="We keep client workpapers and source documents for seven years after the "
        "engagement ends.",
        date=date(2026, 1, 20), time_kind="standing",
    )  # fmt: skip
    question = "ex-client's old bank statements - how many years before we can destroy them?"
    with hash_retriever(tmp_path, [records, handbook]) as retriever:
        found = answer(question, hits(records), retriever)
    assert "seven years" in found.answer
    sides = [{c.value for c in f.claims} for f in found.conflicts]
    assert {"five years", "seven years"} in sides
    # read as the other side by its words, whatever it scores against the question
    said = [Sentence(c.text, n, 0, 0, c) for n, c in enumerate((records, handbook), 1)]
    best, low = Scored(said[0], 0.8, 0.3, 0.6), Scored(said[1], 0.1, 0.1, 0.1)
    assert _restates(low, best)
    log = make_chunk(n=3, text=handbook.text, time_kind="event", date=date(2026, 3, 2))
    assert not _restates(Scored(Sentence(log.text, 3, 0, 0, log), 0.1, 0.1, 0.1), best)


def test_how_much_money_asks_for_an_amount_whatever_word_comes_between() -> None:
    assert read_ask("How much media money went behind the bumper test?").kinds == ("money",)


def test_a_job_moved_to_something_new_makes_what_held_it_old() -> None:
    """ "EB moved the render farm to stratocast render" names no old value; the render farm
    is the job, and what an older text says is the render farm held it."""
    moved = change_in("EB moved the render farm to stratocast render as of today.")
    assert moved.says_change and moved.role == "render farm"
    old = moved.old_in("**Kilnhouse Render** is our cloud render farm, billed per node-hour.")
    assert [v.text for v in old] == ["Kilnhouse Render"]
    assert not moved.old_in("Kinemorph is the editing suite.")  # another job
    assert change_in("We switched our ESP over to Postmarque this week.").role == "esp"


def test_an_amount_the_question_gives_is_a_case_of_the_limit_a_sentence_states() -> None:
    """ "a $7k vendor payment, do I need a second approver?" is answered by the limit ("more
    than $5,000"), which lacks the question's 7; a sentence without a limit still lacks it,
    and so does one that lacks a number the question names a thing by (decision 8)."""
    limit, plain = (
        Sentence(text, 1, 0, 0, make_chunk(n=1, text=text))
        for text in (
            "Any outgoing client payment of more than $5,000 needs a second approver.",
            "Every outgoing client payment needs a second approver.",
        )
    )
    assert not misses_number({"7"}, {"7"}, limit)
    assert misses_number({"7"}, {"7"}, plain)
    assert misses_number({"8"}, set(), limit)


def test_who_left_is_the_old_holder() -> None:
    """A client brief says the contact changed in a parenthesis ("Amos Thackeray left the
    museum in May"): whoever left is the old value; one who left a note or left early is not."""
    left = change_in(
        "Client contact: Delphine Okonkwo-Reyes, director of audience (Amos Thackeray left the "
        "museum in May; Delphine has the project now)."
    )
    assert left.old_text == ("Amos Thackeray",)
    assert {v.text for v in left.old_in("Client contact: Amos Thackeray.")} == {"Amos Thackeray"}
    assert not change_in("Amos left a note for Delphine.").says_change
    assert not change_in("Ravi left early.").says_change


def test_a_number_names_every_record_it_matches_not_only_the_retrieved_one(
    tmp_path: Path,
) -> None:
    """Two series of records each have a decision 4; retrieval found one of them. The
    question names both, so both are read."""
    records = [
        make_chunk(
            n=n,
            source_id=f"{folder}/decisions/0004-{slug}.md",
            kind="decision",
            title=title,
            headers=[title],
            text=text,
            names=sorted(name_keys(title, f"{folder}/decisions/0004-{slug}.md", "decision")),
        )
        for n, folder, slug, title, text in (
            (
                1,
                "fernhill",
                "holdout-groups",
                "Decision 0004: Holdout groups",
                "Every pricing test keeps a 5% holdout group.",
            ),
            (
                2,
                "ledger",
                "second-reviewer",
                "Decision 0004: A second reviewer",
                "Every reconciliation is reviewed by a second person.",
            ),
        )
    ]
    question = "What does decision 4 say?"
    with hash_retriever(tmp_path, records) as retriever:
        found = named_current(
            retriever, retriever.store, "internal", question, SearchFilter(), hits(records[0])
        )
    assert {h.chunk.doc_id for h in found} == {c.doc_id for c in records}
