"""Round 26 (issue 25): a record's header line of fields dates it and says what it replaces; a
code of hyphened letters names a record; a workspace that writes its days month first is read
so where a file leaves a day open; a month-only review dates a page; a quarter named answers
"this quarter"; a correction without a comma is a statement of change."""

from __future__ import annotations

from datetime import date

from knowledge_platform.connectors.memory_files.connector import (
    MemoryFilesConnector,
    MemoryFilesSettings,
)
from knowledge_platform.dating import (
    CHANGE_CUE,
    document_time,
    header_date,
    header_fields,
    names_quarter_of,
    stated_review,
    usual_order,
    version_date,
)
from knowledge_platform.doc_names import name_keys, names, numbered
from knowledge_platform.ingest.sync import merge_pull
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.relevance import field_labels
from knowledge_platform.serve.answers.sentences import Sentence
from knowledge_platform.supersession import stated_links
from tests.answer_fixtures import answer, hash_retriever, hits
from tests.store_fixtures import chunk_file

BULLETIN = """# PB-05 — Key fob and key replacement charges

Policy bulletin · Issued: 3 Mar 2026 · Owner: Yolanda · Status: Superseded by PB-11 (Oct 2026)

Residents are charged $40 for a replacement entry fob.
"""

SOP = """# SOP-CELLAR-09 — Keg washing (Kegmatic KW2)

| | |
|---|---|
| Effective | 6/8/2026 |
| Status | Active |
| Note | This SOP replaces SOP-CELLAR-04, which is withdrawn along with the old washer. |

## Equipment
Kegmatic KW2 two-head automatic keg washer in the keg bay.
"""


def test_a_header_lines_fields_date_a_record_and_say_what_replaced_it() -> None:
    """ "Issued:" and "Status:" after a separator, and a properties table's rows, were no
    header lines: PB-05 was undated and not superseded, so "pb-05 lost fob charge?" set its
    $40 against PB-11's $55 as a conflict of unknown order."""
    assert header_fields(BULLETIN.split("\n")[2])[1] == "Issued: 3 Mar 2026"
    assert header_fields("| Effective | 6/8/2026 |") == ["Effective: 6/8/2026"]
    assert header_fields("|---|---|") == [] and header_fields("| | |") == []
    assert header_date(BULLETIN) == (date(2026, 3, 3), True)
    assert stated_links(BULLETIN) == {"superseded_by": ["PB-11"]}
    assert stated_links("# PB-11\n\nPolicy bulletin · Issued: 19 Oct 2026 · Replaces PB-05\n") == {
        "supersedes": ["PB-05"]
    }
    assert stated_links(SOP) == {"supersedes": ["SOP-CELLAR-04"]}
    cancels = "# CN-12 — WHW luggage\n\n**Issued:** Tue 6 Oct 2026\n\n**Cancels CN-09.**\n"
    assert stated_links(cancels) == {"supersedes": ["CN-09"]}
    # a replacement told in a sentence of the body is no link
    assert stated_links("# Notes\n\nThe new washer replaces the old one.\n") == {}


def test_a_code_of_hyphened_letters_is_a_records_number() -> None:
    keys = name_keys("SOP-CELLAR-09 — Keg washing", "sop/SOP-CELLAR-09-keg-washing.md", "memory")
    assert "n:sop-cellar:9" in keys
    assert numbered("whats in sop-cellar-09?") == {("sop-cellar", 9)}
    assert names("What does SOP-CELLAR-09 cover?", keys)
    assert not names("What does SOP-CELLAR-04 cover?", keys)
    assert numbered("a follow-up in mid-2026") == set()  # a year is no number


