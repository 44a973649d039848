"""`kp index` killed or stopped, as an operator's machine does it (real processes, the
embedded instance as `kp index` configures it):

- kill -9 while the run publishes (the collection step, where it used to hold the one
  `qdrant_write` slot every publish queued on): the next `kp index` says which run it marked
  failed and completes, search finds the new document, no run stays STARTED, no slot is held;
- SIGTERM while the run waits for a pool slot another live run holds: the status names the
  holder once the wait passes the source's deadline, and the run stops within seconds,
  failed, its claim dropped, the holder's slot untouched."""

from __future__ import annotations

import datetime as dt
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from dagster import DagsterInstance, DagsterRunStatus
from dagster._core.test_utils import create_run_for_test

from assets.reaper import HOST_TAG, PID_TAG
from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.access import ADMIN_PRINCIPAL, grant_for
from knowledge_platform.serve.querylog import QueryLog
from knowledge_platform.settings import Settings
from knowledge_platform.store.shard_dirs import exclusive_lock
from kp.indexing import ensure_dagster_home
from mcp_service.dagster_client import DagsterClient
from mcp_service.service import KnowledgeService
from tests.conftest import write_registry
from tests.crash import (
    failure_message,
    held_slots,
    run_of_process,
    step_started,
    unfinished,
    wait_for,
)
from tests.fakes.clickup_server import ClickUpFake
from tests.integration.dagster_web import dagster_webserver

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]


def _env(settings: Settings, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "KP_HOME": str(settings.home_dir),
        "KP_CONFIG": str(settings.config),
        **extra,
    }


def _kp_index(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "kp", "index", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _instance(settings: Settings) -> DagsterInstance:
    ensure_dagster_home(settings)
    return DagsterInstance.from_config(str(settings.dagster_home))


def test_kp_index_killed_while_publishing_does_not_stop_the_next(
    kp_env: Settings, workspace: Path
) -> None:
    (workspace / "crash-probe.md").write_text("# Crash probe\n\nThe probe word is zanzibar.\n")
    instance = _instance(kp_env)
    collection = kp_env.shards_dir / "internal"
    collection.mkdir(parents=True)
    # Holding the collection's writer lock keeps the run inside its collection step.
    with exclusive_lock(collection / ".lock", timeout=5):
        killed = _kp_index(_env(kp_env))
        run_id = wait_for(lambda: run_of_process(instance, killed.pid), 120, "the run")
        wait_for(lambda: step_started(instance, run_id, "collection"), 120, "collection step")
        os.kill(killed.pid, signal.SIGKILL)
        killed.communicate()

    # Before the fix the killed run kept the qdrant_write slot and this run waited for ever.
    done = subprocess.run(
        [sys.executable, "-m", "kp", "index"],
        cwd=REPO,
        env=_env(kp_env),
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    assert (
        f"run {run_id[:8]} marked failed: the process running it, kp index, "
        f"pid {killed.pid}, is gone" in " ".join(done.stderr.split())
    )
    assert f"pid {killed.pid}, is gone" in failure_message(instance, run_id)
    assert unfinished(instance) == [] and held_slots(instance) == {}
    runtime = Runtime(kp_env)
    try:
        hits = runtime.retriever.search("internal", "zanzibar probe word", limit=3)
    finally:
        runtime.close()
    assert hits and hits[0].chunk.title == "Crash probe"


def _holder(instance: DagsterInstance) -> str:
    """A live run (this test's process) holding the one clickup_api slot."""
    run = create_run_for_test(
        instance,
        job_name="clickup_reindex_job",
        status=DagsterRunStatus.STARTED,
        tags={PID_TAG: str(os.getpid()), HOST_TAG: socket.gethostname()},
    )
    storage = instance.event_log_storage
    storage.initialize_concurrency_limit_to_default("clickup_api")
    assert storage.claim_concurrency_slot("clickup_api", run.run_id, "clickup__raw").is_claimed
    return run.run_id


def _waiting(instance: DagsterInstance, run_id: str) -> Any:
    info = instance.event_log_storage.get_concurrency_info("clickup_api")
    return next(
        (s for s in info.pending_steps if s.run_id == run_id and s.assigned_timestamp is None), None
    )


def test_a_run_waiting_for_a_slot_shows_blocked_and_stops_on_sigterm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ClickUpFake() as fake:
        fake.add_hierarchy("9001", "s1", None, "L1")
        fake.add_task("L1", "Swatch test plan", task_id="plan", description="Launch it.")
        registry = {
            "embedding": {"provider": "hash"},
            "store": {"engine": "edge"},
            "internal": {
                "sources": {
                    "clickup": {
                        "base_url": fake.url("/api/v2"),
                        "docs_base_url": fake.url("/api/v3"),
                        "list_ids": ["L1"],
                        "max_comments": 0,
                    }
                }
            },
        }
        monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("KP_CONFIG", str(write_registry(tmp_path / "registry.yaml", registry)))
        settings = Settings()
        instance = _instance(settings)
        holder = _holder(instance)
        blocked = _kp_index(_env(settings, CLICKUP_TOKEN="pk_42_TESTTOKEN"))
        try:
            run_id = wait_for(lambda: run_of_process(instance, blocked.pid), 120, "the run")
            waiting = wait_for(lambda: _waiting(instance, run_id), 120, "the claim")

            with dagster_webserver(instance) as url:
                runtime = Runtime(settings)
                try:
                    service = KnowledgeService(
                        runtime, DagsterClient(url, timeout=60), QueryLog(settings.query_log)
                    )
                    grant = grant_for(runtime.registry, ADMIN_PRINCIPAL, admin=True)
                    soon = service.index_status(
                        grant, now=waiting.enqueued_timestamp + dt.timedelta(minutes=29)
                    )
                    late = service.index_status(
                        grant, now=waiting.enqueued_timestamp + dt.timedelta(minutes=31)
                    )
                finally:
                    runtime.close()
            (row,) = late.sources
            assert run_id in row.in_flight_runs and soon.sources[0].blocked == []
            (step,) = row.blocked  # clickup's deadline: its 30-minute schedule
            assert (step.run_id, step.pool, step.held_by) == (run_id, "clickup_api", [holder])
            assert (
                f"clickup/internal: run {run_id[:8]} blocked 31 min on pool clickup_api "
                f"(clickup__raw), held by run {holder[:8]}" in late.health
            )

            blocked.send_signal(signal.SIGTERM)
            _, err = blocked.communicate(timeout=60)
        finally:
            if blocked.poll() is None:
                blocked.kill()
    assert blocked.returncode == 128 + signal.SIGTERM, err
    assert "clickup / internal: stopped by SIGTERM" in " ".join(err.split())
    assert instance.get_run_by_id(run_id).status == DagsterRunStatus.FAILURE  # type: ignore[union-attr]
    assert held_slots(instance) == {"clickup_api": [holder]}
    assert unfinished(instance) == [holder]
