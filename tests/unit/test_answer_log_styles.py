"""Round 9's hand-written logs (issue 25): a studio's prose notes by meeting and a
consultancy's time-stamped chat paste say changes their own way ("From 1 September, Briony
has the Quillbrook account; Obadiah is off it", "Ysmay moves across", "New rate: $1,150/mo,
was $890"); a client directory is a markdown table; "studio utilisation" is the workplace's
own figure; a size asks for a figure, and a score's cut-off is not a day."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from knowledge_platform.dating import CHANGE, marks
from knowledge_platform.serve.answers.asks import read_ask
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.glossary import abbreviated, synonyms, words
from knowledge_platform.serve.answers.sentences import split_sentences
from knowledge_platform.serve.question import without_workplace
from tests.answer_fixtures import answer, hash_retriever, hits
from tests.store_fixtures import make_chunk

DIRECTORY = (
    "| Client | What we do for them | Account manager | Client contact |\n"
    "|---|---|---|---|\n"
    "| Quillbrook Dairy | yoghurt and butter packaging | Obadiah Tiernan | Ewart Bellamy |\n"
    "| Stoatley Chocolate | bar wrappers | Briony Tregarthen | Marta Ghiselin |"
)
HANDOVER = (
    "From 1 September, Briony has the Quillbrook account; Obadiah is off it and picks up "
    "more of Elmsworth with Ingrid."
)


def test_prose_and_chat_logs_state_changes_their_own_way() -> None:
    assert CHANGE in marks(HANDOVER)
    assert change_in(HANDOVER).old_text == ("Obadiah",)
    assert [v.text for v in change_in(HANDOVER).old_in("Account manager: Obadiah Tiernan.")] == [
        "Obadiah"
    ]
    moved = "10:10 — Dario now owns Tessellate as of Mon 3 Aug. Ysmay moves across to Hollowfen."
    assert change_in(moved).old_text == ("Ysmay",)
    rate = "09:55 — Datavein renewal landed. New rate: $1,150/mo, was $890."
    assert CHANGE in marks(rate)
    assert [v.text for v in change_in(rate).old] == ["$890"]
    # "was" before a word, or a range "from 10 to 12", is no change
    assert not change_in("She said it was a quiet week, was it not?").says_change
    assert CHANGE not in marks("We met from 10 to 12, then lunch.")


def test_who_takes_a_role_makes_its_holder_before_old() -> None:
    takes = change_in(
        "Thaddeus Mbeki starts today as client support lead, takes the helpdesk back from Rohan"
    )
    assert takes.role == "client support lead" and takes.new_text == ("Thaddeus Mbeki",)
    assert [v.text for v in takes.old_in("Kofi Brannagh: client support lead (helpdesk)")] == [
        "Kofi Brannagh"
    ]
    assert not takes.old_in("Kofi Brannagh: head of hosting")  # another role
    assert not takes.old_in("Thaddeus Mbeki: client support lead")  # the taker himself
    assert change_in("Ines is now head of design.").role == "head of design"
    lead = change_in("Dario is now our lead.")
    assert [v.text for v in lead.old_in("Lead: Ysolde Varga.")] == ["Ysolde Varga"]
    assert not lead.old_in("Ysolde Varga leads the leadership offsite.")  # the word, not a part


def test_a_table_row_is_a_sentence_that_names_its_columns() -> None:
    rows = split_sentences(f"Who looks after whom.\n\n{DIRECTORY}")
    assert rows == [
        "Who looks after whom.",
        "Client: Quillbrook Dairy; What we do for them: yoghurt and butter packaging; "
        "Account manager: Obadiah Tiernan; Client contact: Ewart Bellamy.",
        "Client: Stoatley Chocolate; What we do for them: bar wrappers; "
        "Account manager: Briony Tregarthen; Client contact: Marta Ghiselin.",
    ]


def test_a_hand_over_in_prose_supersedes_the_directory_row(tmp_path: Path) -> None:
    directory = make_chunk(
        n=1, source_id="clients.md", title="Client directory", text=DIRECTORY,
        date=date(2026, 2, 23), time_kind="standing",
    )  # fmt: skip
    log = make_chunk(
        n=2, source_id="memory/2026-08-24.md", title="Monday 2026-08-24", headers=["Standup"],
        text=HANDOVER, date=date(2026, 8, 24), time_kind="event", marks=marks(HANDOVER),
    )  # fmt: skip
    question = "Who is the account manager for Quillbrook Dairy?"
    with hash_retriever(tmp_path, [directory, log]) as retriever:
        found = answer(question, hits(directory, log), retriever)
    body = found.answer
    assert "Briony has the Quillbrook account" in body
    assert body.index("Briony has the Quillbrook account") < body.index("Obadiah Tiernan")
    old = next(c for c in found.citations if c.source_id == "clients.md")
    new = next(c for c in found.citations if c.source_id == "memory/2026-08-24.md")
    assert old.superseded_by == new.doc_id or any(f.newer == new.number for f in found.conflicts)


def test_a_size_asks_for_a_figure_and_a_scores_cut_off_is_not_a_day() -> None:
    assert "number" in read_ask("What's the smallest type size allowed on a pack?").kinds
    assert "number" in read_ask("min point size for legal copy on packaging?").kinds
    assert read_ask("What is the largest client?").kinds == ()
    assert "date" not in read_ask("What's the lead scoring cut-off for an MQL?").kinds
    assert "date" in read_ask("What's the cut-off for expense claims?").kinds
    assert "MQL" in abbreviated("What's the scoring cut-off for marketing-qualified?")
    assert {"threshold", "mql"} <= words("the cut-off for marketing-qualified leads")
    assert "printer" in words("Stoatley's advent calendar went to press at Hexley today")
    assert "join" in words("Florian Quist's first morning with us.")
    assert "minimum" in words("the smallest type size") and "minimum" not in words("a 30 min call")


def test_the_kind_of_workplace_is_as_unsaid_as_its_name() -> None:
    assert without_workplace("What was studio utilisation last week?", []) == (
        "What was utilisation last week?"
    )
    assert without_workplace("Who leads design at the studio?", []) == "Who leads design?"
    # the studio as the subject, or a page of it, stays
    assert without_workplace("What does the studio pay for Figma?", []) == (
        "What does the studio pay for Figma?"
    )
    assert without_workplace("Where do studio files live?", []) == "Where do studio files live?"
    # who joined the studio is who joined: a first morning's log line never says "studio"
    assert without_workplace("Who joined the studio?", []) == "Who joined?"
    assert read_ask("Who joined the studio?").subject == {"join"}
    assert without_workplace("Who joined the practice?", []) == "Who joined?"
    # a ratio is a figure: "Ulric gives the week's chargeable ratio" does not answer it
    assert "percent" in read_ask("What chargeable ratio did Ulric give at the wrap?").kinds


def test_any_new_starters_asks_who_they_are() -> None:
    ask = read_ask("any new starters?")
    assert ask.kinds == ("person",) and ask.subject == {"starter"}
    assert read_ask("Were there any new hires?").kinds == ("person",)
    assert "join" in synonyms("any new starters?") and "first" in synonyms("any new starters?")
