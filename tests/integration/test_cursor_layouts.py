"""A stored cursor the connector's model no longer reads (written by another version) through the
raw step (knowledge_platform.ingest.sync): the run pulls in full, says so in one log line, deletes
nothing, and writes the cursor in the current layout; the next run is an ordinary one again."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge_platform.connectors.clickup.cursor import ClickUpCursor
from knowledge_platform.ingest.snapshots import SnapshotStore
from knowledge_platform.ingest.sync import pull_into_snapshot
from tests.fakes.clickup_server import ClickUpFake
from tests.integration.clickup_workspace import connector, workspace

pytestmark = pytest.mark.integration


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[ClickUpFake]:
    yield from workspace(monkeypatch)


def test_an_unreadable_cursor_means_a_full_pull_that_deletes_nothing(
    fake: ClickUpFake, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    snaps = SnapshotStore(tmp_path)
    conn = connector(fake)

    def run() -> tuple[bool, int, int]:
        result, merged = pull_into_snapshot(
            conn, snaps, full=False, guard=0.5, full_reconcile=False
        )
        return result.full, merged.stats.deleted, merged.stats.held

    run()
    indexed = {d.source_id for d in snaps.read_documents("clickup", "internal") or []}
    cursor_file = snaps.dir("clickup", "internal") / "cursor.json"
    written = json.loads(cursor_file.read_text())
    assert run()[0] is False  # with its cursor, an ordinary run
    # An older layout: `lists` as one comma-separated string, and a key this version lacks.
    older = {**written, "lists": ",".join(written["lists"]), "since": 1714560000}
    cursor_file.write_text(json.dumps(older))

    with caplog.at_level(logging.WARNING):
        full, deleted, held = run()

    assert (full, deleted, held) == (True, 0, 0)
    assert {d.source_id for d in snaps.read_documents("clickup", "internal") or []} == indexed
    lines = [r.getMessage() for r in caplog.records if "stored cursor" in r.getMessage()]
    assert lines == [
        "clickup:internal: the stored cursor is not a ClickUpCursor (lists: Input should be a "
        "valid tuple), an older layout: pulling in full"
    ]
    rewritten = ClickUpCursor.model_validate_json(cursor_file.read_text())
    assert rewritten.lists == tuple(written["lists"]) and rewritten.run == 1  # from the start
    assert run()[0] is False  # the cursor it wrote reads: ordinary runs again
