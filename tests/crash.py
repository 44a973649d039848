"""What the crash tests and `bench/crash.py` share: reading a run's state, its process and the
instance's pool slots straight from the embedded Dagster instance under KP_HOME."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from dagster import DagsterEventType, DagsterInstance, DagsterRunStatus, RunsFilter

from assets.reaper import PID_TAG, run_process

T = TypeVar("T")
UNFINISHED = [
    DagsterRunStatus.QUEUED,
    DagsterRunStatus.NOT_STARTED,
    DagsterRunStatus.STARTING,
    DagsterRunStatus.STARTED,
    DagsterRunStatus.CANCELING,
]


def wait_for(probe: Callable[[], T | None], timeout: float, what: str, interval: float = 0.1) -> T:
    """`probe()` once it returns something other than None/False, or AssertionError."""
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:.0f} s")
        time.sleep(interval)


def run_of_process(instance: DagsterInstance, pid: int) -> str | None:
    """The newest run `kp index` process `pid` started."""
    ids = instance.get_run_ids(RunsFilter(tags={PID_TAG: str(pid)}), limit=1)
    return ids[0] if ids else None


def step_started(instance: DagsterInstance, run_id: str, step: str) -> bool:
    """Has `run_id` started the step whose key ends with `step` (e.g. "collection")?"""
    found = instance.get_records_for_run(run_id, of_type=DagsterEventType.STEP_START)
    return any((r.event_log_entry.step_key or "").endswith(f"__{step}") for r in found.records)


def worker_pid(instance: DagsterInstance, run_id: str) -> int | None:
    """The pid of the process executing `run_id`, as the reaper finds it."""
    record = instance.get_run_record_by_id(run_id)
    if record is None:
        return None
    proc = run_process(instance, record.dagster_run, record.create_timestamp.timestamp())
    return proc.pid if proc else None


def unfinished(instance: DagsterInstance) -> list[str]:
    return list(instance.get_run_ids(RunsFilter(statuses=UNFINISHED)))


def retries_pending(instance: DagsterInstance) -> list[str]:
    """Failed runs Dagster will retry whose retry its daemon has not created yet: a killed
    run's retry appears a daemon tick after the run failed, and may then publish."""
    failed = instance.get_run_records(
        RunsFilter(statuses=[DagsterRunStatus.FAILURE], tags={"dagster/will_retry": "true"})
    )
    return [
        r.dagster_run.run_id
        for r in failed
        if "dagster/auto_retry_run_id" not in r.dagster_run.tags
    ]


def held_slots(instance: DagsterInstance) -> dict[str, list[str]]:
    """pool -> run ids holding (or waiting for) one of its slots."""
    storage = instance.event_log_storage
    return {
        pool: [s.run_id for s in info.pending_steps]
        for pool in storage.get_concurrency_keys()
        if (info := storage.get_concurrency_info(pool)).pending_steps
    }


def failure_message(instance: DagsterInstance, run_id: str) -> str:
    events = instance.all_logs(run_id, of_type=DagsterEventType.RUN_FAILURE)
    return events[-1].message if events else ""


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (children in their own sessions included), from /proc."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            text = stat.read_text()
            ppid = int(text[text.rindex(")") + 2 :].split()[1])
            children.setdefault(ppid, []).append(int(stat.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_tree(pid: int) -> None:
    """kill -9 `pid` and everything below it at once, as a power cut does."""
    for target in [pid, *descendants(pid)]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(target, signal.SIGKILL)
