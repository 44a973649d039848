"""The reaper on the embedded instance (the repository's dagster.yaml): a run whose process is
gone is marked failed saying so and its pool slot is freed; a live run, another machine's run
and a run whose pid now belongs to a younger process are judged correctly; an ended run
still holding a slot gives it back; `runs_reaper_sensor` does the same under the daemon."""

from __future__ import annotations

import os
import socket
import subprocess
import time

from dagster import DagsterInstance, DagsterRunStatus, build_sensor_context
from dagster._core.test_utils import create_run_for_test

from assets.reaper import HOST_TAG, PID_TAG, RunProcess, build_reaper_sensor, is_gone, reap
from knowledge_platform.settings import Settings
from kp.indexing import ensure_dagster_home
from tests.crash import failure_message


def _instance(settings: Settings) -> DagsterInstance:
    ensure_dagster_home(settings)
    return DagsterInstance.from_config(str(settings.dagster_home))


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _run(
    instance: DagsterInstance, status: DagsterRunStatus, pid: int, host: str, pool: str | None
) -> str:
    run = create_run_for_test(
        instance,
        job_name="clickup_reindex_job",
        status=status,
        tags={PID_TAG: str(pid), HOST_TAG: host},
    )
    if pool is not None:
        storage = instance.event_log_storage
        storage.initialize_concurrency_limit_to_default(pool)
        assert storage.claim_concurrency_slot(pool, run.run_id, "source__raw").is_claimed
    return run.run_id


def _holders(instance: DagsterInstance) -> dict[str, set[str]]:
    storage = instance.event_log_storage
    return {
        pool: {s.run_id for s in storage.get_concurrency_info(pool).claimed_slots}
        for pool in storage.get_concurrency_keys()
    }


def test_dead_runs_are_failed_and_every_slot_of_an_ended_run_is_freed(kp_env: Settings) -> None:
    instance = _instance(kp_env)
    host, dead = socket.gethostname(), _dead_pid()
    killed = _run(instance, DagsterRunStatus.STARTED, dead, host, "clickup_api")
    alive = _run(instance, DagsterRunStatus.STARTED, os.getpid(), host, "google_api")
    elsewhere = _run(instance, DagsterRunStatus.STARTED, dead, "another-host", None)
    ended = _run(instance, DagsterRunStatus.FAILURE, dead, host, "supabase_api")

    reaped = {r.run_id: r for r in reap(instance)}

    assert set(reaped) == {killed, ended}
    assert reaped[killed].slots == ("clickup_api (source__raw)",)
    assert f"pid {dead}" in reaped[killed].line()
    status = {
        rid: instance.get_run_by_id(rid).status  # type: ignore[union-attr]
        for rid in (killed, alive, elsewhere, ended)
    }
    assert status == {
        killed: DagsterRunStatus.FAILURE,
        alive: DagsterRunStatus.STARTED,
        elsewhere: DagsterRunStatus.STARTED,
        ended: DagsterRunStatus.FAILURE,
    }
    message = failure_message(instance, killed)
    assert f"kp index, pid {dead}, is gone" in message, message
    assert _holders(instance) == {
        "clickup_api": set(),
        "google_api": {alive},
        "supabase_api": set(),
    }
    assert reap(instance) == []  # nothing left to do


def test_a_pid_taken_by_a_younger_process_is_not_the_runs_process() -> None:
    me = os.getpid()
    assert not is_gone(RunProcess(me, time.time(), "this test"))
    assert is_gone(RunProcess(me, time.time() - 10 * 365 * 86400, "a run of ten years ago"))
    assert is_gone(RunProcess(_dead_pid(), time.time(), "a finished process"))


def test_the_reaper_sensor_reaps_under_the_daemon(kp_env: Settings) -> None:
    instance = _instance(kp_env)
    killed = _run(
        instance, DagsterRunStatus.STARTED, _dead_pid(), socket.gethostname(), "clickup_api"
    )
    sensor = build_reaper_sensor()
    result = sensor.evaluate_tick(build_sensor_context(instance=instance))
    assert result.skip_message and result.skip_message.startswith("1 run(s) reaped")
    assert instance.get_run_by_id(killed).status == DagsterRunStatus.FAILURE  # type: ignore[union-attr]
    assert _holders(instance) == {"clickup_api": set()}
