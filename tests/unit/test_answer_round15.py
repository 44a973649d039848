"""Round 15 (issue 25): decision records kept in a memory workspace's decisions/ folder are
decisions to a question that names them by number, and a record asked for what it says is
answered with what it decides first, not with whichever of its sentences scores best."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from knowledge_platform.doc_names import name_keys
from knowledge_platform.models import Chunk
from knowledge_platform.serve.answers.asks import fits, known_names, read_ask, written_small
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.items import find_item
from knowledge_platform.serve.answers.sentences import sentences_of
from knowledge_platform.serve.answers.sources import Sources
from knowledge_platform.serve.answers.values import values
from knowledge_platform.serve.references import cue_kinds, named_current
from knowledge_platform.store.base import SearchFilter
from tests.answer_fixtures import answer, hash_retriever, hits
from tests.store_fixtures import make_chunk

PRICING = "fernhill/decisions/0004-holdout-groups.md"
REVIEWS = "ledger/decisions/0004-second-reviewer-on-reconciliations.md"


def _record(n: int, source_id: str, kind: str, title: str, text: str, **extra: object) -> Chunk:
    return make_chunk(
        n=n, source_id=source_id, kind=kind, title=title, text=text,
        names=sorted(name_keys(title, source_id, kind)), **extra,
    )  # fmt: skip


def test_a_memory_workspaces_decisions_folder_holds_numbered_decisions(tmp_path: Path) -> None:
    """The bookkeeping team's records live in their memory workspace (kind "memory"); "decision
    4" named only the git repository's record, the one of kind "decision"."""
    pricing = _record(
        1, PRICING, "decision", "Decision 0004: Holdout groups",
        "Every pricing test keeps a 5% holdout group.",
    )  # fmt: skip
    reviews = _record(
        2, REVIEWS, "memory", "Decision 0004: A second person reviews every reconciliation",
        "Every reconciliation is reviewed by a second person.",
    )  # fmt: skip
    assert "n:decision:4" in name_keys(reviews.title, REVIEWS, "memory")
    assert "n:decision:4" not in name_keys("Team", "ledger/team.md", "memory")
    assert cue_kinds("What does decision 4 say?") == ["decision", "memory"]
    question = "What does decision 4 say?"
    with hash_retriever(tmp_path, [pricing, reviews]) as retriever:
        found = named_current(
            retriever, retriever.store, "internal", question, SearchFilter(), hits(pricing)
        )
    assert {h.chunk.doc_id for h in found} == {pricing.doc_id, reviews.doc_id}


def test_each_record_a_number_names_is_quoted_for_what_it_decides(tmp_path: Path) -> None:
    """Of a one-section record, "Reviews are due by business day 6." scored above the sentence
    that states the decision; of a record that supersedes another, its note of which one came
    first in the file and was quoted as all it decides."""
    pricing = _record(
        1, PRICING, "decision", "Decision 0004: Holdout groups for pricing tests",
        "Every pricing test keeps a 5% holdout group that never sees a variant.",
        headers=["Decision 0004: Holdout groups for pricing tests", "Decision"],
    )  # fmt: skip
    reviews = _record(
        2, REVIEWS, "memory", "Decision 0004: A second person reviews every reconciliation",
        "Bank, card and loan reconciliations are reviewed by a second person, not the preparer, "
        "before the close is signed off. The reviewer initials the reconciliation task in "
        "Tallybook. Reviews are due by business day 6.",
        headers=["Decision 0004: A second person reviews every reconciliation"],
        date=date(2025, 11, 3), time_kind="event",
    )  # fmt: skip
    question = "What does decision 4 say?"
    with hash_retriever(tmp_path, [pricing, reviews]) as retriever:
        named = {pricing.doc_id, reviews.doc_id}
        said = answer(question, hits(pricing, reviews), retriever, named).answer
    assert "5% holdout group" in said and "reviewed by a second person" in said
    assert "business day 6" not in said

    reporting = _record(
        1, "fernhill/decisions/0007-client-reporting-pack.md", "decision",
        "Decision 0007: Client reporting pack",
        "Every client report opens with a one-slide scorecard of the primary KPI.",
        headers=["Decision 0007: Client reporting pack", "Decision"],
    )  # fmt: skip
    payroll = _record(
        2, "ledger/decisions/0007-payroll-changes-signed-form.md", "memory",
        "Decision 0007: Payroll changes need a signed form",
        "Supersedes decision 0003. Payroll changes reach us on the payroll change form, signed "
        "by the client's named approver.",
        headers=["Decision 0007: Payroll changes need a signed form"],
    )  # fmt: skip
    question = "What does decision 7 require?"
    with hash_retriever(tmp_path / "seven", [reporting, payroll]) as retriever:
        named = {reporting.doc_id, payroll.doc_id}
        said = answer(question, hits(reporting, payroll), retriever, named).answer
    assert "payroll change form" in said


def test_a_chat_messages_stamp_is_when_it_was_written_not_what_it_says() -> None:
    """Each message and reply of a thread is a sentence of its own, without its stamp: the
    stamp's 09:28 is no time the thread states, 05:00 is."""
    thread = make_chunk(
        n=1, source_id="memory/2026-11.md", title="#ops channel — November 2026",
        text="[2026-11-03 13:30] billie: ardwyck freight booked, 2 trucks thurs 19th 05:00\n"
        "  ↳ [2026-11-03 13:41] omar: cage doors open from 04:30",
        date=date(2026, 11, 3), time_kind="event",
    )  # fmt: skip
    said = sentences_of(Sources(hits(thread)), hits(thread), 1)
    texts = [s.text for s in said]
    assert "billie: ardwyck freight booked, 2 trucks thurs 19th 05:00" in texts
    assert "omar: cage doors open from 04:30" in texts
    times = {v.norm for s in said for v in values(s.text) if v.kind == "time"}
    assert times == {"05:00", "04:30"}


