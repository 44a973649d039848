"""ClickUp over its fake (tests/fakes/clickup_server.py): one workspace, an internal space with
two lists (containers a and b) and a client space `acme` with one list. Two harnesses share
it: `clickup` drives tasks (archive = an archived task, child change = a comment with a
threaded reply, vanish = a task that answers 404, break = its comments answering 500), and
`clickup_docs` drives Docs found through the v3 listing (archive = an archived doc, child
change = a new sub-page, vanish = a doc deleted to the trash whose pages answer 404, break =
its pages answering 500). Each scope's settings select its space, so new lists and new docs
are found by discovery."""

from __future__ import annotations

import itertools
from typing import Any

from tests.conformance.harness import SourceHarness
from tests.fakes.clickup_server import ClickUpFake

TOKEN = "pk_42_CONFORMANCE"
TEAM = "9001"
SPACES = {"internal": "s-int", "acme": "s-acme"}
LISTS = {("internal", "a"): "L-a", ("internal", "b"): "L-b", ("acme", "a"): "L-acme",
         ("acme", "b"): "L-acme"}  # fmt: skip


class _ClickUpHarness(SourceHarness):
    name = "clickup"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fake = ClickUpFake(personal_token=TOKEN)
        self.monkeypatch.setenv("CLICKUP_TOKEN", TOKEN)
        for (scope, _), list_id in LISTS.items():
            self.fake.add_hierarchy(TEAM, SPACES[scope], None, list_id)
        self.ids: dict[str, str] = {}
        self._serial = itertools.count(1)

    def start(self) -> None:
        self.fake.start()

    def stop(self) -> None:
        self.fake.stop()

    def settings(self, scope: str) -> dict[str, Any]:
        return {"base_url": self.fake.url("/api/v2"), "docs_base_url": self.fake.url("/api/v3"),
                "team_id": TEAM, "space_ids": [SPACES[scope]],
                "backoff_seconds": 0.01, "max_wait_seconds": 10}  # fmt: skip

    def _new_list(self) -> str:
        list_id = f"L-new{next(self._serial)}"
        self.fake.add_hierarchy(TEAM, SPACES["internal"], None, list_id)
        return list_id

    def _fail(self, path: str) -> None:
        self.fake.inject(path, 500, {"err": "Internal error", "ECODE": "SHARD_001"}, times=None)

    def _unfail(self, path: str) -> None:
        self.fake.uninject(path)

    #: Item-level requests a revoked token meets after the listing answered.
    item_path = "/comment"

    def refuse_credential(self) -> None:
        """ClickUp's answer to a revoked token (401 OAUTH_019) on every item-level request."""
        self.fake.inject(
            self.item_path, 401, {"err": "Oauth token not found", "ECODE": "OAUTH_019"}, times=None
        )

    def accept_credential(self) -> None:
        self.fake.uninject(self.item_path)

    def rate_limit(self, *, retry_after: bool) -> None:
        # ClickUp documents no Retry-After: X-RateLimit-Reset says when the window reopens.
        self.fake.throttle_next(reset_in=0.5 if retry_after else None)

    def server_errors(self, count: int) -> None:
        self.fake.inject("/api/", 502, "Bad gateway", times=count)


