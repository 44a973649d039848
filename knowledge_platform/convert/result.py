"""What a conversion yields: sections that each know their page, slide or sheet number, and
the markdown the chunker splits back into exactly those sections.

Every page/slide/sheet becomes a `## <label>` section ("p. 3", "Slide 2: Pricing",
"Sheet 1: Plan"), so the label is the first entry of each of its chunks' `headers` trail and a
citation can say "p. 3"; `locate(chunk.headers)` reads the number back."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from knowledge_platform.models import Kind

Format = Literal["pdf", "docx", "pptx", "xlsx"]
#: A section is a PDF page, a slide, a sheet, or (DOCX) the whole body with its own headings.
Unit = Literal["page", "slide", "sheet", "body"]

_KIND: dict[Format, Kind] = {"pdf": "doc", "docx": "doc", "pptx": "slide", "xlsx": "sheet"}
_LABEL = re.compile(r"^(?:p\. (?P<page>\d+)|Slide (?P<slide>\d+)|Sheet (?P<sheet>\d+))(?::|$)")


@dataclass(frozen=True)
class Section:
    unit: Unit
    #: 1-based page, slide or sheet number (None for a DOCX body).
    number: int | None
    #: The slide's title or the sheet's name ("" for a PDF page and a DOCX body).
    title: str
    #: Markdown that opens no `#`/`##` section of its own (DOCX bodies excepted: their
    #: headings are the document's).
    text: str

    @property
    def label(self) -> str:
        """The heading this section gets; empty for a DOCX body, which keeps its own."""
        if self.unit == "page":
            return f"p. {self.number}"
        if self.unit == "body":
            return ""
        name = "Slide" if self.unit == "slide" else "Sheet"
        return f"{name} {self.number}: {self.title}" if self.title else f"{name} {self.number}"

    def markdown(self) -> str:
        return f"## {self.label}\n\n{self.text}" if self.label else self.text


@dataclass(frozen=True)
class Converted:
    """A file as text. `units` counts every page/slide/sheet of the file, including the ones
    that gave no section (a PDF page with no text); `notes` says what was left out and why."""

    name: str
    mime_type: str
    format: Format
    sections: tuple[Section, ...]
    units: int
    notes: tuple[str, ...] = field(default=())

    @property
    def markdown(self) -> str:
        """The `Document.text` for this file."""
        return "\n\n".join(s.markdown() for s in self.sections) + "\n"

    @property
    def kind(self) -> Kind:
        """The `Document.kind` a file of this format is indexed as."""
        return _KIND[self.format]


def locate(headers: Sequence[str]) -> tuple[Unit, int] | None:
    """(unit, number) of the page, slide or sheet a converted PDF/PPTX/XLSX chunk comes from,
    read from the first entry of its `headers` trail (their sections open no other heading);
    None for a chunk of a DOCX body or of a document that was never converted."""
    match = _LABEL.match(headers[0]) if headers else None
    if match is None:
        return None
    unit = next(k for k, v in match.groupdict().items() if v is not None)
    return unit, int(match.group(unit))  # type: ignore[return-value]
