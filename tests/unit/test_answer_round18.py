"""Round 18 (issue 25): records named by their code ("CR-014", "P-06") and superseded in
their own preamble's words ("Status: Superseded by RFC-10", "Replaces CR-014")."""

from __future__ import annotations

from knowledge_platform.doc_names import name_keys, names, numbered
from knowledge_platform.supersession import code_key, link_successors, stated_links
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
    assert code_key("CR-014 — LED wall") == "#cr-14" and code_key("rfc-04-lettering") == "#rfc-4"
    assert code_key("0007-monthly-reports") is None
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
