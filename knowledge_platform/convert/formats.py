"""Which files the converter reads, told by MIME type or, when the type is generic, by the
file name's extension."""

from __future__ import annotations

from pathlib import PurePosixPath

from knowledge_platform.convert.result import Format
from knowledge_platform.errors import UnsupportedFormatError

_OOXML = "application/vnd.openxmlformats-officedocument."
#: Keys in lower case: MIME types compare case-insensitively.
MIME_TYPES: dict[str, Format] = {
    "application/pdf": "pdf",
    _OOXML + "wordprocessingml.document": "docx",
    _OOXML + "presentationml.presentation": "pptx",
    _OOXML + "spreadsheetml.sheet": "xlsx",
    # Macro-enabled variants: the same formats; preflight skips them for their macros.
    "application/vnd.ms-word.document.macroenabled.12": "docx",
    "application/vnd.ms-powerpoint.presentation.macroenabled.12": "pptx",
    "application/vnd.ms-excel.sheet.macroenabled.12": "xlsx",
}
EXTENSIONS: dict[str, Format] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".docm": "docx",
    ".pptx": "pptx",
    ".pptm": "pptx",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
}
#: Types that say nothing about the content: the extension decides.
_GENERIC = {
    "",
    "application/octet-stream",
    "binary/octet-stream",
    "application/zip",
    "application/x-zip-compressed",
}


def detect(mime_type: str, name: str = "") -> Format:
    """The format of a file with this MIME type and name; UnsupportedFormatError otherwise."""
    mime = mime_type.split(";", 1)[0].strip().lower()
    if mime in MIME_TYPES:
        return MIME_TYPES[mime]
    suffix = PurePosixPath(name).suffix.lower()
    if mime in _GENERIC and suffix in EXTENSIONS:
        return EXTENSIONS[suffix]
    shown = mime or "no MIME type"
    raise UnsupportedFormatError(
        f"{name or 'file'}: {shown} is not converted (PDF, DOCX, PPTX and XLSX are)"
    )


def supported(mime_type: str, name: str = "") -> bool:
    """Whether `detect` accepts the file: for filtering a listing before downloading."""
    try:
        detect(mime_type, name)
    except UnsupportedFormatError:
        return False
    return True
