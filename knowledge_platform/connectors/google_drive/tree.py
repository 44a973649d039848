"""Which Drive folders lie under the configured roots, and what a batch of changes means.

The Changes API reports every change the user can see, anywhere in Drive, with no folder
filter. A change matters only if the file is (or was) under a configured folder, so the
folder graph (folder id -> parent ids) is remembered in the cursor and unknown ancestors are
looked up once and remembered too.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from knowledge_platform.connectors.google_drive.cursor import FileRecord
from knowledge_platform.models import Kind

FOLDER = "application/vnd.google-apps.folder"
#: A pointer to a file elsewhere: never followed (the target is indexed where it lives).
SHORTCUT = "application/vnd.google-apps.shortcut"
KINDS: dict[str, Kind] = {
    "application/vnd.google-apps.document": "doc",
    "application/vnd.google-apps.spreadsheet": "sheet",
    "application/vnd.google-apps.presentation": "slide",
}


def file_version(meta: dict[str, Any]) -> str:
    return str(meta.get("version") or meta.get("modifiedTime") or "")


def has_content(meta: dict[str, Any]) -> bool:
    """A file to look at: anything but a folder or a shortcut (never followed)."""
    return meta.get("mimeType") not in (FOLDER, SHORTCUT)


def record(
    meta: dict[str, Any],
    *,
    read: bool = True,
    verdict: str | None = None,
) -> FileRecord:
    """What the cursor keeps of a file under the roots; `read=False` (it failed) leaves the
    version out so that any later change reads it again. `verdict`: why this version of an
    upload cannot be converted (encrypted, corrupt...), said again without a download until
    the file changes."""
    return FileRecord(
        parents=list(meta.get("parents", [])),
        mime=meta.get("mimeType", ""),
        name=meta.get("name", ""),
        version=file_version(meta) if read else None,
        md5=meta.get("md5Checksum") or None,
        verdict=verdict or None,
    )


class FolderTree:
    """Folder id -> parent ids; a folder is inside when a root is among its ancestors, and
    no folder another scope names (`foreign`) comes first on the way up: the most specific
    claim wins, so a client's folder inside internal's shared drive stays the client's."""

    def __init__(
        self,
        roots: list[str],
        parents: dict[str, list[str]],
        lookup: Callable[[str], list[str]],
        foreign: Collection[str] = (),
    ) -> None:
        self.roots = set(roots)
        self.foreign = set(foreign) - self.roots
        self.parents = dict(parents)
        self._lookup = lookup  # parents of an unknown folder ([] if gone or unreadable)
        self._memo: dict[str, str | None] = {}

    def set_parents(self, folder_id: str, parents: list[str]) -> None:
        self.parents[folder_id] = list(parents)
        self._memo.clear()

    def contains(self, folder_id: str) -> bool:
        return self._claim(folder_id, set()) == "root"

    def _claim(self, folder_id: str, visiting: set[str]) -> str | None:
        """ "root" or "foreign": the first claimed folder on the way up; None: neither."""
        if folder_id in self.roots:
            return "root"
        if folder_id in self.foreign:
            return "foreign"
        if folder_id in self._memo:
            return self._memo[folder_id]
        if folder_id in visiting:
            return None
        visiting.add(folder_id)
        if folder_id not in self.parents:
            self.parents[folder_id] = list(self._lookup(folder_id))
        claims = {self._claim(p, visiting) for p in self.parents[folder_id]}
        claim = "root" if "root" in claims else "foreign" if "foreign" in claims else None
        self._memo[folder_id] = claim
        return claim

    def elsewhere(self, parents: list[str]) -> bool:
        """Whether a file with these parents lies in a folder another scope names (and in
        none of this scope's roots)."""
        claims = {self._claim(p, set()) for p in parents}
        return "foreign" in claims and "root" not in claims

    def holds(self, parents: list[str]) -> bool:
        return any(self.contains(p) for p in parents)


@dataclass
class ChangePlan:
    #: file id -> metadata: files new or changed under the roots, to read (or to report as
    #: a type that is not read)
    fetch: dict[str, dict[str, Any]] = field(default_factory=dict)
    gone: set[str] = field(default_factory=set)
    #: folders newly under a root -> their shared drive id ("" for My Drive): list them
    entered: dict[str, str] = field(default_factory=dict)


def plan_changes(
    changes: list[dict[str, Any]], tree: FolderTree, known: dict[str, FileRecord]
) -> ChangePlan:
    """Decide from changes.list entries (of every log, a file's removals before its
    current state) what to re-fetch and what is gone.

    `known` (file id -> `record`) are the files under the roots so far; it is updated for
    moves that need no re-fetch and for files that are gone.
    """
    plan = ChangePlan()
    left = False
    for change in changes:
        file_id, meta = change.get("fileId"), change.get("file")
        if not file_id or change.get("changeType", "file") != "file":
            continue
        removed = bool(change.get("removed")) or meta is None or bool(meta.get("trashed"))
        if (meta and meta.get("mimeType") == FOLDER) or (meta is None and file_id in tree.parents):
            was_in = file_id in tree.parents and tree.contains(file_id)
            tree.set_parents(file_id, [] if removed or meta is None else meta.get("parents", []))
            now_in = tree.contains(file_id)
            left = left or (was_in and not now_in)
            if now_in and not was_in and meta is not None:
                plan.entered[file_id] = meta.get("driveId", "")
            continue
        if (
            removed
            or meta is None
            or meta.get("mimeType") == SHORTCUT
            or not tree.holds(meta.get("parents", []))
        ):
            plan.fetch.pop(file_id, None)
            if file_id in known:
                plan.gone.add(file_id)
            continue
        plan.gone.discard(file_id)
        old = known.get(file_id)
        if old is None or old.version != file_version(meta):
            plan.fetch[file_id] = meta
        else:
            known[file_id] = old.model_copy(update={"parents": list(meta.get("parents", []))})
    if left:  # a folder moved out (or was trashed): everything below it is gone too
        plan.gone.update(f for f, rec in known.items() if not tree.holds(rec.parents))
        plan.fetch = {f: m for f, m in plan.fetch.items() if tree.holds(m.get("parents", []))}
    plan.gone -= plan.fetch.keys()
    plan.entered = {f: d for f, d in plan.entered.items() if tree.contains(f)}
    for file_id in plan.gone:
        known.pop(file_id, None)
    return plan
