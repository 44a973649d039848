"""Runs whose process is gone: marked failed (saying why) and their pool slots freed.

A run executes in one process (the in-process executor): `kp index` itself, or the run worker
the code server starts under `kp up`. When that process dies (kill -9, out of memory, a reboot)
the run stays STARTED and a pool slot it claimed stays claimed, so every later step of that
pool waits for ever. Dagster notices a dead run worker only while its code server lives, frees
slots only from a running daemon (`free_slots_after_run_end_seconds`), and never looks at
in-process runs. `reap` is called by `kp index` and `kp up` before they start anything and by
`runs_reaper_sensor` while the daemon runs.

Which process runs a run: the `kp/host` and `kp/pid` tags `kp index` gives the runs it creates,
else the pid Dagster records itself ("Started process for run (pid: N)", "Executing steps in
process (pid: N)"), believed only when the instance launches runs on this machine (the default
run launcher; the Docker launcher's own health check covers containers). A pid counts as the
run's process while a process with that pid exists that started before the run recorded it;
one started later is a different process that was given the same number.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from dagster import (
    DagsterEventType,
    DagsterInstance,
    DagsterRun,
    DagsterRunStatus,
    DefaultRunLauncher,
    DefaultSensorStatus,
    RunsFilter,
    SensorDefinition,
    SensorEvaluationContext,
    SkipReason,
    sensor,
)

from knowledge_platform import run_tags

HOST_TAG = run_tags.HOST
PID_TAG = run_tags.PID
#: Run states in which a process should be alive (QUEUED runs have none yet).
_LIVE = [
    DagsterRunStatus.NOT_STARTED,
    DagsterRunStatus.STARTING,
    DagsterRunStatus.STARTED,
    DagsterRunStatus.CANCELING,
]
#: Clock slack between a process's start time (kernel ticks) and the moment a run recorded it.
_SLACK_SECONDS = 1.0


def process_tags() -> dict[str, str]:
    """Tags naming this process, for a run it executes in-process (`kp index`)."""
    return {HOST_TAG: socket.gethostname(), PID_TAG: str(os.getpid())}


@dataclass(frozen=True)
class RunProcess:
    pid: int
    #: When the run recorded the pid (the process was alive then).
    seen_at: float
    what: str


@dataclass(frozen=True)
class Reaped:
    run_id: str
    #: "" for a finished run whose slots only were freed.
    reason: str
    #: "pool (step)" of every slot or pending claim freed.
    slots: tuple[str, ...]

    def line(self) -> str:
        freed = f"; freed {', '.join(self.slots)}" if self.slots else ""
        if self.reason:
            return f"run {self.run_id[:8]} marked failed: {self.reason}{freed}"
        return f"run {self.run_id[:8]} had ended{freed}"


def _boot_time() -> float:
    for line in Path("/proc/stat").read_text().splitlines():
        if line.startswith("btime "):
            return float(line.split()[1])
    raise OSError("no btime in /proc/stat")


def _started_at(pid: int) -> float | None:
    """When process `pid` started (epoch seconds); None if there is no such live process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    except OSError:  # no /proc (not Linux): existence is all we can tell
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    if fields[0] in ("Z", "X"):  # a zombie: dead, only not yet waited for
        return None
    return _boot_time() + int(fields[19]) / os.sysconf("SC_CLK_TCK")


def is_gone(proc: RunProcess) -> bool:
    started = _started_at(proc.pid)
    return started is None or started > proc.seen_at + _SLACK_SECONDS


def run_process(instance: DagsterInstance, run: DagsterRun, created: float) -> RunProcess | None:
    """The process executing `run`, if it is on this machine and known; None otherwise."""
    tags = run.tags
    if PID_TAG in tags:
        if tags.get(HOST_TAG) != socket.gethostname():
            return None
        return RunProcess(int(tags[PID_TAG]), created, f"kp index, pid {tags[PID_TAG]}")
    if not isinstance(instance.run_launcher, DefaultRunLauncher):
        return None
    found = instance.get_records_for_run(
        run.run_id, of_type=DagsterEventType.ENGINE_EVENT, limit=20
    )
    for record in found.records:
        event = record.event_log_entry.dagster_event
        data = event.engine_event_data if event is not None else None
        pid = data.metadata.get("pid") if data is not None else None
        if pid is not None and str(pid.value).isdigit():
            return RunProcess(
                int(str(pid.value)), record.event_log_entry.timestamp, f"pid {pid.value}"
            )
    return None


