"""Listing Drive: the files below the roots (files.list in the root's own corpus, narrowed when
Drive answers `incompleteSearch`) and the change logs (the user's and each shared drive's).

Corpora: a My Drive folder is searched with `corpora=user`, a shared drive (or a folder in
one) with `corpora=drive` + `driveId` — never `allDrives`, which Google says may come back
incomplete. Each shared drive keeps its own change log; some of its changes never reach the
user's log, so every log a root lives in is replayed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from knowledge_platform.connectors.google_drive.tree import FOLDER
from knowledge_platform.errors import SourceError

if TYPE_CHECKING:
    from knowledge_platform.connectors.google_drive.api import GoogleApi
    from knowledge_platform.connectors.google_drive.tree import FolderTree

FILE_FIELDS = (
    "id,name,mimeType,modifiedTime,trashed,parents,webViewLink,driveId,version,size,md5Checksum"
)
_LIST_FIELDS = f"nextPageToken,incompleteSearch,files({FILE_FIELDS})"
_CHANGE_FIELDS = (
    "nextPageToken,newStartPageToken,"
    f"changes(changeType,removed,fileId,driveId,time,file({FILE_FIELDS}))"
)
FOLDERS_PER_QUERY = 20
#: The user's own corpus and change log (a shared drive is named by its id).
USER = ""


def corpus_args(drive: str) -> dict[str, Any]:
    if drive:
        return {
            "corpora": "drive",
            "driveId": drive,
            "includeItemsFromAllDrives": True,
            "supportsAllDrives": True,
        }
    return {"corpora": "user", "supportsAllDrives": True}


def _quoted(file_id: str) -> str:
    return file_id.replace("\\", "\\\\").replace("'", "\\'")


@dataclass
class Listing:
    #: files (not folders) below the start folders, by id
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: folders Drive could not search completely even one at a time
    incomplete: list[str] = field(default_factory=list)


class Lister:
    def __init__(self, api: GoogleApi, tree: FolderTree, page_size: int) -> None:
        self.api, self.tree, self.page_size = api, tree, page_size

    def walk(self, start: dict[str, str]) -> Listing:
        """Everything below `start` (folder id -> its shared drive, USER for My Drive),
        recursively; the subfolders found are recorded in the tree."""
        listing = Listing()
        pending, seen = dict(start), set(start)
        while pending:
            drive = next(iter(pending.values()))
            batch = [f for f, d in pending.items() if d == drive][:FOLDERS_PER_QUERY]
            for folder in batch:
                del pending[folder]
            for item in self._children(batch, drive, listing):
                if item.get("mimeType") != FOLDER:
                    listing.files[item["id"]] = item
                    continue
                self.tree.set_parents(item["id"], item.get("parents", []))
                if item["id"] in self.tree.foreign:
                    continue  # another scope's folder: not walked, whatever holds it
                if item["id"] not in seen:
                    seen.add(item["id"])
                    pending[item["id"]] = item.get("driveId", drive)
        return listing

    def _children(self, parents: list[str], drive: str, listing: Listing) -> list[dict[str, Any]]:
        """Untrashed children of `parents`; on `incompleteSearch` the folders are asked in
        halves, down to one; a folder still incomplete alone is noted in `listing`."""
        items, complete = self._query(parents, drive)
        if complete:
            return items
        if len(parents) > 1:
            half = len(parents) // 2
            return self._children(parents[:half], drive, listing) + self._children(
                parents[half:], drive, listing
            )
        listing.incomplete.append(parents[0])
        return items

    def _query(self, parents: list[str], drive: str) -> tuple[list[dict[str, Any]], bool]:
        clause = " or ".join(f"'{_quoted(p)}' in parents" for p in parents)
        items: list[dict[str, Any]] = []
        complete, token = True, None
        while True:
            page = self.api.call(
                self.api.files.list(
                    q=f"({clause}) and trashed=false",
                    fields=_LIST_FIELDS,
                    pageSize=self.page_size,
                    pageToken=token,
                    spaces="drive",
                    **corpus_args(drive),
                )
            )
            complete = complete and not page.get("incompleteSearch")
            if not complete and len(parents) > 1:
                return items, False  # ask narrower questions instead
            items.extend(page.get("files", []))
            token = page.get("nextPageToken")
            if not token:  # Drive's end signal; a short or empty page is not one
                return items, complete


def start_tokens(api: GoogleApi, logs: list[str]) -> dict[str, str]:
    """The current start page token of each change log."""
    tokens = {}
    for log in logs:
        extra = {"driveId": log} if log else {}
        reply = api.call(api.changes.getStartPageToken(supportsAllDrives=True, **extra))
        tokens[log] = reply["startPageToken"]
    return tokens


def replay(
    api: GoogleApi, tokens: dict[str, str], page_size: int
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Every change since `tokens` in every log, and the logs' new start tokens. A file that
    moved between corpora is `removed` in one log and present in another: removals come
    first so its current state wins."""
    changes: list[dict[str, Any]] = []
    new_tokens: dict[str, str] = {}
    for log, start in tokens.items():
        extra = {"driveId": log} if log else {}
        token = start
        while True:
            page = api.call(
                api.changes.list(
                    pageToken=token,
                    pageSize=page_size,
                    includeRemoved=True,
                    supportsAllDrives=True,
                    includeItemsFromAllDrives=True,
                    spaces="drive",
                    fields=_CHANGE_FIELDS,
                    **extra,
                )
            )
            changes.extend(page.get("changes", []))
            if page.get("newStartPageToken"):
                new_tokens[log] = page["newStartPageToken"]
                break
            token = page.get("nextPageToken", "")
            if not token:
                raise SourceError(
                    "google_drive: changes.list returned neither nextPageToken "
                    "nor newStartPageToken"
                )
    changes.sort(key=lambda change: not change.get("removed"))
    return changes, new_tokens


def encode(tokens: dict[str, str]) -> str:
    """One string for the change probe: `<log>=<token>` per log (USER is the empty name)."""
    return ";".join(f"{log}={token}" for log, token in sorted(tokens.items()))
