"""ClickUp ordinary runs follow the workspace (issue #11): the id sweep and lookups of what
vanished, moves out of a scope, Docs discovered by parent, deleted and failing docs, comment
replies and threads re-read without a date_updated bump, paging to `last_page`. Each pull is
merged into the index snapshot as the raw step does (knowledge_platform.ingest.sync)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from knowledge_platform.connectors.base import Known, PullResult
from knowledge_platform.connectors.clickup.connector import ClickUpConnector
from knowledge_platform.connectors.clickup.cursor import ClickUpCursor
from knowledge_platform.ingest.sync import merge_pull
from kp.app import app
from tests.conftest import write_registry
from tests.fakes.clickup_server import ClickUpFake
from tests.integration.clickup_workspace import connector, workspace
from tests.procs import free_port

pytestmark = pytest.mark.integration
DAY = 86_400


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[ClickUpFake]:
    yield from workspace(monkeypatch)


class Index:
    """One scope's snapshot and cursor, pulled and merged run after run."""

    def __init__(self, conn: ClickUpConnector) -> None:
        self.conn = conn
        self.docs: dict[str, Any] = {}
        self.retry: frozenset[str] = frozenset()
        self.cursor: ClickUpCursor | None = None

    def pull(self, *, full: bool = False) -> PullResult:
        result = self.conn.pull(self.cursor, full=full,
                                known=Known(documents=self.docs, retry=self.retry))  # fmt: skip
        merged = merge_pull(list(self.docs.values()), result)
        self.docs = {d.source_id: d for d in merged.documents}
        self.retry, self.cursor = frozenset(merged.retry), result.cursor
        return result

    def text(self, source_id: str) -> str:
        return self.docs[source_id].text


#: Reading a task's attachments is a `GET /task/{id}` too: off where a test counts lookups.
NO_ATTACHMENTS = {"attachments": False}


def test_an_ordinary_run_sweeps_every_list_and_returns_only_changes(fake: ClickUpFake) -> None:
    index = Index(connector(fake, quiet_thread_rereads=0, **NO_ATTACHMENTS))
    index.pull()
    fake.clear_log()
    fake.advance(30 * DAY)  # what came before is no longer recently active
    fake.update_task("plain", description="## Goal\nLaunch in May.")
    new = fake.add_task("L2", "Brand new")
    fake.add_hierarchy("9001", "s1", None, "L3")
    fake.add_task("L3", "In a new list", task_id="inL3")
    fake.update_page("d1", "p2", "Hand over the keys and the logins.")

    result = index.pull()

    assert result.full is False
    assert {d.source_id for d in result.documents} == {"plain", new, "inL3", "doc:d1:p2"}
    assert "Launch in May." in index.text("plain") and "dec" in index.docs
    assert not result.deleted and not result.missing
    for path in ("/list/L1/task", "/list/L2/task", "/list/L3/task"):
        assert fake.requests(path) and all(r.arg("date_updated_gt") is None
                                           for r in fake.requests(path))  # fmt: skip
    assert {r.path.split("/")[4] for r in fake.requests("/comment")} == {"plain", new, "inL3"}
    assert all(r.path.endswith("/comment") for r in fake.requests("/api/v2/task/"))  # no lookups


def test_deleted_archived_and_moved_tasks_are_confirmed_in_one_ordinary_run(
    fake: ClickUpFake,
) -> None:
    fake.add_hierarchy("9001", "s-acme", None, "L-acme")
    internal = Index(connector(fake, list_ids=["L1", "L2"], doc_ids=[], **NO_ATTACHMENTS))
    acme = Index(connector(fake, list_ids=["L-acme"], doc_ids=[], **NO_ATTACHMENTS))
    internal.pull()
    acme.pull()
    fake.delete_task("plain")
    fake.archive_task("closed")
    fake.move_task("dec", "L-acme")

    result = internal.pull()
    joined = acme.pull()

    assert set(result.deleted) == {"plain", "closed", "dec"} and not result.missing
    assert {"plain", "closed", "dec"}.isdisjoint(internal.docs) and "sub" in internal.docs
    assert "dec" in {d.source_id for d in joined.documents} and "dec" in acme.docs
    looked_up = {r.path for r in fake.requests("/api/v2/task/")
                 if not r.path.endswith("/comment")}  # fmt: skip
    assert looked_up == {"/api/v2/task/plain", "/api/v2/task/closed", "/api/v2/task/dec"}