class ClickUpTasksHarness(_ClickUpHarness):
    """Items are tasks; a key's text is the task's description."""

    def create(self, key: str, title: str, text: str, *, scope: str = "internal",
               container: str = "a") -> None:  # fmt: skip
        self.ids[key] = self.fake.add_task(LISTS[(scope, container)], title, description=text)

    def edit(self, key: str, text: str) -> None:
        self.fake.update_task(self.ids[key], description=text)

    def delete(self, key: str) -> None:
        self.fake.delete_task(self.ids[key])

    def archive(self, key: str) -> None:
        self.fake.archive_task(self.ids[key])

    def move(self, key: str, container: str) -> None:
        self.fake.move_task(self.ids[key], LISTS[("internal", container)])

    def move_scope(self, key: str, scope: str) -> None:
        self.fake.move_task(self.ids[key], LISTS[(scope, "a")])

    def rename(self, key: str, title: str) -> None:
        self.fake.update_task(self.ids[key], name=title)

    def create_in_new_container(self, key: str, title: str, text: str) -> None:
        self.ids[key] = self.fake.add_task(self._new_list(), title, description=text)

    def child_change(self, key: str, text: str) -> None:
        """A comment and a threaded reply holding `text`; neither bumps date_updated."""
        comment = self.fake.add_comment(self.ids[key], "Thread about the schedule.")
        self.fake.add_reply(comment, text)

    def rename_container(self, name: str) -> None:
        self.fake.rename_list(LISTS[("internal", "a")], name)

    def quiet_child_change(self, key: str, text: str) -> None:
        """Eight days on, another task of the scope moves (the window is 7 days of the newest
        activity); then a comment lands on the quiet task."""
        self.fake.advance(8 * 86_400)
        self.fake.add_task(LISTS[("internal", "b")], "Later task", description="Moved on.")
        self.fake.add_comment(self.ids[key], text)

    def awkward_paging(self) -> None:
        self.fake.task_page_sizes = [5, 2, 4]
        self.fake.frozen = True

    def vanish(self, key: str) -> None:
        self.fake.delete_task(self.ids[key])  # GET /task/{id} and its comments: 404 ITEM_013

    def break_item(self, key: str) -> None:
        self._fail(f"/task/{self.ids[key]}/comment")

    def mend(self, key: str) -> None:
        self._unfail(f"/task/{self.ids[key]}/comment")


class ClickUpDocsHarness(_ClickUpHarness):
    """Items are Docs with one page (named like the doc) in a list; a key's text is the page."""

    item_path = "/pages"

    def create(self, key: str, title: str, text: str, *, scope: str = "internal",
               container: str = "a") -> None:  # fmt: skip
        self._doc(key, title, text, LISTS[(scope, container)])

    def _doc(self, key: str, title: str, text: str, list_id: str) -> None:
        doc = self.ids[key] = f"d{next(self._serial)}"
        self.fake.add_doc(TEAM, doc, title, parent_id=list_id, parent_type="LIST")
        self.fake.add_page(doc, f"{doc}-p1", title, text)

    def edit(self, key: str, text: str) -> None:
        self.fake.update_page(self.ids[key], f"{self.ids[key]}-p1", text)

    def delete(self, key: str) -> None:
        del self.fake.docs[self.ids[key]]  # emptied from the trash: 404 everywhere

    def archive(self, key: str) -> None:
        self.fake.archive_doc(self.ids[key])

    def move(self, key: str, container: str) -> None:
        self.fake.move_doc(self.ids[key], LISTS[("internal", container)], "LIST")

    def move_scope(self, key: str, scope: str) -> None:
        self.fake.move_doc(self.ids[key], LISTS[(scope, "a")], "LIST")

    def rename(self, key: str, title: str) -> None:
        self.fake.rename_doc(self.ids[key], title)
        self.fake.update_page(self.ids[key], f"{self.ids[key]}-p1", name=title)

    def create_in_new_container(self, key: str, title: str, text: str) -> None:
        self._doc(key, title, text, self._new_list())

    def child_change(self, key: str, text: str) -> None:
        """A new sub-page: the doc's date_updated does not move."""
        doc = self.ids[key]
        self.fake.add_page(doc, f"{doc}-p2", "Notes", text, parent=f"{doc}-p1")

    def awkward_paging(self) -> None:
        self.fake.docs_page_sizes = [5, 2, 4]
        self.fake.frozen = True

    def vanish(self, key: str) -> None:
        self.fake.delete_doc(self.ids[key])  # deleted: true; /pages answers 404

    def break_item(self, key: str) -> None:
        self._fail(f"/docs/{self.ids[key]}/pages")

    def mend(self, key: str) -> None:
        self._unfail(f"/docs/{self.ids[key]}/pages")
