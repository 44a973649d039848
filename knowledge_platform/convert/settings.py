"""A source's registry settings for files it converts (`files:` under the source): which
types, and what one file may cost (ConvertLimits: the size cap, time, memory...)."""

from __future__ import annotations

import hashlib
from pathlib import PurePosixPath

from pydantic import Field

from knowledge_platform.convert.formats import EXTENSIONS, MIME_TYPES, detect
from knowledge_platform.convert.limits import ConvertLimits
from knowledge_platform.convert.result import Format
from knowledge_platform.errors import UnsupportedFormatError

ALL_FORMATS: tuple[Format, ...] = ("pdf", "docx", "pptx", "xlsx")
#: The MIME type of each format, for sources that know files only by name (git, a sitemap).
FORMAT_MIME: dict[Format, str] = {
    f: next(m for m, g in MIME_TYPES.items() if g == f) for f in ALL_FORMATS
}


class FileSettings(ConvertLimits):
    #: Which file types the source converts and indexes; others are skipped with their type.
    types: list[Format] = Field(default_factory=lambda: list(ALL_FORMATS))

    def format_of_name(self, name: str) -> Format | None:
        """The format a file name's extension says, if this source converts it."""
        found = EXTENSIONS.get(PurePosixPath(name).suffix.lower())
        return found if found in self.types else None

    def format_of(self, mime_type: str, name: str = "") -> Format | None:
        """The format a file's MIME type (or, for a generic type, its name) says, if this
        source converts it."""
        try:
            found = detect(mime_type, name)
        except UnsupportedFormatError:
            return None
        return found if found in self.types else None

    def fingerprint(self) -> str:
        """Changes with any setting: a verdict on a file (too large, macros...) holds only
        under the settings that gave it."""
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:12]

    def limits(self) -> ConvertLimits:
        return ConvertLimits.model_validate(self.model_dump(exclude={"types"}))