def test_lookups_are_bounded_and_the_rest_is_missing_not_deleted(fake: ClickUpFake) -> None:
    index = Index(connector(fake, max_verifications=1, doc_ids=[], **NO_ATTACHMENTS))
    index.pull()
    fake.delete_task("dec")
    fake.delete_task("closed")

    result = index.pull()

    assert result.deleted == ["closed"] and result.missing == ["dec"]  # sorted, one lookup
    assert "dec" not in index.docs  # inferred: within the guard, applied
    assert len([r for r in fake.requests("/api/v2/task/")
                if not r.path.endswith("/comment")]) == 1  # fmt: skip


def test_a_task_the_token_cannot_see_is_missing_not_confirmed(fake: ClickUpFake) -> None:
    index = Index(connector(fake, doc_ids=[]))
    index.pull()
    del fake.tasks["dec"]  # neither listed nor readable: GET /task answers 401 OAUTH_027

    result = index.pull()

    assert result.missing == ["dec"] and not result.deleted


def test_comment_replies_and_new_comments_reach_the_index_without_a_date_bump(
    fake: ClickUpFake,
) -> None:
    index = Index(connector(fake))
    index.pull()
    before = fake.tasks["dec"]["date_updated"]
    comment = fake.add_comment("dec", "Which vendor did we pick?")
    fake.add_reply(comment, "The pelican vendor, signed Monday.")

    result = index.pull()

    assert fake.tasks["dec"]["date_updated"] == before
    assert "dec" in {d.source_id for d in result.documents}
    text = index.text("dec")
    assert "Which vendor did we pick?" in text and "pelican vendor, signed Monday" in text
    assert text.index("Which vendor") < text.index("pelican vendor")
    assert fake.requests(f"/comment/{comment}/reply")


def test_rereads_rotate_within_the_cap_and_quiet_threads_take_turns(fake: ClickUpFake) -> None:
    index = Index(connector(fake, max_thread_rereads=2, quiet_thread_rereads=0, doc_ids=[]))
    index.pull()
    fake.clear_log()

    index.pull()
    first = {r.path.split("/")[4] for r in fake.requests("/comment") if "start" not in r.args}
    fake.clear_log()
    index.pull()
    second = {r.path.split("/")[4] for r in fake.requests("/comment") if "start" not in r.args}

    assert len(first) == len(second) == 2 and first.isdisjoint(second)
    fake.advance(30 * DAY)
    fake.update_task("plain", name="Plan the launch")
    fake.clear_log()
    index.pull()
    assert {r.path.split("/")[4] for r in fake.requests("/comment")} == {"plain"}

    # The quieter tasks' threads: one a run here, least recently read first (issue #24).
    quiet = Index(connector(fake, max_thread_rereads=0, quiet_thread_rereads=1, doc_ids=[]))
    quiet.pull()
    turns = []
    for _ in range(3):
        fake.clear_log()
        quiet.pull()
        turns.append(
            {r.path.split("/")[4] for r in fake.requests("/comment") if "start" not in r.args}
        )
    assert [len(t) for t in turns] == [1, 1, 1] and len(set.union(*turns)) == 3


def test_task_paging_ends_only_on_last_page(fake: ClickUpFake) -> None:
    for i in range(250):
        fake.add_task("L1", f"Bulk {i}")
    fake.task_page_sizes = [100, 30]  # a short page before the end

    result = connector(fake, max_comments=0, doc_ids=[]).pull(None)

    assert sum(d.title.startswith("Bulk ") for d in result.documents) == 250
    assert [r.arg("page") for r in fake.requests("/list/L1/task")] == ["0", "1", "2", "3"]


def test_docs_are_discovered_by_parent_and_paged_to_the_empty_cursor(fake: ClickUpFake) -> None:
    for i in range(3):
        fake.add_doc("9001", f"sp{i}", f"Space doc {i}", parent_id="s1", parent_type="SPACE")
        fake.add_page(f"sp{i}", f"sp{i}-p", f"Space doc {i}", f"Space doc body {i}.")
    fake.add_doc("9001", "ld", "List doc", parent_id="L2", parent_type="LIST")
    fake.add_page("ld", "ld-p", "Intro", "The list doc.")
    fake.add_doc("9001", "other", "Elsewhere", parent_id="s9", parent_type="SPACE")
    fake.add_page("other", "other-p", "Elsewhere", "Not in this scope.")
    fake.docs_page_sizes = [1]
    index = Index(connector(fake, max_comments=0, doc_ids=[]))

    index.pull()

    pages = {s for s in index.docs if s.startswith("doc:")}
    assert pages == {"doc:sp0:sp0-p", "doc:sp1:sp1-p", "doc:sp2:sp2-p", "doc:ld:ld-p"}
    assert index.docs["doc:sp0:sp0-p"].title == "Space doc 0"
    assert index.docs["doc:ld:ld-p"].title == "List doc / Intro"
    space_pages = [r for r in fake.requests("/docs") if r.arg("parent_id") == "s1"]
    assert len(space_pages) == 3 and space_pages[-1].arg("cursor")
    fake.add_hierarchy("9001", "s1", None, "L3")
    fake.add_doc("9001", "new", "New list doc", parent_id="L3", parent_type="LIST")
    fake.add_page("new", "new-p", "New list doc", "Found the run after its list appeared.")
    index.pull()
    assert "doc:new:new-p" in index.docs