def test_names_written_in_small_letters_are_names_where_known_as_names() -> None:
    """A channel writes people and clients in small letters. A handle that signs messages is a
    person wherever it is written; a name capitalised elsewhere is one in small letters unless
    it is an English word ("Warehouse" in a table cell, "the warehouse" in a message); the
    handle that signs a message is who wrote it, not what it says."""
    thread = (
        "[2026-08-19 14:40] briseis: heads up: mireya takes over vantcliffe from cuthbert\n"
        "  ↳ [2026-08-19 14:52] mireya: i'll shadow on the connect calls until September 1\n"
        "[2026-11-02 14:58] ptolemy: programming looks in the warehouse tues pm"
    )
    known = known_names([thread, "location: Warehouse; lead: Cuthbert Abiodun", "Vantcliffe"])
    ask = read_ask("who looks after vantcliffe these days?")
    assert fits("briseis: heads up: mireya takes over vantcliffe from cuthbert", ask, known)
    assert not fits("ptolemy: programming looks in the warehouse tues pm", ask, known)
    assert not fits("ptolemy: programming vantcliffe looks", ask, known)  # asked of, signer
    assert [v.norm for v in written_small("billie: ask mireya and the warehouse", known)] == [
        "mireya"
    ]
    # nothing known: no name, unless what it does only a person does (round 19: a word that
    # is no English word taking something over)
    assert not fits("mireya is on the list", ask, frozenset())
    assert fits("mireya takes over", ask, frozenset())
    assert not fits("the system takes over", ask, frozenset())


MANUAL = (
    "**SP-3 Two-person rule.** Nobody works alone on a roadway, in a culvert, on a structure\n"
    "or on the water. Lone work is only allowed in the office.\n\n"
    "**SP-4 Fall protection (superseded by SP-11).** Harness and lanyard whenever you are working\n"
    "more than 6 feet above a lower level.\n\n"
    "**SP-11 Fall protection (supersedes SP-4).** Fall protection is required at 4 feet or more.\n"
)
STANDARDS = (
    "**S3.** Speaker decks are delivered in 16:9 to the speaker-ready room by 17:00 the day "
    "before.\n\n**S9 — replaces S3.** Speaker decks are uploaded to the presenter portal no later\n"
    "than 72 hours before the session.\n"
)


def test_items_named_by_letters_with_a_title_in_bold_and_wrapped_lines() -> None:
    """A safety manual numbers its procedures "SP-3" and gives each a bold title; production
    standards are "S9" without a hyphen. Each item is its whole paragraph, not its first line,
    and one that says it is superseded names its successor."""
    manual = make_chunk(n=1, source_id="safety-manual.md", title="Field safety manual", text=MANUAL)
    standards = make_chunk(
        n=2, source_id="production-standards.md", title="Production standards", text=STANDARDS
    )
    three = find_item("What does SP-3 say?", hits(manual))
    assert three is not None and three.label == "SP-3"
    assert three.text.startswith("Two-person rule. Nobody works alone")
    assert "Lone work is only allowed in the office." in three.text
    four = find_item("What was SP-4 about?", hits(manual))
    assert four is not None and "more than 6 feet" in four.text
    assert four.superseded_by is not None and four.superseded_by.number == 11
    nine = find_item("What does S9 decide?", hits(standards))
    assert nine is not None and "72 hours before the session" in nine.text and "**" not in nine.text
    three = find_item("What was standard S3 about?", hits(standards))
    assert three is not None and three.superseded_by is not None
    assert three.superseded_by.number == 9
    assert find_item("what is in the s3 bucket?", hits(standards)) is None  # not in capitals


def test_a_contingency_or_a_markup_is_a_share_or_an_amount() -> None:
    """ "What contingency do we put on client budgets?" asked for an amount or a duration (of
    "budgets"), so "8% contingency on production costs" held no asked value."""
    for question in (
        "What contingency do we put on client budgets?",
        "how much contingency goes on a budget now",
        "What markup do we add to freelancer invoices?",
    ):
        ask = read_ask(question)
        assert "percent" in ask.kinds, question
        assert fits("Every client budget carries 8% contingency on production costs.", ask)
    assert "conting" in read_ask("What contingency do we put on client budgets?").subject


def test_what_we_are_off_and_what_is_old_are_the_old_values() -> None:
    """Hurried logs say a change without "from ... to": "we're off frameproof" (a name in
    small letters that is no English word), "the 8% on the rate card is old"."""
    off = change_in("DECISION: we're off frameproof. all client review links go through cuepost")
    assert off.old_text == ("frameproof",)
    assert change_in("we're off it for now").old_text == ()  # no name: nothing is old
    stale = change_in(
        "heads up: as of 1 Oct it's 10% contingency on every budget we send out. the 8% on the "
        "rate card is old, i'll fix it"
    )
    assert [v.norm for v in stale.old] == ["8%"] and "10%" in [v.norm for v in stale.new]
    assert change_in("the kickoff deck is old news to them").old == ()  # no value in it
