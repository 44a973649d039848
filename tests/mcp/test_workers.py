"""`kp mcp --workers 2` (here `python -m mcp_service`, the same `run`): the supervisor
listens on the port and hands connections to the two workers in turn, so eight opened
together split 4:4; each worker reads the same published edition through its own reader copy
and follows the registry file on its own; a killed worker is replaced; a TERM stops both and
removes their copies, and workers whose supervisor is gone stop. About 20 s: processes start
and import FastMCP."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import yaml

from knowledge_platform.config.registry import hash_token
from knowledge_platform.ingest.runtime import IngestRuntime
from knowledge_platform.models import Document
from knowledge_platform.settings import Settings
from tests.mcp.fixtures import index_documents
from tests.procs import REPO, free_port

NOTE = Document(
    source="memory_files",
    source_id="ops.md",
    scope="internal",
    title="Ops",
    kind="memory",
    uri="file:///ws/ops.md",
    text="# Ops\n\nThe weekly reindex runs every Sunday at 02:00.\n",
)
CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {
        "name": "knowledge_search",
        "arguments": {"query": "weekly reindex"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    },
}


def sockets_of(pid: int) -> set[str]:
    """Inodes of the sockets `pid` holds open (none once it is gone)."""
    found = set()
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    found.add(target[8:-1])
    return found


def connections_of(port: int, pids: set[int]) -> Counter[int]:
    """How many established connections to `port` each of `pids` holds."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "01" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(fields[9])
    return Counter({pid: len(sockets_of(pid) & inodes) for pid in pids})


async def burst(
    url: str, headers: dict[str, str], clients: int, while_open: Callable[[], Any] = lambda: None
) -> tuple[list[str], Any]:
    """`clients` connections opened together, one search each: the first hit's titles, and
    what `while_open` returns, called before the connections close."""

    async def one(http: httpx.AsyncClient) -> str:
        reply = await http.post(url, json=CALL, headers=headers)
        return reply.json()["result"]["structuredContent"]["hits"][0]["title"]

    sessions = [httpx.AsyncClient(timeout=60) for _ in range(clients)]
    try:
        return list(await asyncio.gather(*(one(http) for http in sessions))), while_open()
    finally:
        await asyncio.gather(*(http.aclose() for http in sessions))


