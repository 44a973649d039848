"""Uploaded files in Drive (PDF, DOCX, PPTX, XLSX: the source's `files.types`), converted by
knowledge_platform.convert to markdown with one section per page, slide or sheet. What is
known is compared first, so an unchanged upload is never downloaded or converted twice:

- its `md5Checksum` equals the indexed document's: that document is kept, re-stamped with the
  file's current name, link and `version` (a rename, a move or a share bumps the version);
- its checksum carries a verdict from an earlier run (encrypted, a scan, corrupt...): the
  verdict is said again without a download;
- its listed `size` is over the cap: skipped before any download;
- else `files.get(alt=media)`, reading at most the cap, converted in a limited worker.

Every other type (an image, a zip, a Google Form or Drawing) is not read: `unsupported`
says why, and the connector lists it once as not indexed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from knowledge_platform.connectors.base import Skipped
from knowledge_platform.connectors.google_drive.cursor import FileRecord
from knowledge_platform.connectors.google_drive.fetch import drive_document, drive_extra
from knowledge_platform.connectors.google_drive.tree import KINDS
from knowledge_platform.convert.api import check_size, convert, supported
from knowledge_platform.errors import ConversionError, ConversionLimitError
from knowledge_platform.models import LAST_REFRESHED, STALE, Document

if TYPE_CHECKING:
    from knowledge_platform.connectors.google_drive.api import GoogleApi
    from knowledge_platform.connectors.google_drive.settings import GoogleDriveSettings

GOOGLE_TYPES = "application/vnd.google-apps."
#: Provenance key of the checksum a converted upload was made from.
MD5 = "md5_checksum"


class Uploads:
    def __init__(
        self, api: GoogleApi, config: GoogleDriveSettings, scope: str, known: Mapping[str, Document]
    ) -> None:
        self.api, self.config, self.scope, self.known = api, config, scope, known
        #: file id -> why its current checksum cannot be converted (kept in its record)
        self.verdicts: dict[str, str] = {}

    def unsupported(self, meta: dict[str, Any]) -> str | None:
        """Why a file of this type is not read, or None (Docs, Sheets, Slides, uploads of
        the configured types)."""
        mime, name = meta.get("mimeType", ""), meta.get("name", "")
        if mime in KINDS:
            return None
        if mime.startswith(GOOGLE_TYPES):
            return f"{mime}: no text export"
        if self.config.files.format_of(mime, name) is not None:
            return None
        if supported(mime, name):
            return f"{mime} upload: its type is not in files.types"
        return f"{mime} upload: not a type the converter reads"

    def read(self, meta: dict[str, Any], before: FileRecord | None) -> Document | Skipped:
        """The upload's document, or why it is skipped. GoogleApiError and SourceError (the
        download refused or failing) are the caller's, as for any file."""
        file_id, name = meta["id"], meta.get("name") or meta["id"]
        md5 = meta.get("md5Checksum")
        same = self._reusable(meta)
        if same is not None:
            return same
        if before and md5 and before.md5 == md5 and before.verdict:
            self.verdicts[file_id] = before.verdict
            return Skipped(source_id=file_id, reason=before.verdict)
        limits = self.config.files.limits()
        try:
            check_size(_size(meta), limits, name)
            data = self.api.download(file_id, limits.max_bytes)
            converted = convert(data, meta["mimeType"], name, limits=limits)
        except ConversionError as exc:
            reason = str(exc) if str(exc).startswith(name) else f"{name}: {exc}"
            if not isinstance(exc, ConversionLimitError):  # a time limit may pass next time
                self.verdicts[file_id] = reason
            return Skipped(source_id=file_id, reason=reason)
        extra = {
            **drive_extra(meta),
            "file_name": name,
            "units": converted.units,
            "size": len(data),
        }
        if md5:
            extra[MD5] = md5
        return drive_document(
            meta, self.config, self.scope, kind=converted.kind, text=converted.markdown, extra=extra
        )

    def _reusable(self, meta: dict[str, Any]) -> Document | None:
        """The indexed document of this very content, with the file's current metadata."""
        doc = self.known.get(meta["id"])
        md5 = meta.get("md5Checksum")
        if doc is None or not md5 or doc.extra.get(MD5) != md5:
            return None
        extra = {k: v for k, v in doc.extra.items() if k not in (STALE, LAST_REFRESHED, "drive_id")}
        fresh = drive_document(
            meta,
            self.config,
            self.scope,
            kind=doc.kind,
            text=doc.text,
            extra={**extra, **drive_extra(meta), "file_name": meta.get("name") or meta["id"]},
        )
        return fresh


def _size(meta: dict[str, Any]) -> int | None:
    try:
        return int(meta["size"])
    except (KeyError, TypeError, ValueError):
        return None
