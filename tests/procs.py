"""`kp up` as a real process group on free ports, for the e2e and browser suites."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(n: int) -> list[int]:
    """`n` distinct free ports: each socket stays bound until all are picked, so two calls in
    a row cannot be handed the same port (a CI run once got one port for both services)."""
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(socket.socket()) for _ in range(n)]
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]


@contextlib.contextmanager
def served_in_thread(app: Any, port: int | None = None) -> Iterator[str]:
    """An ASGI app served by uvicorn in a thread on `port` (default: a free one); yields its
    `/mcp` URL."""
    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the app did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def stop_group(proc: subprocess.Popen, timeout: float) -> None:
    """TERM the process group `proc` leads (if still running); KILL it after `timeout`."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


@dataclass
class Platform:
    proc: subprocess.Popen[bytes]
    home: Path
    dagster_port: int
    mcp_port: int
    log: Path

    @property
    def mcp_url(self) -> str:
        return f"http://127.0.0.1:{self.mcp_port}/mcp"

    @property
    def dagster_url(self) -> str:
        return f"http://127.0.0.1:{self.dagster_port}"

    def token(self, timeout: float = 180) -> str:
        path = self.home / "admin-token"
        deadline = time.monotonic() + timeout
        while not path.exists():
            self.assert_alive()
            if time.monotonic() > deadline:
                raise AssertionError("kp up wrote no admin token")
            time.sleep(0.5)
        return path.read_text().strip()

    def assert_alive(self) -> None:
        if self.proc.poll() is not None:
            raise AssertionError(f"kp up exited ({self.proc.returncode}):\n{self.tail()}")

    def tail(self, n: int = 40) -> str:
        logs = [self.log, self.home / "logs" / "dagster.log", self.home / "logs" / "mcp.log"]
        return "\n".join(
            f"--- {p.name}\n" + "\n".join(p.read_text(errors="replace").splitlines()[-n:])
            for p in logs
            if p.exists()
        )

    def graphql(self, query: str, variables: dict | None = None) -> dict:
        response = httpx.post(
            f"{self.dagster_url}/graphql",
            json={"query": query, "variables": variables or {}},
            timeout=30,
        )
        response.raise_for_status()
        return response.json()["data"]

    def runs(self) -> list[dict]:
        data = self.graphql("{ runsOrError { ... on Runs { results { runId status } } } }")
        return data["runsOrError"]["results"]

    def wait_for_successful_run(self, timeout: float = 420) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.assert_alive()
            with contextlib.suppress(httpx.HTTPError, KeyError, TypeError):
                statuses = [r["status"] for r in self.runs()]
                if "SUCCESS" in statuses:
                    return
                if "FAILURE" in statuses:
                    raise AssertionError(f"the first index run failed:\n{self.tail()}")
            time.sleep(2)
        raise AssertionError(f"no successful run within {timeout}s:\n{self.tail()}")


@contextlib.contextmanager
def kp_up(tmp_path: Path, config: Path | None = None) -> Iterator[Platform]:
    """`kp up` on free ports over `tmp_path/home`, with the registry `config` (default: the
    demo registry, as on a fresh clone)."""
    dagster_port, mcp_port = free_ports(2)
    home = tmp_path / "home"
    env = {**os.environ, "KP_HOME": str(home), "KP_MCP_PORT": str(mcp_port)}
    env.pop("KP_CONFIG", None)
    if config is not None:
        env["KP_CONFIG"] = str(config)
    log = tmp_path / "kp-up.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kp", "up", "--dagster-port", str(dagster_port)],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        platform = Platform(proc, home, dagster_port, mcp_port, log)
        try:
            yield platform
        finally:
            stop_group(proc, timeout=60)
