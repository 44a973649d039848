"""Google Drive: Docs, Sheets and Slides under configured folders or shared drives.

Full pull: remember the Changes API start token, then walk the folders (recursively, batched
`'<id>' in parents` queries) and fetch every file. Incremental pull: page through
`changes.list` from the remembered token; re-fetch only files still under the folders whose
version changed; removed, trashed or moved-out files are deleted. Folder membership is kept
in the cursor so a change elsewhere in Drive costs no lookups the second time.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from typing import Any

from knowledge_platform.connectors.base import (
    NOTHING_KNOWN,
    Connector,
    Known,
    PullResult,
    Skipped,
    SourceSettings,
)
from knowledge_platform.connectors.google_drive.api import (
    GoogleApi,
    GoogleApiError,
    credentials_from,
)
from knowledge_platform.connectors.google_drive.fetch import fetch_document
from knowledge_platform.connectors.google_drive.settings import GoogleDriveSettings
from knowledge_platform.connectors.google_drive.tree import (
    FOLDER,
    KINDS,
    FolderTree,
    file_version,
    plan_changes,
)
from knowledge_platform.errors import ConfigError, SourceError
from knowledge_platform.models import Document

_FILE_FIELDS = "id,name,mimeType,modifiedTime,trashed,parents,webViewLink,driveId,version"
_LIST_FIELDS = f"nextPageToken,incompleteSearch,files({_FILE_FIELDS})"
_CHANGE_FIELDS = (
    f"nextPageToken,newStartPageToken,changes(changeType,removed,fileId,time,file({_FILE_FIELDS}))"
)
_FOLDERS_PER_QUERY = 20
_MIME_FILTER = " or ".join(f"mimeType='{m}'" for m in [FOLDER, *KINDS])


def _quoted(file_id: str) -> str:
    return file_id.replace("\\", "\\\\").replace("'", "\\'")


class GoogleDriveConnector(Connector):
    name = "google_drive"
    settings_model = GoogleDriveSettings

    def __init__(self, settings: SourceSettings, scope: str) -> None:
        if not isinstance(settings, GoogleDriveSettings):
            raise ConfigError("google_drive needs GoogleDriveSettings")
        super().__init__(settings, scope)
        self.config = settings

    def pull(
        self, cursor: dict[str, Any] | None, *, full: bool = False, known: Known = NOTHING_KNOWN
    ) -> PullResult:
        api = GoogleApi(self.config, credentials_from(self.config))
        roots = sorted({*self.config.folder_ids, *self.config.shared_drive_ids})
        cursor = cursor or {}
        usable = cursor.get("page_token") and "files" in cursor and cursor.get("roots") == roots
        if full or not usable:
            return self._full(api, roots)
        try:
            changes, token = self._changes(api, cursor["page_token"])
        except GoogleApiError as exc:
            if exc.status in (400, 404):  # the page token was rejected: list everything again
                return self._full(api, roots)
            raise
        tree = FolderTree(roots, cursor.get("folders", {}), partial(self._parents, api))
        known: dict[str, dict[str, Any]] = {k: dict(v) for k, v in cursor["files"].items()}
        plan = plan_changes(changes, tree, known)
        for file_id, meta in self._walk(api, tree, plan.entered).items():
            if known.get(file_id, {}).get("version") != file_version(meta):
                plan.fetch[file_id] = meta
        documents, skipped = self._fetch_all(api, plan.fetch.values(), known)
        # A known file that vanished between the change and the fetch (404) is gone.
        vanished = {s.source_id for s in skipped if s.reason.startswith("404 ")} & known.keys()
        for file_id in vanished:
            del known[file_id]
        return PullResult(
            documents=documents,
            full=False,
            deleted=sorted(plan.gone | vanished),
            skipped=skipped,
            cursor=self._cursor(token, roots, tree, known),
            requests=api.requests,
        )

    def probe(self, cursor: dict[str, Any] | None) -> str | None:
        """The change feed's start token after any pending changes: equal to the indexed
        token while nothing changed, a new value once something did."""
        token = (cursor or {}).get("page_token")
        if not token:
            return None
        api = GoogleApi(self.config, credentials_from(self.config))
        _, new_token = self._changes(api, token)
        return new_token

    def _full(self, api: GoogleApi, roots: list[str]) -> PullResult:
        # Token first: changes made while we list are replayed by the next incremental pull.
        token = api.call(api.changes.getStartPageToken(supportsAllDrives=True))
        tree = FolderTree(roots, {}, partial(self._parents, api))
        files = self._walk(api, tree, roots)
        known: dict[str, dict[str, Any]] = {}
        documents, skipped = self._fetch_all(api, files.values(), known)
        cursor = self._cursor(token["startPageToken"], roots, tree, known)
        return PullResult(
            documents=documents, full=True, skipped=skipped, cursor=cursor, requests=api.requests
        )

    @staticmethod
    def _cursor(
        token: str, roots: list[str], tree: FolderTree, known: dict[str, dict[str, Any]]
    ) -> dict[str, Any]:
        return {"page_token": token, "roots": roots, "folders": tree.parents, "files": known}

    def _changes(self, api: GoogleApi, token: str) -> tuple[list[dict[str, Any]], str]:
        changes: list[dict[str, Any]] = []
        while True:
            page = api.call(
                api.changes.list(
                    pageToken=token,
                    pageSize=self.config.page_size,
                    includeRemoved=True,
                    supportsAllDrives=True,
                    includeItemsFromAllDrives=True,
                    spaces="drive",
                    fields=_CHANGE_FIELDS,
                )
            )
            changes.extend(page.get("changes", []))
            if page.get("newStartPageToken"):
                return changes, page["newStartPageToken"]
            token = page.get("nextPageToken", "")
            if not token:
                raise SourceError(
                    "Drive changes.list returned neither nextPageToken nor newStartPageToken"
                )

    def _parents(self, api: GoogleApi, folder_id: str) -> list[str]:
        """Parents of a folder not seen before; [] if it is gone, trashed or unreadable."""
        try:
            meta = api.call(
                api.files.get(
                    fileId=folder_id, fields="id,mimeType,parents,trashed", supportsAllDrives=True
                )
            )
        except GoogleApiError as exc:
            if exc.status in (403, 404):
                return []
            raise
        return [] if meta.get("trashed") else list(meta.get("parents", []))

    def _list(self, api: GoogleApi, query: str) -> Iterator[dict[str, Any]]:
        page_token: str | None = None
        while True:
            page = api.call(
                api.files.list(
                    q=query,
                    fields=_LIST_FIELDS,
                    pageSize=self.config.page_size,
                    pageToken=page_token,
                    corpora="allDrives",
                    supportsAllDrives=True,
                    includeItemsFromAllDrives=True,
                    spaces="drive",
                )
            )
            if page.get("incompleteSearch"):
                raise SourceError("Drive reported an incomplete search; retry the pull later")
            yield from page.get("files", [])
            page_token = page.get("nextPageToken")
            if not page_token:
                return

    def _walk(self, api: GoogleApi, tree: FolderTree, start: list[str]) -> dict[str, Any]:
        """Docs/Sheets/Slides below `start` (recursively), recording subfolders in `tree`."""
        files: dict[str, Any] = {}
        pending, seen = list(start), set(start)
        while pending:
            batch, pending = pending[:_FOLDERS_PER_QUERY], pending[_FOLDERS_PER_QUERY:]
            parents = " or ".join(f"'{_quoted(f)}' in parents" for f in batch)
            for item in self._list(api, f"({parents}) and trashed=false and ({_MIME_FILTER})"):
                if item["mimeType"] != FOLDER:
                    files[item["id"]] = item
                    continue
                tree.set_parents(item["id"], item.get("parents", []))
                if item["id"] not in seen:
                    seen.add(item["id"])
                    pending.append(item["id"])
        return files

    def _fetch_all(
        self, api: GoogleApi, metas: Iterable[dict[str, Any]], known: dict[str, dict[str, Any]]
    ) -> tuple[list[Document], list[Skipped]]:
        documents: list[Document] = []
        skipped: list[Skipped] = []
        for meta in metas:
            try:
                documents.append(fetch_document(api, meta, self.config, self.scope))
            except GoogleApiError as exc:
                if exc.status == 401:
                    raise
                skipped.append(
                    Skipped(
                        source_id=meta["id"],
                        reason=(
                            f"{exc.status} {exc.reason}: {exc.message} "
                            f"({meta.get('name', '')!r} not readable)"
                        ),
                    )
                )
                continue
            known[meta["id"]] = {"parents": meta.get("parents", []), "version": file_version(meta)}
        return documents, skipped
