"""The Google fake's files, Google's error shape, and the Sheets v4 and Slides v1 endpoints."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Request, Response

from tests.fakes.google_query import QueryError, parse_range, slide_json

FOLDER = "application/vnd.google-apps.folder"
DOC = "application/vnd.google-apps.document"
SHEET = "application/vnd.google-apps.spreadsheet"
SLIDES = "application/vnd.google-apps.presentation"
SHORTCUT = "application/vnd.google-apps.shortcut"
EPOCH = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC)
_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


@dataclass
class FakeFile:
    id: str
    name: str
    mime_type: str
    parents: list[str]
    modified: dt.datetime
    #: Drive's `version`: bumped by every change, even ones that leave modifiedTime alone.
    version: int = 1
    #: Trashed explicitly (a file below a trashed folder is trashed too; see DriveApi).
    trashed: bool = False
    drive_id: str | None = None
    markdown: str = ""
    tabs: dict[str, list[list[str]]] = field(default_factory=dict)
    slides: list[dict[str, Any]] = field(default_factory=list)
    #: An uploaded (non-Google) file's bytes, served by files.get?alt=media.
    data: bytes = b""
    shortcut_target: str | None = None
    #: False once the user lost access: the file is gone for them (changes say `removed`).
    accessible: bool = True
    #: Deleted under us: still in the listing the connector already holds, 404 everywhere.
    vanished: bool = False
    #: (status, reason, message) returned by files.export / content calls for this file.
    export_error: tuple[int, str, str] | None = None

    @property
    def native(self) -> bool:
        return self.mime_type.startswith("application/vnd.google-apps.")

    def resource(self, trashed: bool) -> dict[str, Any]:
        """Every field Drive v3 has for this file (the server applies `fields`)."""
        link = {
            DOC: "https://docs.google.com/document/d/{}/edit",
            SHEET: "https://docs.google.com/spreadsheets/d/{}/edit",
            SLIDES: "https://docs.google.com/presentation/d/{}/edit",
            FOLDER: "https://drive.google.com/drive/folders/{}",
        }.get(self.mime_type, "https://drive.google.com/file/d/{}/view")
        data: dict[str, Any] = {
            "kind": "drive#file",
            "id": self.id,
            "name": self.name,
            "mimeType": self.mime_type,
            "parents": list(self.parents),
            "trashed": trashed,
            "explicitlyTrashed": self.trashed,
            "version": str(self.version),
            "modifiedTime": self.modified.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "webViewLink": link.format(self.id),
        }
        if self.drive_id:
            data["driveId"] = self.drive_id
        if not self.native:
            data["size"] = str(len(self.data))
            data["md5Checksum"] = hashlib.md5(self.data).hexdigest()
        if self.shortcut_target:
            data["shortcutDetails"] = {"targetId": self.shortcut_target}
        return data


class GoogleApiError(HTTPException):
    def __init__(
        self, status: int, message: str, reason: str = "", headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.reason = status, message, reason or _STATUS[status]
        self.headers = headers or {}

    def get_response(self, environ: Any = None, scope: Any = None) -> Response:
        error: dict[str, Any] = {
            "code": self.status,
            "message": self.message,
            "status": _STATUS.get(self.status, "UNKNOWN"),
        }
        domain = "usageLimits" if "RateLimit" in self.reason else "global"
        error["errors"] = [{"domain": domain, "reason": self.reason, "message": self.message}]
        response = json_response({"error": error}, self.status)
        response.headers.update(self.headers)
        return response


def json_response(data: Any, status: int = 200) -> Response:
    return Response(json.dumps(data), status=status, mimetype="application/json")


class ContentApi:
    """Sheets and Slides handlers, mixed into the server; they read `self.files`."""

    files: dict[str, FakeFile]

    def _content_error(self, file: FakeFile) -> None:
        if file.export_error:
            status, reason, message = file.export_error
            raise GoogleApiError(status, message, reason)

    def _typed(self, file_id: str, mime: str, request: Request) -> FakeFile:
        file = self.files.get(file_id)
        if file is None or file.vanished or not file.accessible or file.mime_type != mime:
            raise GoogleApiError(404, "Requested entity was not found.", "notFound")
        self._content_error(file)
        return file

    def _sheet_get(self, request: Request, file_id: str) -> Response:
        file = self._typed(file_id, SHEET, request)
        sheets = [
            {
                "properties": {
                    "sheetId": i,
                    "title": title,
                    "index": i,
                    "sheetType": "GRID",
                    "gridProperties": {"rowCount": max(1000, len(rows)), "columnCount": 26},
                }
            }
            for i, (title, rows) in enumerate(file.tabs.items())
        ]
        return json_response(
            {"spreadsheetId": file_id, "properties": {"title": file.name}, "sheets": sheets}
        )

    def _value_range(self, file: FakeFile, a1: str) -> dict[str, Any]:
        try:
            title, first, last = parse_range(a1)
        except QueryError as exc:
            raise GoogleApiError(400, str(exc), "badRequest") from exc
        if title not in file.tabs:
            raise GoogleApiError(400, f"Unable to parse range: {a1}", "badRequest")
        rows = [list(r) for r in file.tabs[title][first - 1 : last]]
        for row in rows:  # Google omits trailing empty cells and trailing empty rows
            while row and row[-1] in ("", None):
                row.pop()
        while rows and not rows[-1]:
            rows.pop()
        body: dict[str, Any] = {"range": a1, "majorDimension": "ROWS"}
        if rows:
            body["values"] = rows
        return body

    def _values_get(self, request: Request, file_id: str, a1: str) -> Response:
        return json_response(self._value_range(self._typed(file_id, SHEET, request), a1))

    def _values_batch(self, request: Request, file_id: str) -> Response:
        file = self._typed(file_id, SHEET, request)
        ranges = [self._value_range(file, a1) for a1 in request.args.getlist("ranges")]
        return json_response({"spreadsheetId": file_id, "valueRanges": ranges})

    def _presentation_get(self, request: Request, file_id: str) -> Response:
        file = self._typed(file_id, SLIDES, request)
        return json_response(
            {
                "presentationId": file_id,
                "title": file.name,
                "revisionId": f"rev{file.version}",
                "slides": [slide_json(i, s) for i, s in enumerate(file.slides, 1)],
            }
        )
