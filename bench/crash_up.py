"""The crash bench under `kp up`: a run launched through Dagster's GraphQL API has its run
worker killed -9 at a random moment; every `cut_every`th kill kills the whole platform at
once (a power cut) and starts `kp up` again."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from _common import ROOT, model_cache
from crash_probes import Searcher
from crash_runs import Kill, Moment, finished, judge, measure_normal, report, step_state
from crash_workload import Workspace, env, registry
from dagster import DagsterInstance, DagsterRunStatus

from mcp_service.dagster_client import DagsterClient
from tests.crash import kill_tree, unfinished, worker_pid
from tests.procs import free_port, stop_group


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
                [sys.executable, "-m", "kp", "up", "--dagster-port", str(port)],
                cwd=ROOT,
                env=environ,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        while not self._answers():
            assert self.proc.poll() is None, f"kp up exited; see {self.log}"
            time.sleep(0.5)
        return time.monotonic() - started

    def _answers(self) -> bool:
        try:
            return (
                httpx.post(
                    f"{self.url}/graphql", json={"query": "{ version }"}, timeout=5
                ).status_code
                == 200
            )
        except httpx.HTTPError:
            return False

    def launch(self) -> str:
        (run,) = DagsterClient(self.url, timeout=60).launch_reindex(
            [("memory_files", "internal")], trigger="bench"
        )
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


def up_mode(
    kills: int,
    work: Workspace,
    home: Path,
    rng: random.Random,
    collection: float,
    cut_every: int,
    embedder: str,
) -> tuple[list[Kill], int]:
    config = registry(home, work.root, embedder=embedder)
    platform = Platform(home, env(home, config, model_cache()))
    platform.start()
    instance = DagsterInstance.from_config(str(home / "dagster"))
    while not any(r.status == DagsterRunStatus.SUCCESS for r in instance.get_runs()):
        time.sleep(1)  # the registry sensor's first run
    searcher = Searcher(home, config, model_cache())

    normal, run_s = measure_normal(
        "kp up", work, instance, lambda: _ordinary(platform, instance, 600)
    )
    out: list[Kill] = []
    version = 3
    try:
        while len(out) < kills:
            version += 1
            normal.refresh(len(out))
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

            if not moment.wait(instance, worker, lambda run_id=run_id: finished(instance, run_id)):
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
            kill = Kill(
                "power cut" if cut else "kp up",
                run_id,
                step,
                midpublish,
                seconds,
                time.monotonic() - killed_at - restart,
                normal.seconds,
                restart,
            )
            out.append(
                judge(
                    kill,
                    instance,
                    searcher,
                    work,
                    ok,
                    grace=max(30.0, normal.seconds),
                    normal=normal,
                )
            )
            report(out[-1], len(out))
    finally:
        deadline = time.monotonic() + 300  # retries and sensor runs still going
        while unfinished(instance) and time.monotonic() < deadline:
            time.sleep(2)
        left = len(unfinished(instance))
        platform.stop()
        searcher.close()
    return out, left
