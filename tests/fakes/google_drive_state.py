"""What a person does to the Google fake's Drive: add, edit, move, trash, delete, share and
unshare files. Each action logs a change the way Drive does (current state per item, one log
per user and per shared drive), bumps `version`, and bumps `modifiedTime` only when the
content or the name changed — a move or a permission change leaves it alone."""

from __future__ import annotations

import datetime as dt
from typing import Any

from tests.fakes.google_content import DOC, EPOCH, FOLDER, SHEET, SHORTCUT, SLIDES, FakeFile
from tests.fakes.google_drive_api import ChangeEntry

#: Attributes whose change bumps modifiedTime (the rest: parents, sharing, failures).
_CONTENT = frozenset({"name", "markdown", "tabs", "slides", "data"})


class DriveState:
    files: dict[str, FakeFile]
    changes: list[ChangeEntry]
    #: Every edit gets the same modifiedTime (equal timestamps across page boundaries).
    freeze_clock: bool
    _seq: int

    def _tick(self) -> dt.datetime:
        if not self.freeze_clock:
            self._seq += 1
        return EPOCH + dt.timedelta(minutes=self._seq)

    def _log_change(
        self,
        file: FakeFile,
        old_drive: str | None = None,
        moved: bool = False,
    ) -> None:
        now = EPOCH + dt.timedelta(minutes=self._seq, seconds=len(self.changes))
        if moved and old_drive != file.drive_id:  # left a corpus: `removed` in its old log
            self.changes.append(ChangeEntry(file.id, old_drive, now))
            self.notify_change(old_drive)
        self.changes.append(ChangeEntry(file.id, file.drive_id, now))
        self.notify_change(file.drive_id)

    def notify_change(self, log: str | None) -> None:
        """Push notifications to the channels watching this change log (google_drive_watch)."""

    def _drive_of(self, parents: list[str]) -> str | None:
        return next((self.files[p].drive_id for p in parents if p in self.files), None)

    def descendants(self, folder_id: str) -> list[FakeFile]:
        found: list[FakeFile] = []
        frontier = [folder_id]
        while frontier:
            parent = frontier.pop()
            for file in self.files.values():
                if parent in file.parents and file not in found:
                    found.append(file)
                    frontier.append(file.id)
        return found

    # -- adding ----------------------------------------------------------------------------
    def _add(
        self, name: str, mime: str, parent: str | None, file_id: str | None, **content: Any
    ) -> str:
        file_id = file_id or f"{mime.rsplit('.', 1)[-1].rsplit('/', 1)[-1]}-{len(self.files) + 1}"
        parents = [parent] if parent else []
        file = FakeFile(
            file_id, name, mime, parents, self._tick(), drive_id=self._drive_of(parents), **content
        )
        self.files[file_id] = file
        self._log_change(file)
        return file_id

    def add_shared_drive(self, drive_id: str, name: str) -> str:
        """A shared drive (its id is also its root folder's). The user's log notes it."""
        now = self._tick()
        self.files[drive_id] = FakeFile(drive_id, name, FOLDER, [], now, drive_id=drive_id)
        self.changes.append(ChangeEntry(drive_id, None, now, drive=True))
        return drive_id

    def add_folder(self, name: str, parent: str | None = None, file_id: str | None = None) -> str:
        return self._add(name, FOLDER, parent, file_id)

    def add_doc(
        self, name: str, parent: str | None, markdown: str, file_id: str | None = None
    ) -> str:
        return self._add(name, DOC, parent, file_id, markdown=markdown)

    def add_sheet(
        self,
        name: str,
        parent: str | None,
        tabs: dict[str, list[list[str]]],
        file_id: str | None = None,
    ) -> str:
        return self._add(name, SHEET, parent, file_id, tabs=tabs)

    def add_slides(
        self,
        name: str,
        parent: str | None,
        slides: list[dict[str, Any]],
        file_id: str | None = None,
    ) -> str:
        return self._add(name, SLIDES, parent, file_id, slides=slides)

    def add_upload(
        self, name: str, parent: str | None, mime: str, data: bytes, file_id: str | None = None
    ) -> str:
        """An uploaded file (PDF, DOCX, an image...): downloadable, not exportable."""
        return self._add(name, mime, parent, file_id, data=data)

    def add_shortcut(
        self, name: str, parent: str | None, target: str, file_id: str | None = None
    ) -> str:
        return self._add(name, SHORTCUT, parent, file_id, shortcut_target=target)

    # -- changing --------------------------------------------------------------------------
    def modify(self, file_id: str, **attrs: Any) -> None:
        """Change name/markdown/tabs/slides/data/parents/export_error. Bumps version; bumps
        modifiedTime only for content and name; a new parent moves the file (and a folder's
        contents) to that parent's drive."""
        file = self.files[file_id]
        old_drive = file.drive_id
        for key, value in attrs.items():
            setattr(file, key, value)
        file.version += 1
        if _CONTENT & attrs.keys():
            file.modified = self._tick()
        moved = "parents" in attrs
        if moved:
            file.drive_id = self._drive_of(file.parents)
            for child in self.descendants(file_id):
                child.drive_id = file.drive_id
        self._log_change(file, old_drive, moved)

    def move(self, file_id: str, parent: str) -> None:
        """files.update with addParents/removeParents: modifiedTime stays as it was."""
        self.modify(file_id, parents=[parent])

    def share(self, file_id: str) -> None:
        """A permission change: a logged change, a new version, the same modifiedTime."""
        self.modify(file_id)

    def revoke_access(self, file_id: str) -> None:
        """The user lost access: the file is gone for them (`removed` in the change log)."""
        self.files[file_id].accessible = False
        self.modify(file_id)

    def trash(self, file_id: str) -> None:
        self.modify(file_id, trashed=True)

    def untrash(self, file_id: str) -> None:
        self.modify(file_id, trashed=False)

    def delete(self, file_id: str) -> None:
        """Permanent delete; a folder takes its contents with it (only it is logged)."""
        file = self.files[file_id]
        for child in self.descendants(file_id):
            del self.files[child.id]
        del self.files[file_id]
        self._log_change(file)

    def vanish(self, file_id: str) -> None:
        """Deleted between the change log read and the fetch: the log shows an edit, every
        read of the file answers 404."""
        self.modify(file_id, markdown=self.files[file_id].markdown + "\n")
        self.files[file_id].vanished = True
