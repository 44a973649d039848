"""Google Docs/Sheets/Slides content rendered as markdown with one `## ` section per unit.

The chunker cuts at `#` and `##` headings, so: a Doc whose sections all sit deeper (`###`…) has
them raised to `##`, and each page break opens a section; each sheet tab is a `## <tab>`
section; each slide is `## Slide N: <title>` with its speaker notes.
"""

from __future__ import annotations

import re
from typing import Any

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
#: How a page break may appear in an export: a form feed, or an HTML page-break element.
_PAGE_BREAK = re.compile(
    r"^[ \t]*(?:\f|<(?:div|hr|p)\b[^>]*page-break[^>]*>(?:[ \t]*</(?:div|p)>)?)[ \t]*$", re.I
)
_BREAK_MARK = "\x00page-break\x00"


def doc_markdown(markdown: str) -> str:
    """Normalize a Docs markdown export: when the top section level is below `##`, raise the
    headings so it is `##` (a lone leading `#` title stays); page breaks become section
    boundaries (`## Page N` unless the page opens with a `#`/`##` heading)."""
    text = markdown.replace("\r\n", "\n").replace("\r", "\n").replace("\f", f"\n{_BREAK_MARK}\n")
    lines = [_BREAK_MARK if _PAGE_BREAK.match(line) else line for line in text.split("\n")]
    headings: list[tuple[int, int]] = []  # (line index, level)
    fenced = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (m := _HEADING.match(line)):
            headings.append((i, len(m.group(1))))
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    # A single leading H1 is the document's title: keep it, raise the rest.
    title_line = (
        headings[0][0]
        if (headings and headings[0] == (first, 1) and sum(lvl == 1 for _, lvl in headings) == 1)
        else None
    )
    levels = [lvl for i, lvl in headings if i != title_line]
    shift = min(0, 2 - min(levels)) if levels else 0  # raise only, never lower
    for i, level in headings:
        if i != title_line and shift:
            m = _HEADING.match(lines[i])
            lines[i] = "#" * max(2, min(6, level + shift)) + " " + (m.group(2) if m else "")
    pages = "\n".join(lines).split(_BREAK_MARK)
    out = [pages[0].strip("\n")]
    for number, page in enumerate(pages[1:], start=2):
        body = page.strip("\n")
        if not body.strip():
            continue
        opener = _HEADING.match(body.lstrip().split("\n", 1)[0])
        if not (opener and len(opener.group(1)) <= 2):
            body = f"## Page {number}\n\n{body}"
        out.append(body)
    return "\n\n".join(part for part in out if part.strip()) + "\n"


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", "").replace("\n", "<br>")


def sheet_tab_markdown(title: str, rows: list[list[Any]], max_rows: int) -> tuple[str, bool]:
    """One `## <tab>` section: the header row and up to `max_rows` data rows as a table.
    `rows` may hold one row more than that; returns (markdown, truncated)."""
    section = f"## {title.strip() or 'Sheet'}\n\n"
    if not rows:
        return section + "_(empty tab)_\n", False
    data = rows[1 : max_rows + 1]
    truncated = len(rows) > max_rows + 1
    width = max(len(row) for row in [rows[0], *data]) or 1
    header = [_cell(c) for c in rows[0]] + [""] * (width - len(rows[0]))
    header = [h or f"Column {i + 1}" for i, h in enumerate(header)]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * width]
    for row in data:
        cells = [_cell(c) for c in row] + [""] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
    if truncated:
        lines.append(f"\n_Only the first {max_rows} rows are indexed._")
    return section + "\n".join(lines) + "\n", truncated


def quote_sheet_title(title: str) -> str:
    """A1-notation sheet name: always quoted, inner quotes doubled."""
    return "'" + title.replace("'", "''") + "'"


def _text(text: dict[str, Any] | None) -> str:
    if not text:
        return ""
    runs = [
        el["textRun"].get("content", "") for el in text.get("textElements", []) if "textRun" in el
    ]
    joined = "".join(runs).replace("\x0b", "\n")  # vertical tab: a line break in Slides
    return "\n".join(line.rstrip() for line in joined.strip().split("\n"))


def _elements_text(elements: list[dict[str, Any]], skip: set[str]) -> list[str]:
    """Text of shapes, tables and groups in reading order (groups and tables recursed)."""
    parts: list[str] = []
    for element in elements:
        if element.get("objectId") in skip:
            continue
        if "shape" in element:
            text = _text(element["shape"].get("text"))
            if text:
                parts.append(text)
        elif "table" in element:
            rows = [
                [_cell(_text(c.get("text"))) for c in row.get("tableCells", [])]
                for row in element["table"].get("tableRows", [])
            ]
            if rows:
                width = max(len(r) for r in rows)
                table = ["| " + " | ".join(r + [""] * (width - len(r))) + " |" for r in rows]
                table.insert(1, "|" + " --- |" * width)
                parts.append("\n".join(table))
        elif "elementGroup" in element:
            parts.extend(_elements_text(element["elementGroup"].get("children", []), skip))
    return parts


def _title_element(elements: list[dict[str, Any]]) -> dict[str, Any] | None:
    for element in elements:
        placeholder = element.get("shape", {}).get("placeholder", {}).get("type")
        if placeholder in ("TITLE", "CENTERED_TITLE") and _text(element["shape"].get("text")):
            return element
    return None


def _notes(slide: dict[str, Any]) -> str:
    page = slide.get("slideProperties", {}).get("notesPage", {})
    elements = page.get("pageElements", [])
    notes_id = page.get("notesProperties", {}).get("speakerNotesObjectId")
    if notes_id:
        elements = [e for e in elements if e.get("objectId") == notes_id]
    return "\n\n".join(_elements_text(elements, set()))


def slides_markdown(presentation: dict[str, Any]) -> str:
    """One `## Slide N: <title>` section per slide: its text, tables, then speaker notes."""
    sections: list[str] = []
    for number, slide in enumerate(presentation.get("slides", []), start=1):
        elements = slide.get("pageElements", [])
        title_el = _title_element(elements)
        title = " ".join(_text(title_el["shape"].get("text")).split()) if title_el else ""
        skip = {title_el["objectId"]} if title_el else set()
        parts = _elements_text(elements, skip)
        notes = _notes(slide)
        if notes:
            parts.append(f"Speaker notes:\n{notes}")
        heading = f"## Slide {number}: {title}" if title else f"## Slide {number}"
        sections.append(heading + "\n\n" + ("\n\n".join(parts) if parts else "_(no text)_"))
    return "\n\n".join(sections) + "\n"
