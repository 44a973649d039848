from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_platform.dating import document_time, stated_review
from knowledge_platform.ingest.chunking import (
    Chunker,
    entries,
    normalize,
    split_sections,
    windows,
)
from knowledge_platform.ingest.tokens import WordPieceCounter
from knowledge_platform.models import Document, chunk_id

COUNTER = WordPieceCounter()


def doc(text: str, **kw) -> Document:
    base = {
        "source": "memory_files",
        "source_id": "a.md",
        "scope": "internal",
        "title": "Notes",
        "kind": "memory",
    }
    return Document(**{**base, **kw, "text": text})


def test_one_chunk_per_h2_section_with_two_header_trail():
    text = "# Top\nintro\n## One\nfirst\n### Deeper\nstill one\n## Two\nsecond\n"
    chunks = Chunker(COUNTER, 256).chunk(doc(text))
    assert [c.headers for c in chunks] == [["Top"], ["Top", "One"], ["Top", "Two"]]
    assert "### Deeper" in chunks[1].text and "still one" in chunks[1].text
    assert chunks[1].embedding_text().startswith("Notes > Top > One\n")


def test_a_daily_log_is_one_chunk_per_entry_a_standing_page_one_per_section():
    log = (
        "# 2026-04-13 daily log\n## Log\n"
        "- Severine presented the Marrowby homepage refresh\n"
        "- Maintenance window moving off Sunday mornings to Tuesdays 21:00\n"
        "  from next week; brunch bookings peak on Sundays\n"
    )
    chunks = Chunker(COUNTER, 256).chunk(doc(log, source_id="memory/2026-04-13.md"))
    assert [c.text for c in chunks] == [
        "- Severine presented the Marrowby homepage refresh",
        "- Maintenance window moving off Sunday mornings to Tuesdays 21:00\n"
        "  from next week; brunch bookings peak on Sundays",
    ]
    assert {c.time_kind for c in chunks} == {"event"}
    assert chunks[1].marks == ["change"]  # the move's entry, not the whole day, is a change
    assert chunks[0].marks == []
    page = Chunker(COUNTER, 256).chunk(doc("## Tools\n- Rankmoor\n- Spidermint\n"))
    assert [c.text for c in page] == ["- Rankmoor\n- Spidermint"]


def test_a_weeks_log_dates_each_day_by_its_heading_without_a_year():
    week = (
        "# Week of 28 December 2026\n## Monday 28 December\nResourcing ran long.\n"
        "## Friday 1 January\n- Office closed.\n### Site visit: Larkspire\nRoof deck checked.\n"
    )
    chunks = Chunker(COUNTER, 256).chunk(
        doc(
            week,
            source_id="memory/2026-12-28.md",
            date=date(2026, 12, 28),
            time_kind="event",
        )
    )
    assert [(c.text, c.date) for c in chunks] == [
        ("Resourcing ran long.", date(2026, 12, 28)),
        ("- Office closed.", date(2027, 1, 1)),  # the year nearest the week's
        ("### Site visit: Larkspire\nRoof deck checked.", date(2027, 1, 1)),
    ]
    # a standing page's "3 May" heading names no day it was said
    page = Chunker(COUNTER, 256).chunk(
        doc("## Launch 3 May\nShip it.\n", date=date(2026, 2, 1), time_kind="standing")
    )
    assert page[0].date == date(2026, 2, 1)


def test_log_entries_are_items_and_paragraphs_and_a_lead_in_leads_its_list():
    text = (
        "Call with Hollin ran long.\nThey want the box in matte.\n\n"
        "Decisions:\n- Priya has Hollin from the 1st\n"
        "1. numbered\n   continued\n\nTail:"
    )
    assert entries(text) == [
        "Call with Hollin ran long.\nThey want the box in matte.",
        "Decisions:\n- Priya has Hollin from the 1st",
        "Decisions:\n1. numbered\n   continued",
        "Tail:",
    ]


def test_a_time_stamped_line_starts_a_log_entry():
    text = (
        '08:24 Sigrun: "Mallowby CRM has 49 open tasks"\n'
        "10:10 — Heads up: Dario now owns Tessellate as of Mon 3 Aug.\n"
        "[14:48] Mallowby asked for UTM training"
    )
    assert entries(text) == text.split("\n")


def test_headings_inside_code_fences_do_not_split():
    sections = split_sections("## A\n```\n## not a heading\n```\ntext\n")
    assert len(sections) == 1
    assert "## not a heading" in sections[0].text


