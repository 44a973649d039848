"""The Google fake's files and the Drive v3, Sheets v4 and Slides v1 endpoints that read them."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any

from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Request, Response

from tests.fakes.google_query import QueryError, parse_query, parse_range, slide_json

FOLDER = "application/vnd.google-apps.folder"
DOC = "application/vnd.google-apps.document"
SHEET = "application/vnd.google-apps.spreadsheet"
SLIDES = "application/vnd.google-apps.presentation"
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
    version: int = 1
    trashed: bool = False
    drive_id: str | None = None
    markdown: str = ""
    tabs: dict[str, list[list[str]]] = field(default_factory=dict)
    slides: list[dict[str, Any]] = field(default_factory=list)
    #: (status, reason, message) returned by files.export / content calls for this file.
    export_error: tuple[int, str, str] | None = None

    def resource(self) -> dict[str, Any]:
        kind = {DOC: "document", SHEET: "spreadsheets", SLIDES: "presentation"}.get(
            self.mime_type, "drive/folders"
        )
        data: dict[str, Any] = {
            "kind": "drive#file",
            "id": self.id,
            "name": self.name,
            "mimeType": self.mime_type,
            "parents": list(self.parents),
            "trashed": self.trashed,
            "version": str(self.version),
            "modifiedTime": self.modified.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "webViewLink": f"https://docs.google.com/{kind}/d/{self.id}/edit",
        }
        if self.drive_id:
            data["driveId"] = self.drive_id
        return data


class GoogleApiError(HTTPException):
    def __init__(self, status: int, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.status, self.message, self.reason = status, message, reason or _STATUS[status]

    def get_response(self, environ: Any = None, scope: Any = None) -> Response:
        error: dict[str, Any] = {
            "code": self.status,
            "message": self.message,
            "status": _STATUS.get(self.status, "UNKNOWN"),
        }
        error["errors"] = [{"domain": "global", "reason": self.reason, "message": self.message}]
        return json_response({"error": error}, self.status)


def json_response(data: Any, status: int = 200) -> Response:
    return Response(json.dumps(data), status=status, mimetype="application/json")


class ContentApi:
    """Drive, Sheets and Slides handlers, mixed into the server; they read `self.files` and
    `self.changes` (file ids; position + 1 is the Drive change page token)."""

    files: dict[str, FakeFile]
    changes: list[str]

    # Drive --------------------------------------------------------------------------------
    def _visible(self, file: FakeFile, request: Request) -> bool:
        args = request.args
        if file.drive_id and not (
            args.get("supportsAllDrives") == "true"
            and args.get("includeItemsFromAllDrives") == "true"
        ):
            return False
        if args.get("corpora") == "drive":
            return file.drive_id == args.get("driveId")
        return True

    def _file(self, file_id: str, request: Request, all_drives: bool = True) -> FakeFile:
        file = self.files.get(file_id)
        shared_ok = not all_drives or request.args.get("supportsAllDrives") == "true"
        if file is None or (file.drive_id and not shared_ok):
            raise GoogleApiError(404, f"File not found: {file_id}.", "notFound")
        return file

    def _files_list(self, request: Request) -> Response:
        try:
            predicate = (
                parse_query(request.args.get("q", ""))
                if request.args.get("q")
                else (lambda f: True)
            )
        except QueryError as exc:
            raise GoogleApiError(400, str(exc), "invalid") from exc
        matches = [
            f.resource()
            for f in sorted(self.files.values(), key=lambda f: f.id)
            if self._visible(f, request) and f.id != f.drive_id
        ]
        matches = [r for r in matches if predicate(r)]
        size = min(int(request.args.get("pageSize", 100)), 1000)
        start = int(request.args.get("pageToken", "p0")[1:])
        body: dict[str, Any] = {
            "kind": "drive#fileList",
            "incompleteSearch": False,
            "files": matches[start : start + size],
        }
        if start + size < len(matches):
            body["nextPageToken"] = f"p{start + size}"
        return json_response(body)

    def _files_get(self, request: Request, file_id: str) -> Response:
        return json_response(self._file(file_id, request).resource())

    def _files_export(self, request: Request, file_id: str) -> Response:
        file = self._file(file_id, request, all_drives=False)  # export has no such flag
        self._content_error(file)
        if file.mime_type != DOC or request.args.get("mimeType") != "text/markdown":
            raise GoogleApiError(400, "Export only supports Docs Editors files.", "badRequest")
        return Response(file.markdown.encode(), mimetype="text/markdown")

    def _start_token(self, request: Request) -> Response:
        return json_response(
            {"kind": "drive#startPageToken", "startPageToken": str(len(self.changes) + 1)}
        )

    def _changes_list(self, request: Request) -> Response:
        token = request.args.get("pageToken", "")
        if not token.isdigit() or not 1 <= int(token) <= len(self.changes) + 1:
            raise GoogleApiError(400, f"Invalid Value: pageToken {token!r}", "invalid")
        start, size = int(token) - 1, min(int(request.args.get("pageSize", 100)), 1000)
        out = []
        for file_id in self.changes[start : start + size]:
            file = self.files.get(file_id)
            if file and not self._visible(file, request):
                continue
            change: dict[str, Any] = {
                "kind": "drive#change",
                "changeType": "file",
                "fileId": file_id,
                "removed": file is None,
            }
            if file:
                change["file"] = file.resource()
            out.append(change)
        body: dict[str, Any] = {"kind": "drive#changeList", "changes": out}
        if start + size < len(self.changes):
            body["nextPageToken"] = str(start + size + 1)
        else:
            body["newStartPageToken"] = str(len(self.changes) + 1)
        return json_response(body)

    def _content_error(self, file: FakeFile) -> None:
        if file.export_error:
            status, reason, message = file.export_error
            raise GoogleApiError(status, message, reason)

    def _typed(self, file_id: str, mime: str, request: Request) -> FakeFile:
        file = self.files.get(file_id)
        if file is None or file.mime_type != mime:
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