def two_workers(port: int, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """`python -m mcp_service --workers 2` on `port`, its log (stderr) written to `log`."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "mcp_service", "--port", str(port), "--workers", "2"],
            cwd=REPO,
            env=env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=out,
        )


def serving(log: Path) -> list[int]:
    """The workers the supervisor has seen start serving, in order."""
    return [int(pid) for pid in re.findall(r"worker (\d+) serving", log.read_text())]


def wait_for(check: Callable[[], bool], seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert check()


def running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie waits for an init that may never reap)."""
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    except OSError:
        return False


def test_two_workers_serve_one_port_from_one_edition_and_stop_together(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    config = tmp_path / "registry.yaml"
    registry = {
        "embedding": {"provider": "hash"},
        "internal": {"sources": {"memory_files": {"path": "ws"}}},
    }
    config.write_text(yaml.safe_dump(registry))
    env = {
        **os.environ,
        "KP_HOME": str(tmp_path / "home"),
        "KP_CONFIG": str(config),
        "KP_DAGSTER_URL": f"http://127.0.0.1:{free_port()}",
    }
    runtime = IngestRuntime(Settings.model_validate(env))
    try:
        index_documents(runtime, "internal", "memory_files", [NOTE])
        version = runtime.store.info("internal").version
    finally:
        runtime.close()
    port = free_port()
    log = tmp_path / "mcp.log"
    proc = two_workers(port, env, log)
    readers = tmp_path / "home" / "qdrant" / "internal" / "readers"
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_for(lambda: len(serving(log)) == 2)
        workers = set(serving(log))
        token = (tmp_path / "home" / "admin-token").read_text().strip()
        headers = {
            "Authorization": f"Bearer {token}",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": "knowledge_search",
            "Accept": "application/json, text/event-stream",
        }
        # Eight clients that connect at once split 4:4: the supervisor hands connections
        # over in turn. (A socket each let the kernel's address hash split them, 4:4 about a
        # quarter of the time; one shared socket gave most to the worker that woke first.)
        titles, split = asyncio.run(burst(url, headers, 8, lambda: connections_of(port, workers)))
        assert titles == ["Ops"] * 8
        assert split == Counter(dict.fromkeys(workers, 4)), split
        assert not connections_of(port, {proc.pid})[proc.pid]  # it kept no copy
        # Each worker opened its own reader copy of the one published edition.
        readers_seen = {p.name for p in readers.iterdir() if p.is_dir()}
        assert {int(name.split("-")[1]) for name in readers_seen} == workers
        assert len(readers_seen) == 2 and all(n.startswith(f"{version}-") for n in readers_seen)
        # Each worker follows the registry on its own: a principal added now signs in at
        # whichever worker a new connection reaches.
        config.write_text(
            yaml.safe_dump(
                {
                    **registry,
                    "principals": [
                        {"name": "ops", "admin": True, "token_sha256": hash_token("ops-token")}
                    ],
                }
            )
        )
        ops = {**headers, "Authorization": "Bearer ops-token"}
        codes = {httpx.post(url, json=CALL, headers=ops, timeout=60).status_code for _ in range(20)}
        assert codes == {200}
        # A worker that dies is replaced; connections go to the survivor meanwhile, then
        # to both again.
        victim = min(workers)
        os.kill(victim, signal.SIGKILL)
        wait_for(lambda: not running(victim))  # its channel is closed: nothing is lost in it
        assert asyncio.run(burst(url, headers, 4))[0] == ["Ops"] * 4
        wait_for(lambda: len(serving(log)) == 3)
        pair = set(serving(log)[-1:]) | (workers - {victim})
        titles, split = asyncio.run(burst(url, headers, 8, lambda: connections_of(port, pair)))
        assert titles == ["Ops"] * 8 and split == Counter(dict.fromkeys(pair, 4)), split
        workers |= pair
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    text = log.read_text()
    assert proc.returncode == 0, text[-2000:]
    reloads = [ln for ln in text.splitlines() if "principals +ops" in ln]
    assert len(reloads) == 2, text[-2000:]  # one line from each first worker's own reload
    assert not [pid for pid in workers if running(pid)]
    # Each worker closed its reader; the killed one could not (writers collect such copies).
    left = [p.name for p in readers.iterdir() if p.is_dir()]
    assert [int(name.split("-")[1]) for name in left] == [victim]


def test_workers_stop_when_their_supervisor_is_gone(tmp_path: Path) -> None:
    config = tmp_path / "registry.yaml"
    config.write_text(yaml.safe_dump({"embedding": {"provider": "hash"}}))
    env = {**os.environ, "KP_HOME": str(tmp_path / "home"), "KP_CONFIG": str(config)}
    port = free_port()
    log = tmp_path / "mcp.log"
    proc = two_workers(port, env, log)
    try:
        wait_for(lambda: len(serving(log)) == 2)
        workers = set(serving(log))
        proc.kill()  # the supervisor alone: no TERM reaches the workers
        proc.wait(timeout=30)
        wait_for(lambda: not [pid for pid in workers if running(pid)], seconds=30)
        with socket.socket() as probe:  # nothing answers on the port any more
            assert probe.connect_ex(("127.0.0.1", port)) != 0
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert "Application shutdown complete" in log.read_text()  # they shut down cleanly


def test_workers_refuse_a_port_that_is_taken(tmp_path: Path) -> None:
    config = tmp_path / "registry.yaml"
    config.write_text(yaml.safe_dump({"embedding": {"provider": "hash"}}))
    env = {**os.environ, "KP_HOME": str(tmp_path / "home"), "KP_CONFIG": str(config)}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "mcp_service", "--port", str(port), "--workers", "2"],
            cwd=REPO,
            env=env,
            capture_output=True,
            timeout=120,
        )
    assert done.returncode != 0
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr.decode()
    assert "Address already in use" in done.stderr.decode()
