"""`kp mcp --workers 2` (here `python -m mcp_service`, the same `run`): two processes share
the port, each reads the same published edition through its own reader copy, and a TERM
stops both and removes their copies; each follows the registry file on its own. About 10 s:
two processes start and import FastMCP."""

from __future__ import annotations

import os
import signal
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
from tests.procs import REPO, free_port, listening

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
        while not listening(port) and time.monotonic() < deadline:
            time.sleep(0.2)
        token = (tmp_path / "home" / "admin-token").read_text().strip()
        headers = {"Authorization": f"Bearer {token}", "MCP-Protocol-Version": "2026-07-28",
                   "Mcp-Method": "tools/call", "Mcp-Name": "knowledge_search",
                   "Accept": "application/json, text/event-stream"}
        readers_seen: set[str] = set()
        for _ in range(200):  # a new connection each time, until both workers have answered
            reply = httpx.post(f"http://127.0.0.1:{port}/mcp", json=CALL, headers=headers,
                               timeout=60)
            hits = reply.json()["result"]["structuredContent"]["hits"]
            assert hits[0]["title"] == "Ops"
            readers_seen = {p.name for p in readers.iterdir() if p.is_dir()}
            if len(readers_seen) == 2:
                break
        workers = {int(name.split("-")[1]) for name in readers_seen}
        assert workers <= children(proc.pid)
        assert len(readers_seen) == 2 and all(n.startswith(f"{version}-") for n in readers_seen)
        # Each worker follows the registry on its own: a principal added now signs in at
        # whichever worker a new connection reaches.
        config.write_text(yaml.safe_dump({**registry, "principals": [
            {"name": "ops", "admin": True, "token_sha256": hash_token("ops-token")}]}))
        ops = {**headers, "Authorization": "Bearer ops-token"}
        codes = {httpx.post(f"http://127.0.0.1:{port}/mcp", json=CALL, headers=ops,
                            timeout=60).status_code for _ in range(20)}
        assert codes == {200}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err.decode()[-2000:]
    reloads = [ln for ln in err.decode().splitlines() if "principals +ops" in ln]
    assert len(reloads) == 2, err.decode()[-2000:]  # one line from each worker's own reload
    assert not [pid for pid in workers if running(pid)]
    assert not [p for p in readers.iterdir() if p.is_dir()]  # each worker closed its reader
