"""The conversion itself, in the calling process: preflight checks, then the format's
converter. `api.convert` runs this in a limited worker; call it directly only on trusted
files (tests, benchmarks). Each format's parser library is imported on its first file, so a
process that converts nothing (a code location, a run of a source without files) never loads
them."""

from __future__ import annotations

from knowledge_platform.convert.formats import detect
from knowledge_platform.convert.limits import ConvertLimits
from knowledge_platform.convert.preflight import check
from knowledge_platform.convert.result import Converted, Section
from knowledge_platform.errors import ConversionError, CorruptFileError


def convert_here(
    data: bytes, mime_type: str, name: str = "", limits: ConvertLimits | None = None
) -> Converted:
    """`data` as sections; a ConversionError (with the reason) when it must be skipped."""
    limits = limits or ConvertLimits()
    name = name or "file"
    fmt = detect(mime_type, name)
    check(data, fmt, name, limits)
    notes: list[str] = []
    try:
        if fmt == "pdf":
            from knowledge_platform.convert.pdf import pdf_sections

            sections, units, notes = pdf_sections(data, name)
        elif fmt == "docx":
            from knowledge_platform.convert.word import docx_sections

            sections = docx_sections(data)
            units = len(sections)
        elif fmt == "pptx":
            from knowledge_platform.convert.slides import pptx_sections

            sections, units = pptx_sections(data)
        else:
            from knowledge_platform.convert.sheets import xlsx_sections

            sections, units, notes = xlsx_sections(data, limits.max_rows)
    except (ConversionError, MemoryError):
        raise
    except Exception as exc:  # the parsers' own errors on malformed input are many and vary
        raise CorruptFileError(
            f"{name}: could not be read as {fmt.upper()} ({_describe(exc)})"
        ) from None
    return Converted(
        name=name,
        mime_type=mime_type,
        format=fmt,
        sections=tuple(_nonempty(sections)),
        units=units,
        notes=tuple(notes),
    )


def _describe(exc: BaseException) -> str:
    """`Type: message`, and the first cause's when a library wrapped one (openpyxl wraps
    defusedxml's EntitiesForbidden in a ValueError), each cut to one short line."""
    parts = [exc]
    cause = exc.__cause__ or exc.__context__
    if cause is not None:
        parts.append(cause)
    return "; cause ".join(f"{type(e).__name__}: {' '.join(str(e).split())[:120]}" for e in parts)


def _nonempty(sections: list[Section]) -> list[Section]:
    return [s for s in sections if s.text.strip()]
