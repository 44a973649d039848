"""DOCX -> markdown with python-docx: Word's headings as `#` headings (Title and Heading 1
`#`, Heading 2 `##`, ...), list paragraphs as `- ` items, tables as markdown tables, in body
order. Headers, footers, footnotes and text boxes are not read."""

from __future__ import annotations

import io
import re

import docx
from docx.table import Table
from docx.text.paragraph import Paragraph

from knowledge_platform.convert.markdown import escape, table
from knowledge_platform.convert.result import Section

_HEADING_STYLE = re.compile(r"^(?:Heading (\d)|Title)$")


def docx_sections(data: bytes) -> list[Section]:
    """One `body` section: the document's own headings split it for the chunker."""
    document = docx.Document(io.BytesIO(data))
    blocks: list[str] = []
    for block in document.iter_inner_content():
        text = _table(block) if isinstance(block, Table) else _paragraph(block)
        if text:
            blocks.append(text)
    body = "\n\n".join(blocks)
    return [Section("body", None, "", body)] if body.strip() else []


def _paragraph(paragraph: Paragraph) -> str:
    text = " ".join(paragraph.text.split())
    if not text:
        return ""
    level = _heading_level(paragraph)
    if level:
        return "#" * level + " " + text
    if _is_list_item(paragraph):
        return "- " + text
    return escape(text)


def _heading_level(paragraph: Paragraph) -> int:
    """1-6 for a Title/Heading N paragraph (or one styled on them), else 0."""
    style = paragraph.style
    for _ in range(5):  # a custom style based on "Heading 2" is a level-2 heading
        if style is None:
            return 0
        match = _HEADING_STYLE.match(style.name or "")
        if match:
            return min(6, int(match.group(1) or 1))
        style = style.base_style
    return 0


def _is_list_item(paragraph: Paragraph) -> bool:
    ppr = paragraph._p.pPr
    numbered = ppr is not None and ppr.numPr is not None
    name = paragraph.style.name if paragraph.style is not None else ""
    return numbered or (name or "").startswith("List")


def _table(block: Table) -> str:
    rows = []
    for row in block.rows:
        cells, seen = [], None
        for cell in row.cells:  # a merged cell repeats: keep its text once
            cells.append("" if cell._tc is seen else cell.text)
            seen = cell._tc
        rows.append(cells)
    if not any(any(c.strip() for c in row) for row in rows):
        return ""
    return table(rows)