def test_a_deleted_doc_is_removed_and_never_fails_the_scope(fake: ClickUpFake) -> None:
    index = Index(connector(fake))
    index.pull()
    fake.delete_doc("d1")  # metadata: deleted true; pages: 404
    fake.update_task("plain", description="Edited while the doc was deleted.")

    result = index.pull()

    assert not any(s.startswith("doc:d1") for s in index.docs)
    gone = [s for s in result.skipped if s.source_id == "doc:d1"]
    assert gone and gone[0].gone and set(gone[0].covers) == {"doc:d1:p1", "doc:d1:p2"}
    assert "Edited while the doc was deleted." in index.text("plain")


def test_a_lasting_docs_outage_keeps_pages_stale_and_tasks_fresh(fake: ClickUpFake) -> None:
    fake.add_doc("9001", "ld", "List doc", parent_id="L1", parent_type="LIST")
    fake.add_page("ld", "ld-p", "List doc", "The list doc.")
    index = Index(connector(fake, backoff_seconds=0))
    index.pull()
    fake.inject("/api/v3/", 500, {"err": "Docs down", "ECODE": "DOCS_500"}, times=None)
    fake.update_task("plain", description="Fresh while Docs are down.")

    result = index.pull()

    assert "Fresh while Docs are down." in index.text("plain")
    stale = {s: d.extra.get("stale") for s, d in index.docs.items() if s.startswith("doc:")}
    assert set(stale) == {"doc:d1:p1", "doc:d1:p2", "doc:ld:ld-p"} and all(stale.values())
    assert {s.source_id for s in result.skipped} == {"docs:listing", "doc:d1"}
    assert not result.deleted and not result.missing


def test_pages_that_404_while_the_doc_exists_are_kept(fake: ClickUpFake) -> None:
    index = Index(connector(fake))
    index.pull()
    fake.inject("/docs/d1/pages", 404, {"err": "Not found", "ECODE": "DOCS_404"}, times=1)

    result = index.pull()

    assert [s.gone for s in result.skipped if s.source_id == "doc:d1"] == [False]
    assert index.docs["doc:d1:p1"].extra.get("stale")


def test_one_failing_list_keeps_its_tasks_and_the_others_are_read(fake: ClickUpFake) -> None:
    index = Index(connector(fake, backoff_seconds=0, doc_ids=[]))
    index.pull()
    fake.inject("/list/L2/task", 500, {"err": "Internal", "ECODE": "SHARD_001"}, times=None)
    fake.update_task("plain", description="Read although L2 fails.")

    result = index.pull()

    assert "Read although L2 fails." in index.text("plain")
    failed = next(s for s in result.skipped if s.source_id == "list:L2")
    assert "HTTP 500" in failed.reason
    assert "multi" in index.docs and not result.missing and not result.deleted


def test_comments_answering_404_remove_the_task(fake: ClickUpFake) -> None:
    index = Index(connector(fake, doc_ids=[]))
    index.pull()
    fake.inject("/task/plain/comment", 404, {"err": "Task not found, deleted",
                                             "ECODE": "ITEM_013"}, times=None)  # fmt: skip
    result = index.pull()

    assert [s.gone for s in result.skipped if s.source_id == "plain"] == [True]
    assert "plain" not in index.docs


def test_kp_status_states_the_quiet_comment_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sync contract's bound on comments of quiet tasks, said where operators look."""
    registry = {
        "embedding": {"provider": "hash"},
        "store": {"engine": "edge"},
        "internal": {"sources": {"clickup": {"space_ids": ["s1"]}}},
    }
    monkeypatch.setenv("KP_CONFIG", str(write_registry(tmp_path / "registry.yaml", registry)))
    monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("KP_DAGSTER_URL", f"http://127.0.0.1:{free_port()}")  # Dagster is down
    output = " ".join(CliRunner().invoke(app, ["status"], terminal_width=200).output.split())
    assert (
        "clickup: a comment (which moves no date_updated) on a task quiet for longer than "
        "comment_window_days is seen within ceil(quiet tasks / quiet_thread_rereads) "
        "ordinary runs"
    ) in output
