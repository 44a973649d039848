"""The Google fake's Drive v3 endpoints: files.list, files.get, files.export, changes.

Written from Drive's reference pages and guides, not from our connector:
- `fields` selects the response (partial response); without it each method answers its
  default set (a file: kind, id, name, mimeType).
- `corpora`: `user` (the default) is the user's own corpus and leaves shared-drive files out;
  `drive` needs `driveId` with `includeItemsFromAllDrives=true` and `supportsAllDrives=true`;
  `allDrives` may come back with `incompleteSearch: true` and results missing (here: always
  when a shared drive exists, unless `all_drives_incomplete` is cleared).
- `pageSize` is a maximum: "partial or empty result pages are possible even before the end";
  only an absent `nextPageToken` ends a listing (`page_cap` and `short_pages` below).
- Trashed files are listed unless `q` says `trashed=false`; a file below a trashed folder
  is trashed too (`trashed: true`, `explicitlyTrashed: false`).
- Each user and each shared drive keeps its own change log (`changes.list` with `driveId`);
  a change is the item's current state; a file deleted or no longer accessible shows as
  `removed: true` without a `file`; a file that moves to another corpus shows `removed` in
  the log it left. Trashing or deleting a folder logs the folder only (its descendants'
  state follows from their parents) — the strict reading.
- files.export: 403 `fileNotExportable` for an uploaded file, 403 `exportSizeLimitExceeded`
  over the export cap; files.get `alt=media`: 403 `fileNotDownloadable` for Google files.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from werkzeug.wrappers import Request, Response

from tests.fakes.google_content import DOC, FakeFile, GoogleApiError, json_response
from tests.fakes.google_query import (
    Mask,
    QueryError,
    apply_fields,
    parents_in,
    parse_fields,
    parse_query,
)

_FILE_DEFAULT: Mask = {"kind": None, "id": None, "name": None, "mimeType": None}
_LIST_DEFAULT: Mask = {
    "kind": None,
    "incompleteSearch": None,
    "nextPageToken": None,
    "files": _FILE_DEFAULT,
}
_CHANGES_DEFAULT: Mask = {
    "kind": None,
    "nextPageToken": None,
    "newStartPageToken": None,
    "changes": {
        "kind": None,
        "changeType": None,
        "time": None,
        "removed": None,
        "fileId": None,
        "driveId": None,
        "file": _FILE_DEFAULT,
    },
}
_EXPORTS = ("text/markdown", "text/plain")


@dataclass(frozen=True)
class ChangeEntry:
    """One entry of a change log: `log` is None for the user's log, else a shared drive id.
    `drive` marks a shared drive's own change (changeType `drive`)."""

    file_id: str
    log: str | None
    time: dt.datetime
    drive: bool = False


def _flag(request: Request, name: str) -> bool:
    return request.args.get(name) == "true"


def _mask(request: Request, default: Mask) -> Mask | None:
    fields = request.args.get("fields")
    if not fields:
        return default
    try:
        return parse_fields(fields)
    except QueryError as exc:
        raise GoogleApiError(400, str(exc), "invalidParameter") from exc


def _size(request: Request, cap: int | None) -> int:
    try:
        size = int(request.args.get("pageSize", 100))
    except ValueError:
        raise GoogleApiError(400, "Invalid value for pageSize", "invalid") from None
    if not 1 <= size <= 1000:
        raise GoogleApiError(
            400, f"Invalid value '{size}'. Values must be within the range: [1, 1000]", "invalid"
        )
    return min(size, cap) if cap else size


