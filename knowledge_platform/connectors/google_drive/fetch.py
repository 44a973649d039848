"""Fetching one Drive file's content: the Docs export, the Sheets and Slides APIs (uploads are
uploads.py's)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from knowledge_platform.connectors.google_drive.render import (
    doc_markdown,
    quote_sheet_title,
    sheet_tab_markdown,
    slides_markdown,
)
from knowledge_platform.connectors.google_drive.tree import KINDS, file_version
from knowledge_platform.models import Document, Kind

if TYPE_CHECKING:
    from knowledge_platform.connectors.google_drive.api import GoogleApi
    from knowledge_platform.connectors.google_drive.settings import GoogleDriveSettings

_SLIDE_FIELDS = (
    "presentationId,title,slides(objectId,pageElements,"
    "slideProperties(notesPage(notesProperties,pageElements)))"
)


def _date(timestamp: str | None) -> dt.date | None:
    try:
        return dt.datetime.fromisoformat(timestamp).date() if timestamp else None
    except ValueError:
        return None


def fetch_document(
    api: GoogleApi, meta: dict[str, Any], config: GoogleDriveSettings, scope: str
) -> Document:
    """The file's content as a Document: Docs exported to markdown, Sheets and Slides read
    through their own APIs. Raises GoogleApiError if Google refuses (e.g. export too large)."""
    file_id, kind = meta["id"], KINDS[meta["mimeType"]]
    extra = drive_extra(meta)
    if kind == "doc":
        raw = api.call(api.files.export(fileId=file_id, mimeType="text/markdown"))
        text = doc_markdown(raw.decode("utf-8", "replace"))
    elif kind == "sheet":
        text = _sheet(api, file_id, config.max_sheet_rows, extra)
    else:
        deck = api.call(api.presentations.get(presentationId=file_id, fields=_SLIDE_FIELDS))
        text = slides_markdown(deck)
        extra["slide_count"] = len(deck.get("slides", []))
    return drive_document(meta, config, scope, kind=kind, text=text, extra=extra)


def drive_extra(meta: dict[str, Any]) -> dict[str, Any]:
    """Provenance every Drive document carries: its MIME type, modified time, shared drive."""
    extra: dict[str, Any] = {
        "mime_type": meta["mimeType"],
        "modified_time": meta.get("modifiedTime"),
    }
    if meta.get("driveId"):
        extra["drive_id"] = meta["driveId"]
    return extra


def drive_document(
    meta: dict[str, Any],
    config: GoogleDriveSettings,
    scope: str,
    *,
    kind: Kind,
    text: str,
    extra: dict[str, Any],
) -> Document:
    """A Drive file's document: its name, link, modified date and Drive `version`."""
    return Document(
        source="google_drive",
        source_id=meta["id"],
        scope=scope,
        title=meta.get("name") or meta["id"],
        text=text,
        kind=kind,
        url=meta.get("webViewLink"),
        date=_date(meta.get("modifiedTime")),
        version=file_version(meta),
        trust=config.trust,
        confidentiality=config.confidentiality,
        extra=extra,
    )


def _sheet(api: GoogleApi, file_id: str, max_rows: int, extra: dict[str, Any]) -> str:
    """Tab names from spreadsheets.get, then header + first rows of every tab at once."""
    info = api.call(
        api.spreadsheets.get(
            spreadsheetId=file_id, fields="sheets.properties(sheetId,title,index,sheetType)"
        )
    )
    titles = [
        s["properties"]["title"]
        for s in info.get("sheets", [])
        if s.get("properties", {}).get("sheetType", "GRID") == "GRID"
    ]
    extra["tabs"] = titles
    if not titles:
        return ""
    values = api.call(
        api.values.batchGet(
            spreadsheetId=file_id,
            majorDimension="ROWS",
            valueRenderOption="FORMATTED_VALUE",
            ranges=[f"{quote_sheet_title(t)}!1:{max_rows + 2}" for t in titles],
        )
    )
    sections, truncated = [], []
    ranges = values.get("valueRanges", [])
    ranges += [{}] * (len(titles) - len(ranges))
    for title, value_range in zip(titles, ranges, strict=True):
        section, cut = sheet_tab_markdown(title, value_range.get("values", []), max_rows)
        sections.append(section)
        if cut:
            truncated.append(title)
    extra["truncated_tabs"] = truncated
    return "\n".join(sections)
