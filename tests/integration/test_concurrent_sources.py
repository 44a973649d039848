"""Several writers, one collection: two sources of one scope publish at the same moment and
both point sets survive (the Edge store's per-collection lock serialises the publishes); and
one scope's publish never waits for another scope's."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import pytest
from dagster import AssetKey, AssetSelection, DagsterInstance, materialize

from assets.checks import build_collection_checks
from assets.factory import build_source_assets
from assets.partitions import ensure_scopes
from knowledge_platform.ingest.runtime import IngestRuntime
from knowledge_platform.settings import Settings
from knowledge_platform.store.edge import EdgeStore
from knowledge_platform.store.shard_dirs import exclusive_lock
from kp.indexing import ensure_dagster_home
from resources.platform import platform_resources
from tests.assets.conftest import Materializer
from tests.conftest import write_registry
from tests.crash import step_started, wait_for
from tests.integration.test_git_docs import commit, git

pytestmark = pytest.mark.integration

SOURCES = ("memory_files", "git_docs")


@pytest.fixture
def registry_data(registry_data: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    """The shared registry (memory_files on a temp workspace) plus git_docs on a temp repo."""
    repo = tmp_path / "handbook"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files: dict[str, str | bytes | None] = {
        "runbooks/deploy.md": "# Deploying\n\nRun the deploy pipeline from main.\n",
        "decisions/0001-qdrant.md": "# Use Qdrant\n\n## Decision\nVectors live in Qdrant.\n",
    }
    commit(repo, files, day=1)
    registry_data["internal"]["sources"]["git_docs"] = {"repo": str(repo)}
    return registry_data


def publish(settings: Settings, source: str) -> Any:
    """The collection step and its checks, on an instance of its own, as a separate run."""
    instance = DagsterInstance.ephemeral()
    ensure_scopes(instance, source, ["internal"])
    key = AssetKey([source, "collection"])
    return materialize(
        [*build_source_assets(source), *build_collection_checks(source)],
        selection=AssetSelection.assets(key) | AssetSelection.checks_for_assets(key),
        partition_key="internal",
        instance=instance,
        resources=platform_resources(settings),
        raise_on_error=False,
    )


def test_two_sources_publish_to_one_collection_at_once(
    kp_env: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepare = Materializer(kp_env)
    for source in SOURCES:
        prepare.partial(source, ["raw", "chunks", "embeddings"])

    # Both publishes ask for the collection's writer at the same moment: without the lock
    # each would copy the same published version and the later publish would drop the
    # other source's points.
    at_once = threading.Barrier(len(SOURCES), timeout=300)
    real_writer = EdgeStore.writer

    @contextlib.contextmanager
    def racing_writer(self: EdgeStore, scope: str, model_id: str, dim: int) -> Iterator[Any]:
        at_once.wait()
        with real_writer(self, scope, model_id, dim) as writer:
            yield writer

    monkeypatch.setattr(EdgeStore, "writer", racing_writer)
    with ThreadPoolExecutor(len(SOURCES)) as pool:
        results = dict(zip(SOURCES, pool.map(lambda s: publish(kp_env, s), SOURCES), strict=True))

    for source, result in results.items():
        assert result.success, source
        checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
        assert checks == {
            f"{source}_collection_matches_chunks": True,
            f"{source}_deletions_within_guard": True,
            f"{source}_pull_complete": True,
            f"{source}_single_embedding_model": True,
            f"{source}_golden_questions": True,
        }
    runtime = IngestRuntime(kp_env)
    try:
        for source in SOURCES:
            chunk_ids = {c.id for c in runtime.snapshots.read_chunks(source, "internal") or []}
            assert chunk_ids
            assert set(runtime.store.point_hashes("internal", source)) == chunk_ids, source
        total = sum(runtime.store.count("internal", s) for s in SOURCES)
        assert runtime.store.count("internal") == total
    finally:
        runtime.close()


def test_publishing_one_scope_never_waits_for_another(
    tmp_path: Path,
    kp_env: Settings,
    registry_data: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On the instance `kp index` and `kp up` use (pools of one slot): while `internal`'s
    publish waits for its collection's writer, `acme`'s publish goes through. With one
    `qdrant_write` pool for every publish it waited for `internal`'s."""
    acme = tmp_path / "acme"
    acme.mkdir()
    (acme / "brief.md").write_text("# Acme brief\n\nAcme sells garden furniture.\n")
    registry_data["clients"]["acme"]["sources"] = {"memory_files": {"path": str(acme)}}
    monkeypatch.setenv("KP_CONFIG", str(write_registry(tmp_path / "two.yaml", registry_data)))
    settings = Settings()
    ensure_dagster_home(settings)
    instance = DagsterInstance.from_config(str(settings.dagster_home))
    ensure_scopes(instance, "memory_files", ["internal", "acme"])

    def run(scope: str) -> Any:
        return materialize(
            build_source_assets("memory_files"),
            partition_key=scope,
            instance=instance,
            resources=platform_resources(settings),
        )

    internal = settings.shards_dir / "internal"
    internal.mkdir(parents=True)
    with ThreadPoolExecutor(2) as pool, exclusive_lock(internal / ".lock", timeout=5):
        waiting = pool.submit(run, "internal")  # reaches its collection step, then waits
        wait_for(
            lambda: any(step_started(instance, r, "collection") for r in instance.get_run_ids()),
            120,
            "internal's publish",
        )
        other = pool.submit(run, "acme")
        done, _ = wait((other,), timeout=120)
        assert other in done and other.result().success, "acme waited for internal"
        assert not waiting.done()
    assert waiting.result(timeout=120).success
    runtime = IngestRuntime(settings)
    try:
        assert runtime.store.count("acme", "memory_files") > 0
        assert runtime.store.count("internal", "memory_files") > 0
    finally:
        runtime.close()
