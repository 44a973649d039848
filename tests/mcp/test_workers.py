"""`kp mcp --workers 2` (here `python -m mcp_service`, the same `run`): two processes share
the port through a listening socket each, connections opened together reach both, each
reads the same published edition through its own reader copy, and a TERM stops both and
removes their copies; each follows the registry file on its own. About 10 s: two processes
start and import FastMCP."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import yaml

from knowledge_platform.models import Document
from knowledge_platform.registry import hash_token
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from tests.mcp.fixtures import index_documents
from tests.procs import REPO, free_port

NOTE = Document(source="memory_files", source_id="ops.md", scope="internal", title="Ops",
                kind="memory", uri="file:///ws/ops.md",
                text="# Ops\n\nThe weekly reindex runs every Sunday at 02:00.\n")
CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "knowledge_search", "arguments": {"query": "weekly reindex"},
                   "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
                             "io.modelcontextprotocol/clientCapabilities": {}}}}


def children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                found.add(int(entry.name))
    return found


def listeners(port: int) -> set[str]:
    """Inodes of the TCP sockets listening on `port`."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    found.add(fields[9])
    return found


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


def listening_workers(parent: int, port: int) -> dict[int, set[str]]:
    """`parent`'s children that listen on `port`, with the inodes of their listening sockets."""
    on_port = listeners(port)
    found = {pid: sockets_of(pid) & on_port for pid in children(parent)}
    return {pid: inodes for pid, inodes in found.items() if inodes}


async def burst(url: str, headers: dict[str, str], clients: int) -> list[str]:
    """`clients` connections opened together, one search each: the first hit's titles."""
    async def one(http: httpx.AsyncClient) -> str:
        reply = await http.post(url, json=CALL, headers=headers)
        return reply.json()["result"]["structuredContent"]["hits"][0]["title"]

    sessions = [httpx.AsyncClient(timeout=60) for _ in range(clients)]
    try:
        return list(await asyncio.gather(*(one(http) for http in sessions)))
    finally:
        await asyncio.gather(*(http.aclose() for http in sessions))


def running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's zombie waits for an init that may never reap)."""
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    except OSError:
        return False


def test_two_workers_serve_one_port_from_one_edition_and_stop_together(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    config = tmp_path / "registry.yaml"
    registry = {"embedding": {"provider": "hash"},
                "internal": {"sources": {"memory_files": {"path": "ws"}}}}
    config.write_text(yaml.safe_dump(registry))
    env = {**os.environ, "KP_HOME": str(tmp_path / "home"), "KP_CONFIG": str(config),
           "KP_DAGSTER_URL": f"http://127.0.0.1:{free_port()}"}
    runtime = Runtime(Settings.model_validate(env))
    try:
        index_documents(runtime, "internal", "memory_files", [NOTE])
        version = runtime.store.info("internal").version
    finally:
        runtime.close()
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mcp_service", "--port", str(port),
                             "--workers", "2"], cwd=REPO, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    readers = tmp_path / "home" / "qdrant" / "internal" / "readers"
    try:
        deadline = time.monotonic() + 90
        while len(listeners(port)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)  # both workers (one shared socket would never make two)
        token = (tmp_path / "home" / "admin-token").read_text().strip()
        headers = {"Authorization": f"Bearer {token}", "MCP-Protocol-Version": "2026-07-28",
                   "Mcp-Method": "tools/call", "Mcp-Name": "knowledge_search",
                   "Accept": "application/json, text/event-stream"}
        # Each worker listens on a socket of its own, so the kernel spreads connections.
        owners = listening_workers(proc.pid, port)
        assert len(owners) == 2 and all(len(found) == 1 for found in owners.values())
        assert len(set.union(*owners.values())) == 2
        # Clients that connect at once reach both workers: each opens its reader on its first
        # search. (One shared socket gave all of them to the worker that woke first.)
        titles = asyncio.run(burst(f"http://127.0.0.1:{port}/mcp", headers, 32))
        assert titles == ["Ops"] * 32
        readers_seen = {p.name for p in readers.iterdir() if p.is_dir()}
        workers = {int(name.split("-")[1]) for name in readers_seen}
        assert workers == set(owners)
        assert len(readers_seen) == 2 and all(n.startswith(f"{version}-") for n in readers_seen)
        # Each worker follows the registry on its own: a principal added now signs in at
        # whichever worker a new connection reaches.
        config.write_text(yaml.safe_dump({**registry, "principals": [
            {"name": "ops", "admin": True, "token_sha256": hash_token("ops-token")}]}))
        ops = {**headers, "Authorization": "Bearer ops-token"}
        codes = {httpx.post(f"http://127.0.0.1:{port}/mcp", json=CALL, headers=ops,
                            timeout=60).status_code for _ in range(20)}
        assert codes == {200}
        # A worker that dies is replaced by one with a socket of its own; the port answers.
        victim = min(owners)
        os.kill(victim, signal.SIGKILL)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            serving = listening_workers(proc.pid, port)
            if len(serving) == 2 and victim not in serving:
                break
            time.sleep(0.2)
        assert len(serving) == 2 and victim not in serving
        assert asyncio.run(burst(f"http://127.0.0.1:{port}/mcp", headers, 8)) == ["Ops"] * 8
        workers |= set(serving)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err.decode()[-2000:]
    reloads = [ln for ln in err.decode().splitlines() if "principals +ops" in ln]
    assert len(reloads) == 2, err.decode()[-2000:]  # one line from each worker's own reload
    assert not [pid for pid in workers if running(pid)]
    # Each worker closed its reader; the killed one could not (writers collect such copies).
    left = [p.name for p in readers.iterdir() if p.is_dir()]
    assert [int(name.split("-")[1]) for name in left] == [victim]


def test_workers_refuse_a_port_that_is_taken(tmp_path: Path) -> None:
    config = tmp_path / "registry.yaml"
    config.write_text(yaml.safe_dump({"embedding": {"provider": "hash"}}))
    env = {**os.environ, "KP_HOME": str(tmp_path / "home"), "KP_CONFIG": str(config)}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "mcp_service", "--port", str(port),
                               "--workers", "2"], cwd=REPO, env=env, capture_output=True,
                              timeout=120)
    assert done.returncode != 0
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr.decode()
    assert "Address already in use" in done.stderr.decode()
