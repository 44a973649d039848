"""PDF, DOCX, PPTX and XLSX files in a docs repository: converted (knowledge_platform.convert)
to the markdown the chunker splits by page, slide or sheet, once per blob — an unchanged blob
keeps the document it gave last time and is never read or converted again."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from knowledge_platform.connectors.base import Skipped
from knowledge_platform.convert.api import Converted, convert
from knowledge_platform.convert.result import Format
from knowledge_platform.convert.settings import FORMAT_MIME, FileSettings
from knowledge_platform.errors import ConversionError
from knowledge_platform.models import Document

#: Provenance key holding the blob a converted document was made from.
BLOB = "blob"


def reusable(known: Mapping[str, Document], path: str, blob: str, head: str) -> Document | None:
    """The document this exact blob gave last time (re-stamped with the new head), if any."""
    doc = known.get(path)
    if doc is None or doc.extra.get(BLOB) != blob:
        return None
    return doc.model_copy(update={"extra": {**doc.extra, "head_sha": head}})


def convert_blob(
    path: str,
    data: bytes,
    fmt: Format,
    files: FileSettings,
) -> tuple[Converted, dict[str, Any]] | Skipped:
    """The converted file and its provenance fields, or why it was skipped."""
    name = PurePosixPath(path).name
    try:
        converted = convert(data, FORMAT_MIME[fmt], name, limits=files.limits())
    except ConversionError as exc:
        return Skipped(source_id=path, reason=str(exc))
    extra = {"file_name": name, "mime_type": converted.mime_type, "units": converted.units}
    return converted, extra
