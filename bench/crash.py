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

    .venv/bin/python bench/crash.py [--kills 120] [--up-share 0.5] [--cut-every 10] [--keep DIR]

A probe search misses is looked into (bench/crash_probes.py): a freshly opened Runtime's search,
an exact look in the published collection, the raw snapshot; each kind is reported apart.

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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from _common import ROOT, load_average, markdown_table, model_cache, write_results
from crash_probes import KINDS, Searcher
from crash_runs import (
    STEPS,
    Kill,
    Moment,
    judge,
    kill_line,
    measure_normal,
    report,
    step_state,
)
from crash_up import up_mode
from crash_workload import Workspace, env, median, registry
from dagster import DagsterInstance

from tests.crash import run_of_process

# -- kp index ------------------------------------------------------------------------------


def _kp_index(environ: dict[str, str], timeout: float | None = None) -> tuple[bool, float]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "kp", "index", "--source", "memory_files", "--scope", "internal"],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        print(done.stderr[-2000:], flush=True)
    return done.returncode == 0, time.monotonic() - started


def index_mode(
    kills: int, work: Workspace, home: Path, rng: random.Random, collection: float
) -> list[Kill]:
    config = registry(home, work.root, embedder=ARGS.embedder)
    environ = env(home, config, model_cache())
    assert _kp_index(environ)[0], "the first kp index failed"
    instance = DagsterInstance.from_config(str(home / "dagster"))
    searcher = Searcher(home, config, model_cache())

    normal, run_s = measure_normal("kp index", work, instance, lambda: _kp_index(environ))
    out: list[Kill] = []
    version = 3
    while len(out) < kills:
        version += 1
        normal.refresh(len(out))
        work.edit(version)
        moment = Moment(rng, run_s, collection)
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kp",
                "index",
                "--source",
                "memory_files",
                "--scope",
                "internal",
            ],
            cwd=ROOT,
            env=environ,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if not moment.wait(
            instance,
            lambda proc=proc: run_of_process(instance, proc.pid),
            lambda proc=proc: proc.poll() is not None,
        ):
            proc.wait()
            continue  # missed: the run ended first
        proc.kill()
        proc.wait()
        killed_at = time.monotonic()
        run_id = run_of_process(instance, proc.pid)
        step, midpublish = step_state(instance, run_id)
        ok, seconds = _kp_index(environ, timeout=10 * normal.seconds)
        kill = Kill(
            "kp index",
            run_id,
            step,
            midpublish,
            seconds,
            time.monotonic() - killed_at,
            normal.seconds,
        )
        out.append(judge(kill, instance, searcher, work, ok, grace=0, normal=normal))
        report(out[-1], len(out))
    searcher.close()
    return out


# -- report --------------------------------------------------------------------------------


def _summary(kills: list[Kill]) -> list[list[str]]:
    rows = []
    for mode in ("kp index", "kp up", "power cut"):
        mine = [k for k in kills if k.mode == mode]
        if not mine:
            continue
        steps = {s: sum(k.step == s for k in mine) for s in ("", *STEPS, "checks")}
        rows.append(
            [
                mode,
                str(len(mine)),
                str(sum(k.midpublish for k in mine)),
                ", ".join(f"{s or 'start'} {n}" for s, n in steps.items() if n),
                f"{median([k.normal_s for k in mine]):.1f}",
                f"{median([k.next_run_s for k in mine]):.1f}",
                f"{max(k.next_run_s for k in mine):.1f}",
                f"{max(k.recovery_s for k in mine):.1f}",
                f"{max(k.restart_s for k in mine):.1f}" if mode == "power cut" else "-",
                str(sum(k.control_s > 0 for k in mine)),
                str(sum(bool(k.stuck) for k in mine)),
                *(str(n) for n in _lost(mine).values()),
            ]
        )
    return rows


def _kinds_of(kills: list[Kill], probe: tuple[str, str]) -> set[str]:
    return {m.kind for k in kills for m in k.misses if m.probe == probe}


_KINDS_SAID = (
    "*stale reader*: a Runtime opened then finds it; *filtered out*: published, not as a stable "
    "chunk; *ranked out*: published, below the top 5 for its own words; *unpublished*: in the "
    "raw snapshot, not in the collection; *unpulled*: not in the raw snapshot"
)


def _lost(kills: list[Kill]) -> dict[str, int]:
    """kind -> probes missed that way at least once (the same probe can count under two)."""
    return {
        kind: len({m.probe for k in kills for m in k.misses if m.kind == kind}) for kind in KINDS
    }