class DriveApi:
    """Drive handlers, mixed into the server. Test knobs: `page_cap` (the most items a page
    holds whatever pageSize asks), `short_pages` (every other page holds half of that, down
    to none, before the end), `all_drives_incomplete`, `max_parents_per_query` (a `q` naming
    more folders comes back with `incompleteSearch` and only the first folders' files),
    `incomplete_folders` (a `q` naming one of them comes back incomplete, without its files),
    `export_limit` (bytes)."""

    files: dict[str, FakeFile]
    changes: list[ChangeEntry]
    page_cap: int | None
    short_pages: bool
    all_drives_incomplete: bool
    max_parents_per_query: int | None
    incomplete_folders: set[str]
    export_limit: int

    # -- state as the user sees it --------------------------------------------------------
    def is_trashed(self, file: FakeFile) -> bool:
        seen: set[str] = set()
        current: FakeFile | None = file
        while current is not None and current.id not in seen:
            if current.trashed:
                return True
            seen.add(current.id)
            current = next((self.files[p] for p in current.parents if p in self.files), None)
        return False

    def _exists(self, file: FakeFile | None) -> bool:
        return file is not None and file.accessible and not file.vanished

    def _file(self, file_id: str, request: Request, all_drives: bool = True) -> FakeFile:
        file = self.files.get(file_id)
        shared_ok = not all_drives or _flag(request, "supportsAllDrives")
        if file is None or not self._exists(file) or (file.drive_id and not shared_ok):
            raise GoogleApiError(404, f"File not found: {file_id}.", "notFound")
        return file

    def _page_length(self, size: int, page: int) -> int:
        return size // 2 if self.short_pages and page % 2 else size

    # -- files ----------------------------------------------------------------------------
    def _corpus(self, request: Request) -> tuple[list[FakeFile], bool]:
        corpora = request.args.get("corpora", "user")
        drive_id = request.args.get("driveId")
        everything = [
            f for f in self.files.values() if f.accessible and f.id != f.drive_id
        ]  # a shared drive is no file
        if corpora == "drive":
            if not drive_id:
                raise GoogleApiError(
                    400,
                    "The driveId parameter must be specified if and "
                    "only if corpora is set to drive.",
                    "invalid",
                )
            if not (
                _flag(request, "includeItemsFromAllDrives") and _flag(request, "supportsAllDrives")
            ):
                raise GoogleApiError(
                    403,
                    "The includeItemsFromAllDrives parameter must be "
                    "set to true when driveId is set.",
                    "teamDriveRequired",
                )
            return [f for f in everything if f.drive_id == drive_id], False
        if drive_id:
            raise GoogleApiError(
                400,
                "The driveId parameter must be specified if and only if corpora is set to drive.",
                "invalid",
            )
        if corpora == "allDrives":
            if not _flag(request, "includeItemsFromAllDrives"):
                raise GoogleApiError(
                    403,
                    "includeItemsFromAllDrives must be true for corpora=allDrives.",
                    "teamDriveRequired",
                )
            incomplete = self.all_drives_incomplete and any(f.drive_id for f in everything)
            if incomplete:
                return [f for f in everything if not f.drive_id], True
            return everything, False
        if corpora not in ("user", "domain"):
            raise GoogleApiError(400, f"Invalid value for corpora: {corpora}", "invalid")
        return [f for f in everything if not f.drive_id], False

    def _files_list(self, request: Request) -> Response:
        q = request.args.get("q", "")
        try:
            predicate = parse_query(q) if q else (lambda f: True)
        except QueryError as exc:
            raise GoogleApiError(400, str(exc), "invalid") from exc
        files, incomplete = self._corpus(request)
        parents = parents_in(q)
        if self.max_parents_per_query and len(parents) > self.max_parents_per_query:
            searched = set(parents[: self.max_parents_per_query])
            files, incomplete = [f for f in files if searched & set(f.parents)], True
        if blind := self.incomplete_folders & set(parents):
            files, incomplete = [f for f in files if not blind & set(f.parents)], True
        resources = [f.resource(self.is_trashed(f)) for f in sorted(files, key=lambda f: f.id)]
        matches = [r for r in resources if predicate(r)]
        size = _size(request, self.page_cap)
        token = request.args.get("pageToken", "p0.0")
        try:
            start, page = (int(x) for x in token.removeprefix("p").split("."))
        except ValueError:
            raise GoogleApiError(400, f"Invalid Value: pageToken {token!r}", "invalid") from None
        end = start + self._page_length(size, page)
        body: dict[str, Any] = {
            "kind": "drive#fileList",
            "incompleteSearch": incomplete,
            "files": matches[start:end],
        }
        if end < len(matches):
            body["nextPageToken"] = f"p{end}.{page + 1}"
        return json_response(apply_fields(body, _mask(request, _LIST_DEFAULT)))

    def _files_get(self, request: Request, file_id: str) -> Response:
        file = self._file(file_id, request)
        if request.args.get("alt") == "media":
            if file.native:
                raise GoogleApiError(
                    403,
                    "Only files with binary content can be downloaded. "
                    "Use Export with Docs Editors files.",
                    "fileNotDownloadable",
                )
            self._content_error(file)
            return Response(file.data, mimetype=file.mime_type)
        resource = file.resource(self.is_trashed(file))
        return json_response(apply_fields(resource, _mask(request, _FILE_DEFAULT)))

    def _files_export(self, request: Request, file_id: str) -> Response:
        file = self._file(file_id, request, all_drives=False)  # export has no such flag
        if not file.native:
            raise GoogleApiError(
                403, "Export only supports Docs Editors files.", "fileNotExportable"
            )
        self._content_error(file)
        if file.mime_type != DOC or request.args.get("mimeType") not in _EXPORTS:
            raise GoogleApiError(400, "The requested conversion is not supported.", "badRequest")
        body = file.markdown.encode()
        if len(body) > self.export_limit:
            raise GoogleApiError(
                403, "This file is too large to be exported.", "exportSizeLimitExceeded"
            )
        return Response(body, mimetype=request.args["mimeType"])

    def _content_error(self, file: FakeFile) -> None:
        if file.export_error:
            status, reason, message = file.export_error
            raise GoogleApiError(status, message, reason)

    # -- changes --------------------------------------------------------------------------
    def _log(self, request: Request) -> str | None:
        drive_id = request.args.get("driveId")
        if drive_id and not _flag(request, "supportsAllDrives"):
            raise GoogleApiError(
                403,
                "The supportsAllDrives parameter must be set to true when driveId is set.",
                "teamDriveRequired",
            )
        if drive_id and drive_id not in self.files:
            raise GoogleApiError(404, f"Shared drive not found: {drive_id}", "notFound")
        return drive_id

    def _start_token(self, request: Request) -> Response:
        self._log(request)
        return json_response(
            {"kind": "drive#startPageToken", "startPageToken": str(len(self.changes) + 1)}
        )

    def _change(self, entry: ChangeEntry) -> dict[str, Any]:
        change: dict[str, Any] = {
            "kind": "drive#change",
            "time": entry.time.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        }
        file = self.files.get(entry.file_id)
        if entry.drive:
            change.update(changeType="drive", driveId=entry.file_id, removed=file is None)
            if file is not None:
                change["drive"] = {"kind": "drive#drive", "id": file.id, "name": file.name}
            return change
        # a vanished file was deleted after this page was read: it still shows as it was
        removed = file is None or not file.accessible or file.drive_id != entry.log
        change.update(changeType="file", fileId=entry.file_id, removed=removed)
        if entry.log:
            change["driveId"] = entry.log
        if not removed and file is not None:
            change["file"] = file.resource(self.is_trashed(file))
        return change

    def _changes_list(self, request: Request) -> Response:
        token = request.args.get("pageToken", "")
        if not token.isdigit() or not 1 <= int(token) <= len(self.changes) + 1:
            raise GoogleApiError(400, f"Invalid Value: pageToken {token!r}", "invalid")
        log = self._log(request)
        if log is not None and not _flag(request, "includeItemsFromAllDrives"):
            raise GoogleApiError(
                403,
                "The includeItemsFromAllDrives parameter must be set to true when driveId is set.",
                "teamDriveRequired",
            )
        include_removed = request.args.get("includeRemoved", "true") != "false"
        start = int(token) - 1
        want = max(1, self._page_length(_size(request, self.page_cap), start))
        out: list[dict[str, Any]] = []
        pos = start
        while pos < len(self.changes) and len(out) < want:
            entry = self.changes[pos]
            pos += 1
            superseded = any(
                later.file_id == entry.file_id and later.log == entry.log
                for later in self.changes[pos:]
            )
            if entry.log != log or superseded:
                continue
            change = self._change(entry)
            if include_removed or not change["removed"]:
                out.append(change)
        body: dict[str, Any] = {"kind": "drive#changeList", "changes": out}
        if pos < len(self.changes):
            body["nextPageToken"] = str(pos + 1)
        else:
            body["newStartPageToken"] = str(len(self.changes) + 1)
        return json_response(apply_fields(body, _mask(request, _CHANGES_DEFAULT)))