def test_a_day_a_file_leaves_open_is_read_as_its_workspace_writes_days(tmp_path) -> None:
    """6/8/2026 alone reads day first (6 August); a workspace whose files write 11/19/26 and
    9/21/2026 means 8 June. "Effective: 1/12/2026" read day first was a day after today."""
    assert usual_order(["Brew date: 11/19/26", "Effective: 9/21/2026", SOP]) is False
    assert usual_order(["Sent 30/03/2026 - Hector: on site", "10/27/26"]) is None  # one each
    assert document_time({}, "sop.md", None, body=SOP)[0] == date(2026, 8, 6)
    assert document_time({}, "sop.md", None, body=SOP, day_first=False) == (
        date(2026, 6, 8),
        "standing",
    )
    (tmp_path / "B-2026-115.md").write_text("# Batch 115\n\nBrew date: Thu 11/19/26\n")
    (tmp_path / "SOP-CELLAR-11.md").write_text("# SOP-CELLAR-11\n\nEffective: 9/21/2026\n")
    (tmp_path / "SOP-CELLAR-09.md").write_text(SOP)
    connector = MemoryFilesConnector(MemoryFilesSettings(path=tmp_path), "internal")
    docs = {d.source_id: d for d in merge_pull(None, connector.pull(None)).documents}
    assert docs["SOP-CELLAR-09.md"].date == date(2026, 6, 8)
    assert docs["SOP-CELLAR-09.md"].extra["supersedes"] == ["SOP-CELLAR-04"]


def test_a_month_only_review_and_rates_current_as_of_date_a_page() -> None:
    handbook = "# Handbook\n\n*Last reviewed January 2026 (Holly). Next review due January 2027.*\n"
    assert stated_review(handbook) == date(2026, 1, 1)
    hire = "# Private hire\n\n*For the events team. Rates current as of Feb 2, 2026 (Fern).*\n"
    assert stated_review(hire) == date(2026, 2, 2)
    assert version_date("Rev. January 2026 — Kevin Marsh / Dana") == date(2026, 1, 1)
    assert version_date("Rev. 7/10/26 — RD.", day_first=False) == date(2026, 7, 10)
    assert version_date("Version 3.1 (approved March 2026)") == date(2026, 3, 1)


def test_a_quarter_named_is_the_quarter_this_quarter_asks_about() -> None:
    this_quarter = (date(2026, 10, 1), date(2026, 11, 20))
    assert names_quarter_of("Q4 target is 520 bbl.", *this_quarter)
    assert names_quarter_of("Fourth quarter goal: 520", *this_quarter)
    assert not names_quarter_of("That puts Q3 at 497 bbl", *this_quarter)
    # "this quarter" said in the window is the window's quarter; said in the last one, not
    assert names_quarter_of("3 new contracts this quarter", *this_quarter, date(2026, 11, 2))
    assert not names_quarter_of("3 new contracts this quarter", *this_quarter, date(2026, 9, 2))
    assert not names_quarter_of("Q4 target", date(2026, 10, 1), date(2026, 10, 31))  # October


def test_a_correction_without_a_comma_and_a_price_from_a_day_are_changes() -> None:
    said = "Correction: it's 8 cases not 10. Dana and I settled on 8."
    assert CHANGE_CUE.search(said)
    found = change_in("Correction: it's 8 cases not 10.")
    assert found is not None and [v.norm for v in found.old] == ["10"]
    assert [v.norm for v in found.new] == ["8"]
    assert CHANGE_CUE.search("Fern: Dana signed off: from 1 July it's $425 for the 3-hour block.")
    assert not CHANGE_CUE.search("correction: not sure yet")
    assert not CHANGE_CUE.search("The room is open from 1 July to 3 August.")


def test_a_record_asked_what_it_says_about_one_thing_answers_from_that_thing(tmp_path) -> None:
    """ "What does SOP-CELLAR-02 say about repitching yeast?" was answered by the record's
    lead (its purpose, its harvest timing), not its "Before repitching" section."""
    sop = (
        "# SOP-CELLAR-02 — Yeast harvesting and repitching\n\nStatus: Active\n\n"
        "## When to harvest\n7 to 10 days after pitch, once the beer has been crashed.\n\n"
        "## Before repitching\n- **Repitch no further than generation 6.** Generation 7 is a "
        "fresh pitch.\n\n## Storage\nKeep harvested slurry in the cold room at 34F.\n"
    )
    chunks = chunk_file("sop/SOP-CELLAR-02.md", sop, date(2026, 1, 19))
    with hash_retriever(tmp_path, chunks) as retriever:
        got = answer(
            "What does SOP-CELLAR-02 say about repitching yeast?",
            hits(*chunks),
            retriever,
            named={chunks[0].doc_id},
        )
    assert "generation 6" in got.answer
    assert "7 to 10 days" not in got.answer


