"""`kp up` as a user runs it: real processes on free ports, a temporary KP_HOME, the demo
registry; an MCP client over HTTP searches the demo once Dagster's sensor has indexed it."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from fastmcp import Client

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


async def wait_for_hits(url: str, token: str, deadline: float) -> dict:
    last: object = None
    while time.monotonic() < deadline:
        try:
            async with Client(url, auth=token) as client:
                result = await client.call_tool(
                    "knowledge_search", {"query": "When does the weekly reindex run?"}
                )
                data = result.structured_content or {}
                if data.get("hits"):
                    return data
                last = data
        except Exception as exc:  # services still starting
            last = exc
        await asyncio.sleep(2)
    raise AssertionError(f"demo not indexed in time; last answer: {last!r}")


@pytest.fixture
def platform(tmp_path: Path):
    dagster_port, mcp_port = free_port(), free_port()
    env = {**os.environ, "KP_HOME": str(tmp_path / "home"), "KP_MCP_PORT": str(mcp_port)}
    env.pop("KP_CONFIG", None)  # the demo registry, as on a fresh clone
    log = (tmp_path / "kp-up.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "kp", "up", "--dagster-port", str(dagster_port)],
        cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        yield proc, tmp_path / "home", dagster_port, mcp_port
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


def test_kp_up_indexes_the_demo_and_serves_search_and_status(platform):
    proc, home, dagster_port, mcp_port = platform
    url = f"http://127.0.0.1:{mcp_port}/mcp"
    token_file = home / "admin-token"
    started = time.monotonic()
    while not token_file.exists():
        assert proc.poll() is None, "kp up exited early"
        assert time.monotonic() - started < 120, "no admin token written"
        time.sleep(0.5)
    token = token_file.read_text().strip()

    data = asyncio.run(wait_for_hits(url, token, started + 240))
    top = data["hits"][0]
    assert top["title"] == "Knowledge platform operations"
    assert top["source"] == "memory_files" and top["scope"] == "internal"
    assert "Sunday" in top["text"]
    print(f"demo indexed and searchable {time.monotonic() - started:.1f}s after kp up")

    # No token: 401 from the HTTP layer.
    assert httpx.post(url, json={}).status_code == 401

    async def status() -> dict:
        async with Client(url, auth=token) as client:
            result = await client.call_tool("get_index_status", {})
            return result.structured_content or {}

    report = asyncio.run(status())
    entries = {(e["source"], e["scope"]): e for e in report["entries"]}
    memory = entries[("memory_files", "internal")]
    assert memory["last_materialization"] and memory["run_id"]
    assert memory["points"] and memory["points"] > 0

    # TERM stops every child process group.
    os.killpg(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(
        _listening(p) for p in (dagster_port, mcp_port)
    ):
        time.sleep(0.5)
    assert not _listening(dagster_port) and not _listening(mcp_port)


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0
