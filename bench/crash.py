"""Crash recovery: runs killed -9 at random moments, inside the collection step among them,
under `kp index` and under `kp up`, and the whole platform cut off at once every few kills.

A memory-files workspace (`--docs` documents, `--edits` of them rewritten and one probe
document added before every run) under a throwaway KP_HOME, the local model by default:

- **kp index**: `kp index --source memory_files --scope internal` as a process, killed at a
  random moment of its run (a share of kills wait for the collection step to start); the next
  ordinary run is the next `kp index`, which reaps what the killed one left.
- **kp up**: `kp up` (dagster dev + MCP) running; a run launched through Dagster's GraphQL API
  (as `trigger_reindex` does) has its run worker killed the same way; every `--cut-every`th
  kill instead kills every process of the platform at once (a power cut) and starts `kp up`
  again. The next ordinary run is the next launched run.

After every kill: the next ordinary run must succeed within twice the normal run time
(median of the latest five uninterrupted runs of the same mode, one every ten kills), the
killed run must be ended (not STARTED) by then, search must find every probe written so
far. A kill that misses (the run ended first) is not counted. Recovery is the time from the
kill to the next run's success (a power cut's restart of `kp up` not included: reported on
its own).

    .venv/bin/python bench/crash.py [--kills 120] [--up-share 0.5] [--cut-every 10]

The last line printed: `crash: kills=<n> midpublish=<m> stuck=<s> lost=<l> worst_recovery_s=<v>`.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
from _common import ROOT, load_average, markdown_table, model_cache, write_results
from crash_workload import Searcher, Workspace, env, median, registry
from dagster import DagsterEventType, DagsterInstance, DagsterRunStatus

from mcp_service.dagster_client import DagsterClient
from tests.crash import held_slots, kill_tree, run_of_process, unfinished, worker_pid
from tests.procs import free_port, stop_group

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
    stuck: str = ""
    #: Probes search did not find after the next run.
    lost: tuple[tuple[str, str], ...] = ()


def step_state(instance: DagsterInstance, run_id: str | None) -> tuple[str, bool]:
    """The step `run_id` was in (its last started one) and whether it was publishing."""
    if run_id is None:
        return "", False
    kinds = {DagsterEventType.STEP_START, DagsterEventType.STEP_SUCCESS,
             DagsterEventType.STEP_FAILURE}
    records = instance.get_records_for_run(run_id, of_type=kinds).records
    started, ended = [], set()
    for record in records:
        step = (record.event_log_entry.step_key or "").split("__")[-1]
        if record.event_log_entry.dagster_event_type == DagsterEventType.STEP_START:
            started.append(step)
        else:
            ended.add(step)
    last = started[-1] if started else ""
    return (last if last in STEPS else ("checks" if last else "")), \
        "collection" in started and "collection" not in ended


class Moment:
    """When to kill: at a random time within the run (from the moment its process is known
    to the run's normal length and a tenth more), or just after the collection step starts
    (share `collection` of kills)."""

    def __init__(self, rng: random.Random, run_s: float, collection: float) -> None:
        self.publish = rng.random() < collection
        self.delay = rng.uniform(0.0, 0.05 if self.publish else 1.1 * run_s)

    def wait(self, instance: DagsterInstance, run_id: Callable[[], str | None],
             over: Callable[[], bool]) -> bool:
        """Until the moment; False if the run ended before it."""
        known: float | None = None
        while not over():
            rid = run_id()
            if rid is not None and known is None:
                known = time.monotonic()
            if known is not None and self.publish and step_state(instance, rid)[1]:
                time.sleep(self.delay)
                return not over()
            if known is not None and not self.publish and \
                    time.monotonic() - known >= self.delay:
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
    recovery."""

    def __init__(self, run: Callable[[int], float], every: int = 10) -> None:
        self.run = run
        self.every = every
        self.times: list[float] = []
        self._done: set[int] = set()

    def measure(self, version: int) -> None:
        self.times.append(self.run(version))

    def refresh(self, kills: int, version: int) -> int:
        """Measure once more after every `every` kills; the workspace version to use next."""
        if kills == 0 or kills % self.every or kills in self._done:
            return version
        self._done.add(kills)
        self.measure(version)
        return version + 1

    @property
    def seconds(self) -> float:
        return median(self.times[-5:])


def _finished(instance: DagsterInstance, run_id: str | None) -> bool:
    run = instance.get_run_by_id(run_id) if run_id else None
    return run is None or run.is_finished


def _judge(kill: Kill, instance: DagsterInstance, searcher: Searcher, work: Workspace,
           ok: bool, grace: float) -> Kill:
    deadline = time.monotonic() + grace
    while not _finished(instance, kill.run_id) and time.monotonic() < deadline:
        time.sleep(0.5)
    reasons = []
    if not ok:
        reasons.append("the next run did not succeed")
    elif kill.next_run_s > 2 * kill.normal_s:
        reasons.append(f"the next run took {kill.next_run_s:.1f} s (normal {kill.normal_s:.1f})")
    if not _finished(instance, kill.run_id):
        reasons.append(f"run {kill.run_id} still unfinished")
    if held := held_slots(instance):
        reasons.append(f"slots held: {held}")
    kill.stuck = "; ".join(reasons)
    kill.lost = tuple(searcher.missing(work.probes))
    return kill


# -- kp index ------------------------------------------------------------------------------

def _kp_index(environ: dict[str, str], timeout: float | None = None) -> tuple[bool, float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "kp", "index", "--source", "memory_files",
                           "--scope", "internal"], cwd=ROOT, env=environ, capture_output=True,
                          text=True, timeout=timeout)
    if done.returncode != 0:
        print(done.stderr[-2000:], flush=True)
    return done.returncode == 0, time.monotonic() - started