def _held(instance: DagsterInstance) -> dict[str, list[str]]:
    """run id -> "pool (step)" of each slot it holds or waits for."""
    storage = instance.event_log_storage
    out: dict[str, list[str]] = {}
    if not storage.supports_global_concurrency_limits:
        return out
    for pool in storage.get_concurrency_keys():
        info = storage.get_concurrency_info(pool)
        claimed = {(s.run_id, s.step_key) for s in info.claimed_slots}
        waiting = {
            (s.run_id, s.step_key) for s in info.pending_steps if not s.assigned_timestamp
        } - claimed
        for run_id, step in sorted(claimed):
            out.setdefault(run_id, []).append(f"{pool} ({step})")
        for run_id, step in sorted(waiting):
            out.setdefault(run_id, []).append(f"{pool} ({step}, waiting)")
    return out


def _dead(instance: DagsterInstance) -> Iterator[tuple[DagsterRun, RunProcess]]:
    for record in instance.get_run_records(RunsFilter(statuses=_LIVE)):
        run = record.dagster_run
        proc = run_process(instance, run, record.create_timestamp.timestamp())
        if proc is not None and is_gone(proc):
            yield run, proc


def release(
    instance: DagsterInstance, run_id: str, reason: str, held: dict[str, list[str]] | None = None
) -> Reaped | None:
    """End `run_id` (its process is gone or stopping): failed, or canceled if it was being
    canceled, saying `reason`; free its slots. None if it had ended and holds nothing."""
    held = _held(instance) if held is None else held
    run = instance.get_run_by_id(run_id)
    said = ""
    if run is not None and not run.is_finished:
        said = reason
        if run.status == DagsterRunStatus.CANCELING:
            instance.report_run_canceled(run, f"Canceled: {reason}.")
        else:
            instance.report_run_failed(run, f"Marked failed: {reason}.")
    slots = tuple(held.pop(run_id, []))
    if slots:
        instance.event_log_storage.free_concurrency_slots_for_run(run_id)
    return Reaped(run_id, said, slots) if said or slots else None


def reap(instance: DagsterInstance) -> list[Reaped]:
    """Mark every run whose process is gone failed (canceled if it was being canceled) and
    free the pool slots of those runs and of every finished run still holding one."""
    held = _held(instance)
    reaped = [
        release(
            instance,
            run.run_id,
            f"the process running it, {proc.what}, is gone (killed, out of memory "
            "or a restart); the next run picks up from the last published state",
            held,
        )
        for run, proc in _dead(instance)
    ]
    for run_id in list(held):
        run = instance.get_run_by_id(run_id)
        if run is None or run.is_finished:
            reaped.append(release(instance, run_id, "", held))
    return [r for r in reaped if r is not None]


def build_reaper_sensor(seconds: int = 10) -> SensorDefinition:
    """`runs_reaper_sensor`: `reap` every `seconds` under the daemon, so a `kp index` killed
    while `kp up` runs (or a run worker whose code server died) does not block the pools."""

    @sensor(
        name="runs_reaper_sensor",
        minimum_interval_seconds=seconds,
        default_status=DefaultSensorStatus.RUNNING,
        description="Marks runs whose process is gone as failed and frees the pool slots "
        "of runs that have ended.",
    )
    def runs_reaper_sensor(context: SensorEvaluationContext):
        started = time.monotonic()
        reaped = reap(context.instance)
        for item in reaped:
            context.log.warning(item.line())
        took = time.monotonic() - started
        return SkipReason(f"{len(reaped)} run(s) reaped ({took:.2f} s)")

    return runs_reaper_sensor
