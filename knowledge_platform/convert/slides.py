"""PPTX -> one section per slide with python-pptx: the title as the label, then the text of
every shape (groups and tables included) in the slide's order, then the speaker notes."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator

from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pptx.shapes.base import BaseShape

from knowledge_platform.convert.markdown import escape, table
from knowledge_platform.convert.result import Section


def pptx_sections(data: bytes) -> tuple[list[Section], int]:
    """(sections, slide count); every slide gets a section, `_(no text)_` if it has none."""
    deck = Presentation(io.BytesIO(data))
    sections: list[Section] = []
    for number, slide in enumerate(deck.slides, 1):
        title_shape = slide.shapes.title
        title = " ".join(title_shape.text_frame.text.split()) if title_shape is not None else ""
        skip = title_shape.shape_id if title_shape is not None and title else None
        parts = list(_texts(s for s in slide.shapes if s.shape_id != skip))
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            if notes is not None and notes.text.strip():
                parts.append("Speaker notes:\n" + escape(notes.text.strip()))
        text = "\n\n".join(parts) if parts else "_(no text)_"
        sections.append(Section("slide", number, title, text))
    return sections, len(sections)


def _texts(shapes: Iterable[BaseShape]) -> Iterator[str]:
    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            yield from _texts(shape.shapes)  # type: ignore[attr-defined]
        elif getattr(shape, "has_table", False):
            rows = [[c.text for c in row.cells] for row in shape.table.rows]  # type: ignore[attr-defined]
            if rows:
                yield table(rows)
        elif getattr(shape, "has_text_frame", False):
            text = shape.text_frame.text.strip()  # type: ignore[attr-defined]
            if text:
                yield escape(text.replace("\x0b", "\n"))
