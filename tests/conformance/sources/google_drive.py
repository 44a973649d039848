"""Google Drive: folders as containers (internal: two My Drive folders plus a shared drive;
acme: one folder), a Doc per item (its name is the title, its export the text).

- archive = trash; move_scope = a new parent, the acme folder; new container = a subfolder
  created in the shared drive (its changes live in the shared drive's own change log);
- child change = a parent change, which leaves modifiedTime alone: a Doc that has sat outside
  every root for a day is moved into the item's folder (Drive indexes no comments);
- vanish = the change log shows an edit, then every read of the file answers 404 (deleted
  between the log and the fetch); break_item = the file is touched (a logged change that
  leaves modifiedTime alone) and its export answers 500 every time after;
- paging: the server holds at most 3 items a page, every other page half of that (files.list
  pages go down to none) before the end, and every edit shares one modifiedTime;
- rate limits: 429 with Retry-After; without it, Drive's 403 userRateLimitExceeded and a bare
  429 (Google documents no rate-limit headers).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from tests.conformance.harness import SourceHarness
from tests.fakes.google_server import FakeGoogle


class GoogleDriveHarness(SourceHarness):
    name = "google_drive"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fake = FakeGoogle()
        for name, value in self.fake.env().items():
            self.monkeypatch.setenv(name, value)
        self.ids: dict[str, str] = {}

    def start(self) -> None:
        fake = self.fake.start()
        self.folders = {
            ("internal", "a"): fake.add_folder("Internal A", file_id="folder-internal-a"),
            ("internal", "b"): fake.add_folder("Internal B", file_id="folder-internal-b"),
            ("acme", "a"): fake.add_folder("Acme", file_id="folder-acme"),
        }
        self.shared_drive = fake.add_shared_drive("drive-team", "Team drive")
        self.outside = fake.add_folder("Not indexed", file_id="folder-outside")

    def stop(self) -> None:
        self.fake.stop()

    def settings(self, scope: str) -> dict[str, Any]:
        roots: dict[str, Any] = {
            "internal": {
                "folder_ids": [self.folders["internal", "a"], self.folders["internal", "b"]],
                "shared_drive_ids": [self.shared_drive],
            },
            "acme": {"folder_ids": [self.folders["acme", "a"]]},
        }[scope]
        return {
            **roots,
            **self.fake.endpoints(),
            "backoff_seconds": 0.01,
            "max_retries": 3,
            "max_wait_seconds": 10,
        }

    def _folder(self, scope: str, container: str) -> str:
        return self.folders.get((scope, container)) or self.folders[scope, "a"]

    # -- items -----------------------------------------------------------------------------
    def create(
        self, key: str, title: str, text: str, *, scope: str = "internal", container: str = "a"
    ) -> None:
        self.ids[key] = self.fake.add_doc(
            title, self._folder(scope, container), text + "\n", file_id=f"doc-{key}"
        )

    def edit(self, key: str, text: str) -> None:
        self.fake.modify(self.ids[key], markdown=text + "\n")

    def delete(self, key: str) -> None:
        self.fake.delete(self.ids[key])

    def archive(self, key: str) -> None:
        self.fake.trash(self.ids[key])

    def move(self, key: str, container: str) -> None:
        scope = next(
            s for (s, _), f in self.folders.items() if f in self.fake.files[self.ids[key]].parents
        )
        self.fake.move(self.ids[key], self._folder(scope, container))

    def move_scope(self, key: str, scope: str) -> None:
        self.fake.move(self.ids[key], self._folder(scope, "a"))

    def rename(self, key: str, title: str) -> None:
        self.fake.modify(self.ids[key], name=title)

    def create_in_new_container(self, key: str, title: str, text: str) -> None:
        folder = self.fake.add_folder("New in the shared drive", self.shared_drive)
        self.ids[key] = self.fake.add_doc(title, folder, text + "\n", file_id=f"doc-{key}")

    def child_change(self, key: str, text: str) -> None:
        child = self.fake.add_doc("Moved in", self.outside, text + "\n", file_id=f"doc-{key}-in")
        self.fake.files[child].modified -= dt.timedelta(days=1)  # it sat there for a day
        parent_folder = self.fake.files[self.ids[key]].parents[0]
        self.fake.move(child, parent_folder)

    # -- paging ----------------------------------------------------------------------------
    def awkward_paging(self) -> None:
        self.fake.page_cap = 3
        self.fake.short_pages = True
        self.fake.freeze_clock = True

    # -- failures --------------------------------------------------------------------------
    def vanish(self, key: str) -> None:
        self.fake.vanish(self.ids[key])

    def refuse_credential(self) -> None:
        """Every export from now on answers 401 (the grant revoked mid-run; google-auth's own
        refresh and retry meet it again)."""
        self.fake.fail_next(100, 401, "authError", path_part="/export")

    def accept_credential(self) -> None:
        self.fake.clear_failures()

    def break_item(self, key: str) -> None:
        self.fake.modify(self.ids[key], export_error=(500, "backendError", "Internal Error"))

    def mend(self, key: str) -> None:
        self.fake.modify(self.ids[key], export_error=None)

    def rate_limit(self, *, retry_after: bool) -> None:
        if retry_after:
            self.fake.fail_next(1, 429, "rateLimitExceeded", headers={"Retry-After": "1"})
        else:
            self.fake.fail_next(1, 403, "userRateLimitExceeded")
            self.fake.fail_next(1, 429, "rateLimitExceeded")

    def server_errors(self, count: int) -> None:
        for i in range(count):
            self.fake.fail_next(1, 500 if i % 2 == 0 else 503, "backendError")
