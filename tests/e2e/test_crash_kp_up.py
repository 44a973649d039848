"""`kp up` crashing as a machine does (real processes, a small memory-files registry): its
run worker killed -9 inside the collection step (the next run succeeds and search finds the
document it added), then the whole platform killed -9 at once while a run publishes, as a
power cut does: `kp up` started again marks that run failed before it starts Dagster, so no
run stays STARTED and no pool slot stays held. A hundred kills at random moments, and the
next run after each power cut: bench/crash.py."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from dagster import DagsterInstance, DagsterRunStatus

from assets.reaper import reap
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from knowledge_platform.store.shard_dirs import exclusive_lock
from mcp_service.dagster_client import DagsterClient
from tests.conftest import write_registry
from tests.crash import (
    failure_message,
    held_slots,
    kill_tree,
    retries_pending,
    step_started,
    unfinished,
    wait_for,
    worker_pid,
)
from tests.procs import Platform, kp_up

pytestmark = pytest.mark.e2e
PAIR = ("memory_files", "internal")


def _probe(workspace: Path, n: int) -> str:
    word = f"crashprobe{n}x"
    (workspace / f"probe-{n}.md").write_text(f"# Probe {n}\n\nThe probe word is {word}.\n")
    return word


def _found(platform: Platform, config: Path, word: str) -> bool:
    runtime = Runtime(Settings.model_validate({"KP_HOME": platform.home, "KP_CONFIG": config}))
    try:
        hits = runtime.retriever.search("internal", word, limit=3)
    finally:
        runtime.close()
    return any(word in h.chunk.text for h in hits)


def _launch(platform: Platform) -> str:
    (launched,) = DagsterClient(platform.dagster_url, timeout=60).launch_reindex([PAIR])
    assert launched.run_id, launched.error
    return launched.run_id


def _ended(instance: DagsterInstance, run_id: str) -> DagsterRunStatus | None:
    run = instance.get_run_by_id(run_id)
    return run.status if run is not None and run.is_finished else None


def _next_run_succeeds(
    platform: Platform, instance: DagsterInstance, config: Path, word: str
) -> None:
    run_id = _launch(platform)
    status = wait_for(lambda: _ended(instance, run_id), 300, "the next run", interval=1)
    assert status == DagsterRunStatus.SUCCESS, platform.tail()
    assert _found(platform, config, word)


def _kill_worker(instance: DagsterInstance, run_id: str) -> None:
    pid = wait_for(lambda: worker_pid(instance, run_id), 120, "the run worker")
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: _ended(instance, run_id), 120, "the killed run marked ended", interval=1)


def test_kp_up_recovers_from_killed_runs_and_a_power_cut(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    for i in range(20):
        (workspace / f"note-{i}.md").write_text(f"# Note {i}\n\nRoutine note number {i}.\n")
    config = write_registry(
        tmp_path / "registry.yaml",
        {
            "embedding": {"provider": "hash"},
            "store": {"engine": "edge"},
            "internal": {"sources": {"memory_files": {"path": str(workspace)}}},
        },
    )
    lock = tmp_path / "home" / "qdrant" / "internal" / ".lock"

    with kp_up(tmp_path, config) as platform:
        platform.wait_for_successful_run()
        instance = DagsterInstance.from_config(str(platform.home / "dagster"))

        word = _probe(workspace, 1)  # the run worker killed while it publishes
        with exclusive_lock(lock, timeout=5):
            run_id = _launch(platform)
            wait_for(lambda: step_started(instance, run_id, "collection"), 300, "publishing")
            _kill_worker(instance, run_id)
        _next_run_succeeds(platform, instance, config, word)

        # everything at once, while a run publishes (the earlier runs and retries done)
        wait_for(
            lambda: not unfinished(instance) and not retries_pending(instance),
            300,
            "every run and retry ended",
            interval=1,
        )
        with exclusive_lock(lock, timeout=5):
            cut = _launch(platform)
            wait_for(lambda: step_started(instance, cut, "collection"), 300, "publishing")
            kill_tree(platform.proc.pid)
            platform.proc.wait()
    assert instance.get_run_by_id(cut).status == DagsterRunStatus.STARTED  # type: ignore[union-attr]

    # `kp up` again reaps before it starts Dagster (the next run after a cut: bench/crash.py).
    with kp_up(tmp_path, config) as platform:
        said = f"before starting: run {cut[:8]} marked failed"
        wait_for(lambda: said in " ".join(platform.log.read_text().split()), 300, said)
    assert instance.get_run_by_id(cut).status == DagsterRunStatus.FAILURE  # type: ignore[union-attr]
    assert "is gone" in failure_message(instance, cut)
    assert reap(instance) == [] and held_slots(instance) == {}  # nothing left STARTED
