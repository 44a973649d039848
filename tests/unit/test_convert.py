"""File conversion on real files built here: each page's, slide's and sheet's text comes out
under its number, and reaches every chunk's header trail through the real Chunker.

The first conversion starts the conversion helper (about a second and a half: it imports
pdfminer, python-docx, python-pptx and openpyxl once); each file after that costs its own
conversion plus ~15 ms."""

from __future__ import annotations

import pytest

from knowledge_platform.convert.api import Converted, convert, locate, supported
from knowledge_platform.ingest.chunking import Chunker
from knowledge_platform.ingest.tokens import WordPieceCounter
from knowledge_platform.models import Document
from tests import office_files

PDF = "application/pdf"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

PAGES = [
    "The statement of work covers the pelican checkout audit for the spring season.",
    "Milestone two delivers the swatch experiment readout and the revenue model. "
    + " ".join(f"deliverable{i} reviewed weekly with the growth team" for i in range(45)),
    "# 3 Fees\nPayment is due within thirty days of each invoice.\n```\nno fence here",
]


def chunks_of(converted: Converted) -> list:
    doc = Document(
        source="drive",
        source_id="f1",
        scope="internal",
        title=converted.name,
        text=converted.markdown,
        kind=converted.kind,
        extra={"mime_type": converted.mime_type},
    )
    return Chunker(WordPieceCounter(), 256).chunk(doc)


def test_pdf_one_section_per_page_with_its_number_in_every_chunk():
    converted = convert(office_files.pdf(PAGES), PDF, "sow.pdf")
    assert (converted.format, converted.kind, converted.units) == ("pdf", "doc", 3)
    assert [(s.unit, s.number) for s in converted.sections] == [("page", n) for n in (1, 2, 3)]
    keys = ["pelican checkout audit", "swatch experiment readout", "thirty days of each invoice"]
    for section, key in zip(converted.sections, keys, strict=True):
        assert key in " ".join(section.text.split())
    assert "pelican" not in converted.sections[1].text + converted.sections[2].text
    chunks = chunks_of(converted)
    # Page 2 is longer than one 256-token window: every one of its chunks still says p. 2.
    pages = [locate(c.headers) for c in chunks]
    assert pages[0] == ("page", 1) and pages[-1] == ("page", 3)
    assert pages[1:-1] == [("page", 2)] * (len(chunks) - 2) and len(chunks) >= 4
    assert all(c.headers == [f"p. {n}"] for c, (_, n) in zip(chunks, pages, strict=True))
    assert "swatch experiment" in chunks[1].text and "deliverable44" in chunks[-2].text
    # Page 3's "# 3 Fees" and ``` are text, not a heading or a fence: page 3 stays one chunk.
    assert "\\# 3 Fees" in chunks[-1].text and "thirty days" in chunks[-1].text
    assert chunks[-1].embedding_text().startswith("sow.pdf > p. 3\n")


def test_pdf_two_columns_read_left_column_first_even_when_drawn_line_by_line():
    left = " ".join(f"left{i}" for i in range(60))
    right = " ".join(f"right{i}" for i in range(60))
    for interleave in (False, True):
        data = office_files.pdf([(left, right)], interleave=interleave)
        words = convert(data, PDF, "two.pdf").sections[0].text.split()
        assert words == left.split() + right.split(), f"interleave={interleave}"


def test_docx_headings_stay_headings_and_tables_become_markdown_tables():
    data = office_files.docx(
        [
            ("title", "Audit report"),
            ("h1", "Findings"),
            ("p", "Checkout lost 12% at shipping."),
            ("h2", "Numbers"),
            ("table", [["metric", "control", "variant"], ["cvr", "2.1%", "2.4|5"]]),
            ("h3", "Caveats"),
            ("p", "# not a heading"),
            ("h1", "Next steps"),
            ("p", "Rerun in March."),
        ]
    )
    converted = convert(data, DOCX, "audit.docx")
    assert converted.kind == "doc" and [s.unit for s in converted.sections] == ["body"]
    md = converted.markdown
    for line in (
        "# Audit report",
        "# Findings",
        "## Numbers",
        "### Caveats",
        "# Next steps",
        "| metric | control | variant |",
        "| cvr | 2.1% | 2.4\\|5 |",
    ):
        assert line in md.split("\n"), line
    chunks = chunks_of(converted)
    by_trail = {tuple(c.headers): c.text for c in chunks}
    assert "| cvr | 2.1% | 2.4\\|5 |" in by_trail[("Findings", "Numbers")]
    assert "\\# not a heading" in by_trail[("Findings", "Numbers")]  # under ### Caveats
    assert "Rerun in March." in by_trail[("Next steps",)]
    assert all(locate(c.headers) is None for c in chunks)