DIRECTORY = """## Clients
Who we work for.

| Client | Account manager | Client contact |
|---|---|---|
| Quillbrook Dairy, yoghurt and butter packaging | Obadiah Tiernan | Ewart Bellamy |
| Corrowyn Skincare, rebrand and cartons | Obadiah Tiernan | Mireille Grocott |
| Dunmere Cider, labels and cans | Briony Tregarthen | Lavinia Stroud |

Keep your rows current.
"""


def test_a_table_of_many_rows_is_chunked_a_few_rows_at_a_time_under_its_header():
    chunks = Chunker(COUNTER, 256).chunk(doc(DIRECTORY))
    texts = [c.text for c in chunks]
    assert texts[0] == "Who we work for."
    assert texts[-1] == "Keep your rows current."
    rows = texts[1:-1]
    assert len(rows) == 3  # each row is over half of ROW_TOKENS: one a chunk
    header = "| Client | Account manager | Client contact |\n|---|---|---|\n"
    assert all(t.startswith(header) for t in rows)
    assert "Mireille Grocott" in rows[1] and "Ewart" not in rows[1]
    assert {c.headers[0] for c in chunks} == {"Clients"}


def test_a_short_table_and_a_log_stay_as_they_were():
    short = "## Tools\n| Tool | Owner |\n|---|---|\n| Figma | Ana |\n| Miro | Bo |\n"
    assert len(Chunker(COUNTER, 256).chunk(doc(short))) == 1  # both rows fit ROW_TOKENS
    # narrow rows share a chunk, a log's table is an entry like any other
    many = short + "".join(f"| Tool{i} | Person{i} |\n" for i in range(30))
    grouped = Chunker(COUNTER, 256).chunk(doc(many))
    assert 1 < len(grouped) < 32
    assert all(c.text.startswith("| Tool | Owner |") for c in grouped)
    log = Chunker(COUNTER, 256).chunk(
        doc(DIRECTORY, date=date(2026, 3, 2), time_kind="event", kind="memory")
    )
    assert not any(c.text.startswith("| Client |") and c.text.count("\n") == 2 for c in log)


def test_long_section_split_within_budget_with_overlap():
    words = [f"w{i}" for i in range(3000)]
    chunks = Chunker(COUNTER, 256).chunk(doc("## Long\n" + " ".join(words)))
    assert len(chunks) > 5
    assert all(c.tokens <= 254 for c in chunks)  # window 256 less [CLS] and [SEP]
    first, second = chunks[0].text.split(), chunks[1].text.split()
    shared = set(first) & set(second)
    assert 0.1 * len(first) < len(shared) < 0.35 * len(first)
    # Nothing lost: every word appears in some chunk.
    seen = {w for c in chunks for w in c.text.split()}
    assert seen == set(words)


def test_openai_sized_budget_caps_at_800_tokens():
    chunker = Chunker(COUNTER, 8191)
    assert chunker.budget("Title", ["A", "B"]) == 800


def test_whole_documents_stay_one_chunk_when_they_fit():
    text = "## Status\nin progress\n## Description\nfix the checkout"
    chunks = Chunker(COUNTER, 256).chunk(doc(text, extra={"chunking": "whole"}))
    assert len(chunks) == 1


def test_chunk_ids_are_deterministic_and_scoped():
    a = Chunker(COUNTER, 256).chunk(doc("## A\nx\n## B\ny"))
    b = Chunker(COUNTER, 256).chunk(doc("## A\nx\n## B\ny"))
    assert [c.id for c in a] == [c.id for c in b]
    assert a[0].id == chunk_id("internal", "memory_files", "a.md", 0)
    assert chunk_id("internal", "s", "1", 0) != chunk_id("acme", "s", "1", 0)


def test_fingerprint_moves_with_provenance_but_content_hash_does_not():
    one = Chunker(COUNTER, 256).chunk(doc("## A\nx", lifecycle="stable"))[0]
    two = Chunker(COUNTER, 256).chunk(doc("## A\nx", lifecycle="deprecated"))[0]
    assert one.content_hash == two.content_hash
    assert one.fingerprint != two.fingerprint


def test_nul_bytes_and_crlf_normalised():
    assert normalize("a\x00b\r\nc\rd") == "ab\nc\nd"


def test_empty_document_yields_title_chunk_only():
    chunks = Chunker(COUNTER, 256).chunk(doc("   \n\n"))
    assert [c.text for c in chunks] == ["Notes"]


