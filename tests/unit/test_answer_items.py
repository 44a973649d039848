"""Numbered items a question names (serve/answers/items.py): a numbered list under a heading
that names the kind, a line that names the item, a section headed by it; and which item
supersedes which."""

from __future__ import annotations

from knowledge_platform.models import Chunk, Hit
from knowledge_platform.serve.answers.items import asked, find_item


def hit(text: str, title: str, heading: str, doc: str = "doc", ordinal: int = 0) -> Hit:
    chunk = Chunk(
        source="memory_files",
        source_id=doc,
        scope="internal",
        title=title,
        kind="doc",
        text=text,
        id=f"{doc}-{ordinal}",
        doc_id=doc,
        headers=[title, heading],
        ordinal=ordinal,
    )
    return Hit(chunk=chunk, score=0.0)


PLAYBOOK = hit(
    "1. Revenue is reported from the backend.\n2. Every campaign name follows CLIENT_GOAL.\n"
    "5. Brand search runs everywhere.\n10. Supersedes rule 5: brand search runs only where a "
    "competitor bids.",
    "Brightwick playbook",
    "Rules",
)
DECISIONS = [
    hit("Date: 2026-02-03\nOne approving review is enough.", "Decisions", "D-3 — Code review"),
    hit(
        "Date: 2026-02-19\nStatus: replaced by D-9.\nWe license type per project.",
        "Decisions",
        "D-4 — Font licences",
        ordinal=1,
    ),
    hit(
        "Date: 2026-07-01\nReplaces D-4. Fonts go on a studio licence.",
        "Decisions",
        "D-9 — Studio font licence",
        ordinal=2,
    ),
    hit(
        "Date: 2026-09-22\nTwo approving reviews. This supersedes D-3.",
        "Decisions",
        "D-11 — Code review, again",
        ordinal=3,
    ),
]


def test_the_entry_of_a_numbered_list_under_its_kind_is_the_item() -> None:
    item = find_item("What's playbook rule 2?", [PLAYBOOK])
    assert item is not None and item.text == "Every campaign name follows CLIENT_GOAL."
    assert item.superseded_by is None
    assert find_item("What does rule 11 say?", [PLAYBOOK]) is None


def test_an_item_another_says_it_supersedes_names_that_one() -> None:
    item = find_item("What did rule 5 say?", [PLAYBOOK])
    assert item is not None and item.text == "Brand search runs everywhere."
    assert item.superseded_by is not None and item.superseded_by.label == "Rule 10"


def test_a_section_headed_by_a_lettered_number_is_the_item() -> None:
    old = find_item("What did D-4 decide?", DECISIONS)
    assert old is not None and "license type per project" in old.text
    assert old.superseded_by is not None and old.superseded_by.label == "D-9"
    by_later = find_item("What did D-3 decide?", DECISIONS)
    assert by_later is not None and by_later.superseded_by is not None
    assert by_later.superseded_by.label == "D-11"
    assert asked("What's decision 9?") is not None
    current = find_item("What's decision 9?", DECISIONS)
    assert current is not None and current.number == 9 and current.superseded_by is None


def test_a_list_that_does_not_name_the_kind_holds_no_rule() -> None:
    steps = hit("1. Open the laptop.\n2. Sign in.", "Onboarding", "First day")
    assert find_item("What does rule 2 say?", [steps]) is None
    assert asked("How many tests ran in 2026?") is None