def index_mode(kills: int, work: Workspace, home: Path, rng: random.Random,
               collection: float) -> list[Kill]:
    config = registry(home, work.root, embedder=ARGS.embedder)
    environ = env(home, config, model_cache())
    assert _kp_index(environ)[0], "the first kp index failed"
    instance = DagsterInstance.from_config(str(home / "dagster"))
    searcher = Searcher(home, config, model_cache())

    def uninterrupted(version: int) -> float:
        work.edit(version)
        ok, seconds = _kp_index(environ)
        assert ok, "an uninterrupted kp index failed"
        return seconds

    normal = Normal(uninterrupted)
    for version in range(1, 4):
        normal.measure(version)
    run_s = run_seconds(instance, list(instance.get_run_ids(limit=3)))
    print(f"kp index: normal run {normal.seconds:.1f} s, of which the Dagster run "
          f"{run_s:.1f} s", flush=True)
    out: list[Kill] = []
    version = 3
    while len(out) < kills:
        version += 1
        version = normal.refresh(len(out), version)
        work.edit(version)
        moment = Moment(rng, run_s, collection)
        proc = subprocess.Popen([sys.executable, "-m", "kp", "index", "--source",
                                 "memory_files", "--scope", "internal"], cwd=ROOT, env=environ,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not moment.wait(instance, lambda proc=proc: run_of_process(instance, proc.pid),
                           lambda proc=proc: proc.poll() is not None):
            proc.wait()
            continue  # missed: the run ended first
        proc.kill()
        proc.wait()
        killed_at = time.monotonic()
        run_id = run_of_process(instance, proc.pid)
        step, midpublish = step_state(instance, run_id)
        ok, seconds = _kp_index(environ, timeout=10 * normal.seconds)
        kill = Kill("kp index", run_id, step, midpublish, seconds,
                    time.monotonic() - killed_at, normal.seconds)
        out.append(_judge(kill, instance, searcher, work, ok, grace=0))
        _report(out[-1], len(out))
    searcher.close()
    return out


# -- kp up ---------------------------------------------------------------------------------

class Platform:
    def __init__(self, home: Path, environ: dict[str, str]) -> None:
        self.home = home
        self.environ = environ
        self.log = home.parent / f"{home.name}-kp-up.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> float:
        started = time.monotonic()
        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        environ = {**self.environ, "KP_MCP_PORT": str(free_port())}
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kp", "up", "--dagster-port", str(port)], cwd=ROOT,
                env=environ, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        while not self._answers():
            assert self.proc.poll() is None, f"kp up exited; see {self.log}"
            time.sleep(0.5)
        return time.monotonic() - started

    def _answers(self) -> bool:
        try:
            return httpx.post(f"{self.url}/graphql", json={"query": "{ version }"},
                              timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def launch(self) -> str:
        (run,) = DagsterClient(self.url, timeout=60).launch_reindex(
            [("memory_files", "internal")], trigger="bench")
        assert run.run_id, run.error
        return run.run_id

    def cut(self) -> None:
        assert self.proc is not None
        kill_tree(self.proc.pid)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None:
            stop_group(self.proc, timeout=120)


def _wait_run(instance: DagsterInstance, run_id: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = instance.get_run_by_id(run_id)
        if run is not None and run.is_finished:
            return run.status == DagsterRunStatus.SUCCESS
        time.sleep(0.2)
    return False


def _ordinary(platform: Platform, instance: DagsterInstance, timeout: float) -> tuple[bool, float]:
    started = time.monotonic()
    ok = _wait_run(instance, platform.launch(), timeout)
    return ok, time.monotonic() - started


def up_mode(kills: int, work: Workspace, home: Path, rng: random.Random, collection: float,
            cut_every: int) -> tuple[list[Kill], int]:
    config = registry(home, work.root, embedder=ARGS.embedder)
    platform = Platform(home, env(home, config, model_cache()))
    platform.start()
    instance = DagsterInstance.from_config(str(home / "dagster"))
    while not any(r.status == DagsterRunStatus.SUCCESS for r in instance.get_runs()):
        time.sleep(1)  # the registry sensor's first run
    searcher = Searcher(home, config, model_cache())

    def uninterrupted(version: int) -> float:
        work.edit(version)
        ok, seconds = _ordinary(platform, instance, 600)
        assert ok, "an uninterrupted run failed"
        return seconds

    normal = Normal(uninterrupted)
    for version in range(1, 4):
        normal.measure(version)
    run_s = run_seconds(instance, list(instance.get_run_ids(limit=3)))
    print(f"kp up: normal run {normal.seconds:.1f} s, of which the run itself {run_s:.1f} s",
          flush=True)
    out: list[Kill] = []
    version = 3
    try:
        while len(out) < kills:
            version += 1
            version = normal.refresh(len(out), version)
            work.edit(version)
            cut = (len(out) + 1) % cut_every == 0
            moment = Moment(rng, run_s, collection)
            run_id = platform.launch()
            pid: list[int] = []

            def worker(run_id: str = run_id, pid: list[int] = pid) -> str | None:
                """The run, once its worker is known (nothing to kill before)."""
                if not pid and (found := worker_pid(instance, run_id)):
                    pid.append(found)
                return run_id if pid else None

            if not moment.wait(instance, worker,
                               lambda run_id=run_id: _finished(instance, run_id)):
                _wait_run(instance, run_id, 600)
                continue
            if cut:
                platform.cut()
            else:
                os.kill(pid[0], signal.SIGKILL)
            killed_at = time.monotonic()
            step, midpublish = step_state(instance, run_id)
            restart = platform.start() if cut else 0.0
            ok, seconds = _ordinary(platform, instance, 10 * normal.seconds)
            kill = Kill("power cut" if cut else "kp up", run_id, step, midpublish, seconds,
                        time.monotonic() - killed_at - restart, normal.seconds, restart)
            out.append(_judge(kill, instance, searcher, work, ok,
                              grace=max(30.0, normal.seconds)))
            _report(out[-1], len(out))
    finally:
        deadline = time.monotonic() + 300  # retries and sensor runs still going
        while unfinished(instance) and time.monotonic() < deadline:
            time.sleep(2)
        left = len(unfinished(instance))
        platform.stop()
        searcher.close()
    return out, left


# -- report --------------------------------------------------------------------------------

def _report(kill: Kill, n: int) -> None:
    where = f"in {kill.step}" if kill.step else "before its first step"
    cut = f", restart {kill.restart_s:.1f} s" if kill.restart_s else ""
    flag = f"  STUCK: {kill.stuck}" if kill.stuck else ""
    lost = f"  LOST {len(kill.lost)}" if kill.lost else ""
    print(f"{n:3d} {kill.mode:<9} killed {where}{' (publishing)' if kill.midpublish else ''}; "
          f"next run {kill.next_run_s:.1f} s, recovered in {kill.recovery_s:.1f} s{cut}"
          f"{flag}{lost}", flush=True)


def _summary(kills: list[Kill]) -> list[list[str]]:
    rows = []
    for mode in ("kp index", "kp up", "power cut"):
        mine = [k for k in kills if k.mode == mode]
        if not mine:
            continue
        steps = {s: sum(k.step == s for k in mine) for s in ("", *STEPS, "checks")}
        rows.append([mode, str(len(mine)), str(sum(k.midpublish for k in mine)),
                     ", ".join(f"{s or 'start'} {n}" for s, n in steps.items() if n),
                     f"{median([k.normal_s for k in mine]):.1f}",
                     f"{median([k.next_run_s for k in mine]):.1f}",
                     f"{max(k.next_run_s for k in mine):.1f}",
                     f"{max(k.recovery_s for k in mine):.1f}",
                     f"{max(k.restart_s for k in mine):.1f}" if mode == "power cut" else "-",
                     str(sum(bool(k.stuck) for k in mine)),
                     str(len({p for k in mine for p in k.lost}))])
    return rows


ARGS = argparse.Namespace()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=120)
    parser.add_argument("--up-share", type=float, default=0.5,
                        help="share of kills under kp up (the rest under kp index)")
    parser.add_argument("--cut-every", type=int, default=10,
                        help="under kp up, every Nth kill is a power cut")
    parser.add_argument("--collection-share", type=float, default=0.35,
                        help="share of kills made just after the collection step starts")
    parser.add_argument("--docs", type=int, default=150)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--embedder", choices=["local", "hash"], default="local")
    parser.add_argument("--seed", type=int, default=30)
    parser.parse_args(namespace=ARGS)
    rng = random.Random(ARGS.seed)
    up_kills = round(ARGS.kills * ARGS.up_share)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kp-crash-") as tmp:
        base = Path(tmp)
        kills: list[Kill] = []
        left = 0
        if ARGS.kills - up_kills:
            work = Workspace(base / "ws-index", ARGS.docs, ARGS.edits, rng)
            work.create()
            kills += index_mode(ARGS.kills - up_kills, work, base / "home-index", rng,
                                ARGS.collection_share)
        if up_kills:
            work = Workspace(base / "ws-up", ARGS.docs, ARGS.edits, rng)
            work.create()
            up, left = up_mode(up_kills, work, base / "home-up", rng, ARGS.collection_share,
                               ARGS.cut_every)
            kills += up
    minutes = (time.monotonic() - started) / 60
    stuck = sum(bool(k.stuck) for k in kills) + left
    lost = {probe for k in kills for probe in k.lost}
    midpublish = sum(k.midpublish for k in kills)
    worst = max((k.recovery_s for k in kills), default=0.0)
    table = markdown_table(["mode", "kills", "in collection", "killed in", "normal run p50 s",
                            "next run p50 s", "next run max s", "worst recovery s",
                            "restart max s", "stuck", "lost"], _summary(kills))
    notes = [f"- {k.mode} run {k.run_id}: {k.stuck}" for k in kills if k.stuck]
    notes += [f"- {left} run(s) unfinished at the end"] if left else []
    notes += [f"- probe lost: {a} {b}" for a, b in sorted(lost)]
    body = (f"{table}\n\n" + "".join(f"{line}\n" for line in notes) +
            f"\n`.venv/bin/python bench/crash.py --kills {ARGS.kills} --up-share "
            f"{ARGS.up_share} --cut-every {ARGS.cut_every} --collection-share "
            f"{ARGS.collection_share} --docs {ARGS.docs} --edits {ARGS.edits} --embedder "
            f"{ARGS.embedder} --seed {ARGS.seed}`; {minutes:.0f} min; memory-files workspace, "
            f"Qdrant Edge, sqlite; a kill that missed (the run ended first) is not counted; "
            f"{load_average()} at the end.\n")
    path = write_results("crash", "Crash recovery: runs killed -9 at random moments", body)
    print(table)
    print(f"written to {path.relative_to(ROOT)}")
    print(f"crash: kills={len(kills)} midpublish={midpublish} stuck={stuck} lost={len(lost)} "
          f"worst_recovery_s={worst:.1f}")


if __name__ == "__main__":
    os.environ.setdefault("KP_MODEL_CACHE", str(model_cache()))
    main()
