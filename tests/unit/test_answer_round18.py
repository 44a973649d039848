"""Round 18 (issue 25): records named by their code ("CR-014", "P-06") and superseded in
their own preamble's words ("Status: Superseded by RFC-10", "Replaces CR-014"); of a table's
row, the cell that says what the question asks when no column names it."""

from __future__ import annotations

import datetime as dt

from knowledge_platform.doc_names import name_keys, names, numbered, reference
from knowledge_platform.serve.answers.asks import read_ask
from knowledge_platform.serve.answers.conflicts import Statement, asked_cell, disagreement
from knowledge_platform.serve.answers.extractive import _subject
from knowledge_platform.serve.answers.glossary import words
from knowledge_platform.serve.answers.sentences import Sentence, row_cells
from knowledge_platform.serve.when import resolve
from knowledge_platform.supersession import link_successors, stated_links
from tests.unit.test_answer_items import hit
from tests.unit.test_supersession import doc, successors


def test_a_preamble_says_what_replaced_the_record_and_what_it_replaces() -> None:
    withdrawn = "# CR-014 — LED wall\n\nClient: Northwind\nState: Withdrawn — replaced by CR-019\n"
    assert stated_links(withdrawn) == {"superseded_by": ["CR-019"]}
    retired = "# P-04 Heat stress\n\n**Status:** Retired — replaced by P-09\n**Owner:** Priya\n"
    assert stated_links(retired) == {"superseded_by": ["P-09"]}
    rfc = "# RFC-10: Revision sequence\n\nStatus: Accepted\nSupersedes RFC-04\n\n## Summary\n"
    assert stated_links(rfc) == {"supersedes": ["RFC-04"]}
    linked = "# ADR 12\n\nStatus: superseded by [ADR 14](0014-queues.md)\n"
    assert stated_links(linked) == {"superseded_by": ["0014-queues.md"]}
    # a section's lines are not the preamble's, nor is prose naming no record
    assert stated_links("# Rules\n\n## D-4\nStatus: replaced by D-9.\n") == {}
    assert stated_links("# Records\n\nReplaces the records section of older guidance.\n") == {}


def test_a_records_code_resolves_its_successor() -> None:
    assert reference("CR-014") == ("cr", 14) and reference("rfc-04") == ("rfc", 4)
    assert reference("0007-monthly-reports") is None and reference("see ADR 7") is None
    docs = [
        doc("cr/CR-014-led-wall.md", "CR-014 — LED wall", superseded_by=["CR-019"]),
        doc("cr/CR-019-screens.md", "CR-019 — Screens", supersedes=["CR-014"]),
        doc("rfcs/rfc-04-lettering.md", "RFC-04: Lettering"),
        doc("rfcs/rfc-10-sequence.md", "RFC-10: Sequence", supersedes=["RFC-4"]),
    ]
    assert successors(link_successors(docs)) == {
        "cr/CR-014-led-wall.md": "git_docs:cr/CR-019-screens.md",
        "cr/CR-019-screens.md": None,
        "rfcs/rfc-04-lettering.md": "git_docs:rfcs/rfc-10-sequence.md",
        "rfcs/rfc-10-sequence.md": None,
    }


def test_a_question_names_a_record_by_its_code() -> None:
    assert numbered("What did CR-014 ask for?") == {("cr", 14)}
    assert numbered("lanternfall cr-031, what's in it?") == {("cr", 31)}
    assert numbered("our mid-2026 plan") == set()  # a year, not a record's number
    keys = name_keys("P-06 Pesticide application", "policies/P-06-pesticide-application.md", "")
    assert names("What does P-06 require?", keys) and names("rules of p-6?", keys)
    assert not names("What does P-09 say?", keys)
    # a code inside a title's words is no number of the document ("Ford F-250 checklist")
    truck = name_keys("Ford F-250 checklist", "fleet/f250.md", "")
    assert not names("how heavy is the trailer, can the F-250 pull it?", truck)


