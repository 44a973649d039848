"""The crash bench's bookkeeping: one kill and its verdict, the step a killed run was in,
when to kill, and the normal run time a recovery is held to."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from crash_probes import KINDS, Miss, Searcher
from crash_workload import Workspace, median
from dagster import DagsterEventType, DagsterInstance

from tests.crash import held_slots

STEPS = ("raw", "chunks", "embeddings", "collection")


@dataclass
class Kill:
    mode: str
    run_id: str | None
    #: The step the run was in when killed ("" before its first step, "checks" after).
    step: str
    midpublish: bool
    next_run_s: float
    recovery_s: float
    normal_s: float
    restart_s: float = 0.0
    #: An uninterrupted run made right after a next run slower than twice normal (0: none).
    control_s: float = 0.0
    stuck: str = ""
    #: Probes search did not find after the next run, and what happened to each.
    misses: tuple[Miss, ...] = ()


def step_state(instance: DagsterInstance, run_id: str | None) -> tuple[str, bool]:
    """The step `run_id` was in (its last started one) and whether it was publishing."""
    if run_id is None:
        return "", False
    kinds = {
        DagsterEventType.STEP_START,
        DagsterEventType.STEP_SUCCESS,
        DagsterEventType.STEP_FAILURE,
    }
    records = instance.get_records_for_run(run_id, of_type=kinds).records
    started, ended = [], set()
    for record in records:
        step = (record.event_log_entry.step_key or "").split("__")[-1]
        if record.event_log_entry.dagster_event_type == DagsterEventType.STEP_START:
            started.append(step)
        else:
            ended.add(step)
    last = started[-1] if started else ""
    return (
        last if last in STEPS else ("checks" if last else "")
    ), "collection" in started and "collection" not in ended


class Moment:
    """When to kill: at a random time within the run (from the moment its process is known
    to the run's normal length and a tenth more), or just after the collection step starts
    (share `collection` of kills)."""

    def __init__(self, rng: random.Random, run_s: float, collection: float) -> None:
        self.publish = rng.random() < collection
        self.delay = rng.uniform(0.0, 0.05 if self.publish else 1.1 * run_s)

    def wait(
        self, instance: DagsterInstance, run_id: Callable[[], str | None], over: Callable[[], bool]
    ) -> bool:
        """Until the moment; False if the run ended before it."""
        known: float | None = None
        while not over():
            rid = run_id()
            if rid is not None and known is None:
                known = time.monotonic()
            if known is not None and self.publish and step_state(instance, rid)[1]:
                time.sleep(self.delay)
                return not over()
            if known is not None and not self.publish and time.monotonic() - known >= self.delay:
                return True
            time.sleep(0.05)
        return False


def run_seconds(instance: DagsterInstance, run_ids: list[str]) -> float:
    """The median time the runs took from their start to their end (Dagster's record)."""
    spans = []
    for run_id in run_ids:
        record = instance.get_run_record_by_id(run_id)
        if record is not None and record.start_time and record.end_time:
            spans.append(record.end_time - record.start_time)
    return median(spans)


class Normal:
    """The normal (uninterrupted) run time: the median of the latest five, re-measured every
    `every` kills, so the machine's load drifting over an hour does not pass for a slow
    recovery. A next run slower than twice that is compared with an uninterrupted run made
    right after it (the machine, shared, can be slow for a while)."""

    def __init__(self, run: Callable[[int], float], every: int = 10) -> None:
        self.run = run
        self.every = every
        self.times: list[float] = []
        self._done: set[int] = set()
        self._version = 100_000  # workspace versions of the uninterrupted runs

    def measure(self) -> float:
        self._version += 1
        self.times.append(self.run(self._version))
        return self.times[-1]

    def refresh(self, kills: int) -> None:
        """Measure once more after every `every` kills."""
        if kills and not kills % self.every and kills not in self._done:
            self._done.add(kills)
            self.measure()

    @property
    def seconds(self) -> float:
        return median(self.times[-5:])


def measure_normal(
    what: str,
    work: Workspace,
    instance: DagsterInstance,
    ordinary: Callable[[], tuple[bool, float]],
) -> tuple[Normal, float]:
    """Three uninterrupted runs: the Normal, and how long the Dagster run itself took."""

    def uninterrupted(version: int) -> float:
        work.edit(version)
        ok, seconds = ordinary()
        assert ok, f"an uninterrupted run ({what}) failed"
        return seconds

    normal = Normal(uninterrupted)
    for _ in range(3):
        normal.measure()
    run_s = run_seconds(instance, list(instance.get_run_ids(limit=3)))
    print(
        f"{what}: normal run {normal.seconds:.1f} s, of which the Dagster run {run_s:.1f} s",
        flush=True,
    )
    return normal, run_s


def finished(instance: DagsterInstance, run_id: str | None) -> bool:
    run = instance.get_run_by_id(run_id) if run_id else None
    return run is None or run.is_finished


def judge(
    kill: Kill,
    instance: DagsterInstance,
    searcher: Searcher,
    work: Workspace,
    ok: bool,
    grace: float,
    normal: Normal,
) -> Kill:
    deadline = time.monotonic() + grace
    while not finished(instance, kill.run_id) and time.monotonic() < deadline:
        time.sleep(0.5)
    if ok and kill.next_run_s > 2 * kill.normal_s:
        kill.control_s = normal.measure()
    limit = 2 * max(kill.normal_s, kill.control_s)
    reasons = []
    if not ok:
        reasons.append("the next run did not succeed")
    elif kill.next_run_s > limit:
        reasons.append(
            f"the next run took {kill.next_run_s:.1f} s (normal "
            f"{kill.normal_s:.1f}, an uninterrupted run just after "
            f"{kill.control_s:.1f})"
        )
    if not finished(instance, kill.run_id):
        reasons.append(f"run {kill.run_id} still unfinished")
    if held := held_slots(instance):
        reasons.append(f"slots held: {held}")
    kill.stuck = "; ".join(reasons)
    kill.misses = tuple(searcher.misses(work.probes))
    return kill


def kill_line(kill: Kill, n: int) -> str:
    where = f"in {kill.step}" if kill.step else "before its first step"
    cut = f", restart {kill.restart_s:.1f} s" if kill.restart_s else ""
    flag = f"  STUCK: {kill.stuck}" if kill.stuck else ""
    if kill.control_s and not kill.stuck:
        flag += f"  (slow machine: an uninterrupted run {kill.control_s:.1f} s)"
    lost = f"  LOST {len(kill.misses)}: {by_kind(kill.misses)}" if kill.misses else ""
    return (
        f"{n:3d} {kill.mode:<9} killed {where}"
        f"{' (publishing)' if kill.midpublish else ''}; next run {kill.next_run_s:.1f} s, "
        f"recovered in {kill.recovery_s:.1f} s{cut}{flag}{lost}"
    )


def by_kind(misses: tuple[Miss, ...] | list[Miss]) -> str:
    """e.g. "ranked out 1 (rank 7)", the kinds in KINDS' order, ranks as a freshly opened
    Runtime puts them (0: not within the depth looked at)."""
    parts = []
    for kind in KINDS:
        mine = [m for m in misses if m.kind == kind]
        if mine:
            ranks = ", ".join(str(m.rank) for m in mine)
            parts.append(f"{kind} {len(mine)} (rank {ranks})")
    return "; ".join(parts)


def report(kill: Kill, n: int) -> None:
    print(kill_line(kill, n), flush=True)
    for miss in kill.misses:
        print(f"    missed {' '.join(miss.probe)}: {miss.kind}, rank {miss.rank}", flush=True)
