"""A KP_HOME indexed by an earlier version (Parquet snapshots beside the connector's cursor)
upgraded in place: the next ordinary run pulls in full instead of reading the cursor of
snapshots it cannot read, so no unchanged document loses its points, and the Parquet files
are replaced."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from knowledge_platform.ingest.snapshots import SnapshotStore
from tests.integration.test_connector_assets import SCOPE, SourceRun
from tests.integration.test_git_docs import commit, git
from tests.unit.test_snapshots import LEGACY

pytestmark = pytest.mark.integration


def test_an_upgraded_home_pulls_in_full_and_keeps_every_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "handbook"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        {
            "README.md": "# Handbook\n\nWelcome to the Acme handbook.\n",
            "runbooks/deploy.md": "# Deploying\n\nRun the deploy pipeline from main.\n",
            "docs/legacy.md": "# Legacy tracking\n\nThe old tag manager container.\n",
        },
        day=1,
    )
    run = SourceRun(tmp_path, monkeypatch, "git_docs", {"repo": str(repo)})
    run.run()
    before = {c.id for c in run.chunks()}
    home = SnapshotStore(run.settings.data_dir).dir("git_docs", SCOPE)
    for name in ("raw.jsonl", "chunks.jsonl", "embeddings.npz"):  # as the old version left it
        (home / name).unlink()
    for legacy in LEGACY.iterdir():
        shutil.copy(legacy, home / legacy.name)
    assert (home / "cursor.json").exists()

    commit(
        repo, {"runbooks/deploy.md": "# Deploying\n\nRun the deploy pipeline from a tag.\n"}, day=2
    )
    second = run.run()  # every check passes

    assert run.materialize.metadata(second, "collection")["deleted"] == 0
    after = run.chunks()
    assert {c.source_id for c in after} == {"README.md", "runbooks/deploy.md", "docs/legacy.md"}
    assert before <= {c.id for c in after}
    assert run.search("welcome handbook")[0].title == "Handbook"
    assert any("from a tag" in c.text for c in run.search("deploy pipeline tag", limit=3))
    assert list(home.glob("*.parquet")) == []