NOTICE = """# CN-09 — West Highland Way luggage transfers from 2027

**Issued:** Wed 8 Jul 2026 · **By:** Ruaridh MacLeod · **Status:** In force

**Applies to:** West Highland Way departures in the 2027 season.

**Change:** luggage transfers move from Glen Carry Bags to **Loch Linnhe Coaches' luggage
van**, at £9.50 per bag per stage.

**What planners do:** nothing this season.
"""


def test_a_notice_asked_what_it_was_about_answers_with_its_change_not_its_header(
    tmp_path,
) -> None:
    """ "what was cn-09 about?" quoted the notice's header line ("**Issued:** Wed 8 Jul 2026 ·
    **By:** Ruaridh MacLeod · **Status:** In force") and what planners do."""
    assert field_labels("**Issued:** Wed 8 Jul 2026 · **By:** Ruaridh · **Status:** In force")
    assert not field_labels("Rental: $350 for a 3-hour block.")
    title = "CN-09 — West Highland Way luggage transfers from 2027"  # its heading, as read
    chunks = chunk_file("changes/CN-09-whw-luggage.md", NOTICE, date(2026, 7, 8), title=title)
    with hash_retriever(tmp_path, chunks) as retriever:
        for question in ("what was cn-09 about?", "cn-09 - what's that one?"):
            got = answer(question, hits(*chunks), retriever, named={chunks[0].doc_id})
            assert "Loch Linnhe" in got.answer, question
            assert "Ruaridh" not in got.answer, question


def test_a_day_books_lines_are_entries_of_their_day_and_a_report_is_dated_when_reported() -> None:
    book = (
        "# Reception day book — November\n\nDates are day/month.\n\n"
        "18/11 — Till: $4,870.15\n19/11 — Told Rachel.\n19/11 — Till: $5,218.40\n"
    )
    days = {c.date: c.text for c in chunk_file("daybook/2026-11.md", book, date(2026, 11, 1))}
    assert "$5,218.40" in days[date(2026, 11, 19)]
    assert "$5,218.40" not in days.get(date(2026, 11, 18), "")
    report = "# IR-2026-018 — Needlestick injury\n\nReported: 17th November 2026\nStatus: open\n"
    assert header_date(report) == (date(2026, 11, 17), False)  # an event of its day, open or not
    assert header_date("# CR-014\n\nRaised: 28/05/2026\nState: Withdrawn\n") == (
        date(2026, 5, 28),
        True,
    )


def test_a_first_person_sentence_of_a_chat_message_is_its_writers() -> None:
    """ "Who administers Pourtrail?" was not found: "I'm the Pourtrail admin" names no one, and
    the message's writer ("Ben:") opens the sentence before it."""
    message = (
        "Jul 14, 2026 10:30 AM — Ben: TabHouse is out after July 31. I'm the Pourtrail admin, "
        "so logins come to me."
    )
    chat = chunk_file("channel/2026-07.md", f"# Channel\n\n{message}\n", date(2026, 7, 1))[0]
    block = "Ben: TabHouse is out after July 31. I'm the Pourtrail admin, so logins come to me."
    said = Sentence("I'm the Pourtrail admin, so logins come to me.", 1, 0, 1, chat, block)
    assert said.speaker == "Ben"
    assert Sentence("TabHouse is out after July 31.", 1, 0, 0, chat, block).speaker == ""
    # a labelled paragraph of a page that is no chat has no writer
    page = chunk_file("notes.md", "# Notes\n\nNote: I will send it.\n")[0]
    assert Sentence("I will send it.", 1, 0, 0, page, "Note: I will send it.").speaker == ""