@pytest.mark.parametrize("budget", [48, 100, 200])
def test_windows_never_exceed_budget(budget):
    text = "alpha, beta; gamma! " * 500
    for piece in windows(text, COUNTER, budget, 0.2):
        assert COUNTER.count(piece) <= budget


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.text(
            alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FF), min_size=1, max_size=12
        ),
        min_size=1,
        max_size=300,
    )
)
def test_property_no_word_lost_and_sizes_bounded(words):
    text = " ".join(words)
    pieces = list(windows(text, COUNTER, 64, 0.2))
    assert all(COUNTER.count(p) <= 64 for p in pieces)
    joined = " ".join(pieces)
    for word in text.split():
        assert word in joined
    # Duplication bounded by the overlap: total tokens at most ~1/(1-0.2) of the original.
    total = sum(COUNTER.count(p) for p in pieces)
    assert total <= COUNTER.count(text) * 1.3 + 64


def test_a_megabyte_without_spaces_is_capped_by_characters():
    chunks = Chunker(COUNTER, 256).chunk(doc("x" * 1_000_000))
    assert len(chunks) > 100
    assert sum(len(c.text) for c in chunks) == 1_000_000
    assert max(len(c.text) for c in chunks) <= 254 * 16


def test_a_chat_exports_messages_are_dated_by_their_own_stamp():
    """A month of a channel's messages in one undated file: each message is an entry of its
    day (the file named 2026-11.md has no day of its own), a reply stays with its message."""
    month = (
        "# #ops channel — November 2026\n\n"
        "[2026-11-02 08:59] billie: hobbledown pickup for ardwyck crates fri 2pm\n"
        "  ↳ [2026-11-02 09:28] omar: cage doors open\n"
        "[2026-11-02 09:26] briseis: pipeline this monday: $792k weighted\n\n"
        "[2026-11-03 13:30] billie: ardwyck freight booked, 2 trucks thurs 19th 05:00\n"
    )
    chunks = Chunker(COUNTER, 256).chunk(doc(month, source_id="memory/2026-11.md"))
    assert [(c.text, c.date, c.time_kind) for c in chunks] == [
        (
            "[2026-11-02 08:59] billie: hobbledown pickup for ardwyck crates fri 2pm\n"
            "  ↳ [2026-11-02 09:28] omar: cage doors open",
            date(2026, 11, 2),
            "event",
        ),
        (
            "[2026-11-02 09:26] briseis: pipeline this monday: $792k weighted",
            date(2026, 11, 2),
            "event",
        ),
        (
            "[2026-11-03 13:30] billie: ardwyck freight booked, 2 trucks thurs 19th 05:00",
            date(2026, 11, 3),
            "event",
        ),
    ]
    # a page that quotes a stamped line among its prose is no chat export
    page = Chunker(COUNTER, 256).chunk(
        doc("## Incidents\nThe outage began at\n[2026-11-02 08:59] alarm: disk full\nand ended.\n")
    )
    assert page[0].date is None and page[0].time_kind == "standing"


def test_a_journals_entries_are_dated_by_their_headings_and_stamps():
    """An account journal (newest first, "### 3 Nov" under "## 2026") and a task's thread
    ("**Comment — Name · 12 Mar 2026, 14:05**", "· Status changed ... — 2 Apr 2026"), in
    undated files: each entry is an event of the day its heading or stamp names, the heading
    its own."""
    journal = (
        "# Corvane Health — account journal\n\nNewest at the top.\n\n## 2026\n\n"
        "### Tuesday 10 November 2026 — Auralis kickoff\n\nKickoff for the Auralis IFU. — DS\n\n"
        "### 3 Nov\n\nMeridex leaflets delivered, all 6 languages. — DS\n"
    )
    chunks = Chunker(COUNTER, 256).chunk(doc(journal, source_id="journal/corvane.md"))
    assert [(c.headers[-1], c.text, c.date, c.time_kind) for c in chunks] == [
        ("Corvane Health — account journal", "Newest at the top.", None, "standing"),
        (
            "Tuesday 10 November 2026 — Auralis kickoff",
            "Kickoff for the Auralis IFU. — DS",
            date(2026, 11, 10),
            "event",
        ),
        ("3 Nov", "Meridex leaflets delivered, all 6 languages. — DS", date(2026, 11, 3), "event"),
    ]
    task = (
        "# Studio admin\n\nStatus: In progress\n\n## Activity\n\n"
        "· Created by Bea Sandoval — 5 Jan 2026\n\n"
        "**Comment — Daniel Wren · 8 Apr 2026, 12:10**\n\n"
        "Design review moves from Tuesday 4pm to Thursday 10am.\n\n"
        "**Comment — Owen Castellano · 9 Apr 2026, 09:31**\n\nDoes Friday pin-up stay?\n"
    )
    chunks = Chunker(COUNTER, 256).chunk(doc(task, source_id="tasks/studio-admin.md"))
    assert [(c.text, c.date) for c in chunks[1:]] == [
        ("· Created by Bea Sandoval — 5 Jan 2026", date(2026, 1, 5)),
        ("Design review moves from Tuesday 4pm to Thursday 10am.", date(2026, 4, 8)),
        ("Does Friday pin-up stay?", date(2026, 4, 9)),
    ]
    assert chunks[2].headers[-1] == "Comment — Daniel Wren · 8 Apr 2026, 12:10"
    # one dated heading in a standing page is a heading, not a journal
    page = Chunker(COUNTER, 256).chunk(
        doc("## Rates\n\n### Effective 1 July 2026\n\nDay rate $725.\n\n### Notes\n\nNone.\n")
    )
    assert {(c.date, c.time_kind) for c in page} == {(None, "standing")}