@contextmanager
def _base(keep: Path | None) -> Iterator[Path]:
    """Where the workspaces and homes go: `keep` (made if absent, left in place) or a
    temporary directory removed at the end."""
    if keep is None:
        with tempfile.TemporaryDirectory(prefix="kp-crash-") as tmp:
            yield Path(tmp)
        return
    keep.mkdir(parents=True, exist_ok=True)
    if any(keep.iterdir()):
        raise SystemExit(f"--keep {keep}: not empty; name a new or empty directory")
    yield keep


ARGS = argparse.Namespace()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=120)
    parser.add_argument(
        "--up-share",
        type=float,
        default=0.5,
        help="share of kills under kp up (the rest under kp index)",
    )
    parser.add_argument(
        "--cut-every", type=int, default=10, help="under kp up, every Nth kill is a power cut"
    )
    parser.add_argument(
        "--collection-share",
        type=float,
        default=0.35,
        help="share of kills made just after the collection step starts",
    )
    parser.add_argument("--docs", type=int, default=150)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--embedder", choices=["local", "hash"], default="local")
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument(
        "--keep",
        type=Path,
        help="run under this (new or empty) directory and keep it: homes, workspaces, logs",
    )
    parser.parse_args(namespace=ARGS)
    rng = random.Random(ARGS.seed)
    up_kills = round(ARGS.kills * ARGS.up_share)
    started = time.monotonic()
    with _base(ARGS.keep) as base:
        kills: list[Kill] = []
        left = 0
        if ARGS.kills - up_kills:
            work = Workspace(base / "ws-index", ARGS.docs, ARGS.edits, rng)
            work.create()
            kills += index_mode(
                ARGS.kills - up_kills, work, base / "home-index", rng, ARGS.collection_share
            )
        if up_kills:
            work = Workspace(base / "ws-up", ARGS.docs, ARGS.edits, rng)
            work.create()
            up, left = up_mode(
                up_kills,
                work,
                base / "home-up",
                rng,
                ARGS.collection_share,
                ARGS.cut_every,
                ARGS.embedder,
            )
            kills += up
    minutes = (time.monotonic() - started) / 60
    stuck = sum(bool(k.stuck) for k in kills) + left
    lost = {m.probe for k in kills for m in k.misses}
    kinds = _lost(kills)
    midpublish = sum(k.midpublish for k in kills)
    worst = max((k.recovery_s for k in kills), default=0.0)
    table = markdown_table(
        [
            "mode",
            "kills",
            "in collection",
            "killed in",
            "normal run p50 s",
            "next run p50 s",
            "next run max s",
            "worst recovery s",
            "restart max s",
            "rechecked",
            "stuck",
            *(f"lost: {kind}" for kind in KINDS),
        ],
        _summary(kills),
    )
    notes = [f"- {k.mode} run {k.run_id}: {k.stuck}" for k in kills if k.stuck]
    notes += [f"- {left} run(s) unfinished at the end"] if left else []
    notes += [
        f"- probe lost: {' '.join(probe)} ({', '.join(sorted(_kinds_of(kills, probe)))})"
        for probe in sorted(lost)
    ]
    body = (
        f"{table}\n\n"
        + "".join(f"{line}\n" for line in notes)
        + f"\n`.venv/bin/python bench/crash.py --kills {ARGS.kills} --up-share "
        f"{ARGS.up_share} --cut-every {ARGS.cut_every} --collection-share "
        f"{ARGS.collection_share} --docs {ARGS.docs} --edits {ARGS.edits} --embedder "
        f"{ARGS.embedder} --seed {ARGS.seed}`; {minutes:.0f} min; memory-files workspace, "
        f"Qdrant Edge, sqlite; a kill that missed (the run ended first) is not counted; "
        f"{load_average()} at the end. *rechecked*: next runs slower than twice the normal "
        f"time, held to twice an uninterrupted run made right after them instead (the "
        f"machine is shared). *lost*: probes a Searcher kept open since the start did not "
        f"find in its top 5, by what an exact look found: {_KINDS_SAID}.\n\n"
        "Every kill, in order:\n\n```\n"
        + "\n".join(kill_line(k, n) for n, k in enumerate(kills, 1))
        + "\n```\n"
    )
    path = write_results("crash", "Crash recovery: runs killed -9 at random moments", body)
    print(table)
    print(f"written to {path.relative_to(ROOT)}")
    print("lost by kind: " + ", ".join(f"{kind} {n}" for kind, n in kinds.items()))
    print(
        f"crash: kills={len(kills)} midpublish={midpublish} stuck={stuck} lost={len(lost)} "
        f"worst_recovery_s={worst:.1f}"
    )


if __name__ == "__main__":
    os.environ.setdefault("KP_MODEL_CACHE", str(model_cache()))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop `kp up` on the way out
    main()