def test_a_rows_cell_with_a_semicolon_is_one_cell() -> None:
    row = (
        "Client: Corvane Health; What we do for them: IFUs, leaflets; study docs now and then; "
        "Account lead: Dunya Sarkis."
    )
    assert row_cells(row) == [
        ("Client", "Corvane Health"),
        ("What we do for them", "IFUs, leaflets; study docs now and then"),
        ("Account lead", "Dunya Sarkis"),
    ]
    assert row_cells("Note; Client: Corvane Health; Account lead: Dunya Sarkis.") is None


def test_the_row_cell_saying_what_is_asked_is_a_side_of_a_conflict() -> None:
    """No column of the client list is "who approves": the cell that says "approves" is its
    answer, against the client's own page (before: the row named five people, no conflict)."""
    question = "Who at Corvane Health approves our IFU translations?"
    page = Statement(
        "**Approving reviewer (theirs):** Benedikt Sauer, Regulatory Affairs.",
        "Corvane Health > Contacts",
        "Corvane Health",
    )
    row = Statement(
        "Client: Corvane Health (Minneapolis); What we do for them: IFUs, patient leaflets; "
        "clinical study docs now and then; Account lead: Dunya Sarkis; Their main contact: Dr "
        "Halima Ostrander, Regulatory Affairs — approves every IFU before release; Notes: "
        "ISO-audited supplier.",
        "Clients",
        "Clients",
    )
    found = disagreement(question, page, row)
    assert found is not None and (found.a.text, found.b.text) == (
        "Benedikt Sauer",
        "Dr Halima Ostrander",
    )
    # a cell without the asked kind of value is not the row's answer ("Languages: French,
    # German" for what a word of French costs): the row stays whole
    rates = Statement(
        "Tier: Tier A; Languages: French, German, Italian; Rate: $0.19 per word.", "Rates", "Rates"
    )
    asked = "how much do we charge a word for french or german these days?"
    assert asked_cell(asked, rates).text.endswith("Rate: $0.19 per word.")


def test_last_night_is_yesterday() -> None:
    found = resolve("how'd the zba hearing go last night?", dt.date(2026, 11, 20))
    assert found.window is not None
    assert (found.window.start, found.window.end) == (dt.date(2026, 11, 19),) * 2
    assert found.rest == "how'd the zba hearing go?"


def test_names_no_one_passage_gives_together_are_the_most_one_gives() -> None:
    """ "the Germantown ZBA ... the Abernathy variance" (its names Germantown and Abernathy;
    ZBA is Germantown's): the task's comment names Abernathy (its title), a log names
    Germantown; the subject is what the comment names (before: both, which no passage
    names, so no sentence was eligible and the question was refused)."""
    comment = hit("ZBA approved the variance tonight, 4-1.", "Abernathy — ZBA variance", "Log")
    log = hit("Site visit in Germantown for the porch.", "2026-11-02 daily log", "Notes", "log")
    said = [Sentence(h.chunk.text, n, 0, 0, h.chunk) for n, h in enumerate((comment, log), 1)]
    question = "What did the Germantown ZBA decide on the Abernathy variance?"
    assert _subject(question, said) == ["Abernathy"]
    both = hit("Germantown ZBA hearing for Abernathy on Thursday.", "Calendar", "Week", "cal")
    said.append(Sentence(both.chunk.text, 3, 0, 0, both.chunk))
    assert _subject(question, said) == ["Germantown", "Abernathy"]


def test_ok_as_a_verb_asks_who_approves_and_names_no_one() -> None:
    question = "how big can a PO get before I need Imogen to OK it"
    assert read_ask(question).names == ("PO", "Imogen")  # not "OK"
    assert words("Imogen only needs to sign off POs over $5,000") & words(question) >= {"approv"}


def test_a_measure_or_an_identifier_is_the_kind_asked_and_stays_the_subject() -> None:
    weight = read_ask("What's the weight limit on the Kestrelgate loading dock?")
    assert weight.kinds == ("number",) and {"weight", "limit"} <= weight.subject
    assert read_ask("What's the floor area of the extension in square feet?").kinds == ("number",)
    permit = read_ask("What's Ploverdale Borough's MS4 permit number?")
    assert permit.kinds == ("code", "number") and "permit" in permit.subject
    assert read_ask("What's the Aldermoor contract worth?").kinds == ("money",)