def test_a_pages_own_footer_dates_it_as_reviewed():
    """A wiki export dates a page by a footer or header line ("_Last updated: 12 February
    2026 by Rhoswen_", "Page owner: Bea · Reviewed 2026-03-30"), not by a sentence of its
    body; front matter and a dated file name still come first."""
    page = "# Rates\n\n- Tier A: $0.19 a word.\n\n_Last updated: 12 February 2026 by Rhoswen_\n"
    assert stated_review(page) == date(2026, 2, 12)
    assert document_time({}, "rates.md", "Rates", stated=stated_review(page)) == (
        date(2026, 2, 12),
        "standing",
    )
    assert stated_review("# Team\n\nWho we are.\n\nPage owner: Bea · Reviewed 2026-03-30") == date(
        2026, 3, 30
    )
    body = "\n".join(
        ["# Log", "a", "b", "c", "We reviewed the budget on 3 May 2026.", "d", "e", "f"]
    )
    assert stated_review(body) is None
    log = document_time({}, "2026-05-04.md", "Log", stated=date(2026, 5, 1))
    assert log == (date(2026, 5, 4), "event")


def test_a_table_of_weeks_is_dated_row_by_row():
    """A numbers page ("## November 2026", a row a week "| 9 Nov | 248,320 |", the month's
    close after the table): each row is an event of its week under the header row, the close
    is said after the rows it sums, on the latest row's day (before: the page was one undated
    standing text, so no week's figure was last week's)."""
    page = (
        "# Numbers — 2026\n\n## November 2026\n\n| Week of | Words delivered |\n|---|---|\n"
        "| 2 Nov | 231,905 |\n| 9 Nov | 248,320 |\n\nNovember so far: 480,225 words.\n\n"
        "## October 2026\n\n| Week of | Words delivered |\n|---|---|\n| 26 Oct | 219,770 |\n"
        "| 19 Oct | 224,705 |\n\n**October close:** 894,410 words delivered.\n"
    )
    chunks = Chunker(COUNTER, 256).chunk(doc(page, source_id="journal/numbers.md"))
    dated = [(c.date, c.text.split("\n")[-1]) for c in chunks if c.time_kind == "event"]
    assert dated == [
        (date(2026, 11, 2), "| 2 Nov | 231,905 |"),
        (date(2026, 11, 9), "| 9 Nov | 248,320 |"),
        (date(2026, 11, 9), "November so far: 480,225 words."),
        (date(2026, 10, 26), "| 26 Oct | 219,770 |"),
        (date(2026, 10, 19), "| 19 Oct | 224,705 |"),
        (date(2026, 10, 26), "**October close:** 894,410 words delivered."),
    ]
    assert chunks[1].text.startswith("| Week of | Words delivered |\n|---|---|\n")
    # a table of rows that are no days is chunked as before
    rates = Chunker(COUNTER, 256).chunk(
        doc("## Rates\n\n| Role | Rate |\n|---|---|\n| PM | $90 |\n| Designer | $80 |\n")
    )
    assert {(c.date, c.time_kind) for c in rates} == {(None, "standing")}