def test_pptx_one_section_per_slide_with_title_body_and_speaker_notes():
    data = office_files.pptx(
        [
            ("Pricing", "Three tiers\nAnnual discount", "Say the price slowly."),
            ("Timeline", "Kickoff in May", ""),
        ]
    )
    converted = convert(data, PPTX, "pitch.pptx")
    assert (converted.kind, converted.units) == ("slide", 2)
    first, second = converted.sections
    assert (first.number, first.title, second.number, second.title) == (1, "Pricing", 2, "Timeline")
    assert "Three tiers\nAnnual discount" in first.text
    assert "Speaker notes:\nSay the price slowly." in first.text
    assert "Speaker notes" not in second.text
    chunks = chunks_of(converted)
    assert [c.headers for c in chunks] == [["Slide 1: Pricing"], ["Slide 2: Timeline"]]
    assert [locate(c.headers) for c in chunks] == [("slide", 1), ("slide", 2)]


def test_xlsx_one_section_per_sheet_header_and_first_100_rows():
    plan = [["test", "owner", "start"]] + [[f"t{i}", "maya", "2026-01-05"] for i in range(150)]
    data = office_files.xlsx({"Plan": plan, "Results": [["test", "lift"], ["t1", 0.25]]})
    converted = convert(data, XLSX, "tests.xlsx")
    assert (converted.kind, converted.units) == ("sheet", 2)
    plan_s, results_s = converted.sections
    assert (plan_s.number, plan_s.title, results_s.number, results_s.title) == (
        1,
        "Plan",
        2,
        "Results",
    )
    lines = plan_s.text.split("\n")
    assert lines[0] == "| test | owner | start |"
    assert "| t99 | maya | 2026-01-05 |" in lines and "| t100 | maya | 2026-01-05 |" not in lines
    assert "_Only the first 100 rows are indexed._" in plan_s.text
    assert converted.notes == ("sheet 1 (Plan): first 100 rows only",)
    assert "| t1 | 0.25 |" in results_s.text
    located = {locate(c.headers) for c in chunks_of(converted)}
    assert located == {("sheet", 1), ("sheet", 2)}


@pytest.mark.parametrize(
    ("mime", "name", "ok"),
    [
        (PDF, "a.pdf", True),
        (DOCX, "a.docx", True),
        ("application/octet-stream", "a.pptx", True),
        ("", "a.XLSX", True),
        ("application/msword", "a.doc", False),
        ("text/plain", "a.pdf", False),
        ("application/octet-stream", "a.zip", False),
    ],
)
def test_supported_types_by_mime_or_by_extension_when_the_mime_is_generic(mime, name, ok):
    assert supported(mime, name) is ok


def test_demo_files_are_what_their_script_builds_and_convert_by_page_and_slide():
    from demo import make_files

    sow = make_files.HERE / "files" / "plant-therapy-sow.pdf"
    deck = make_files.HERE / "files" / "shade-store-q1-review.pptx"
    assert sow.read_bytes() == office_files.pdf(make_files.SOW_PAGES)
    assert deck.read_bytes() == make_files.reproducible_zip(
        office_files.pptx(make_files.REVIEW_SLIDES)
    )
    pages = convert(sow.read_bytes(), PDF, sow.name)
    assert [s.number for s in pages.sections] == [1, 2, 3]
    assert "18,500 USD" in pages.sections[2].text
    slides = convert(deck.read_bytes(), PPTX, deck.name)
    assert [s.title for s in slides.sections][1] == "Swatch ordering test"
    assert "Ship to 100%." in slides.sections[1].text
