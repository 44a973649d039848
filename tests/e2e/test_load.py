"""Load: 16 MCP clients over HTTP search one scope against a `kp mcp` process while `kp index
--full` reindexes that scope again and again (every note changes each time), until at least two
of those reindexes have published (rounds of 10 s: as long as two reindexes take, not a fixed
60 s).
Nothing may fail, no answer may be empty, and every answer comes from exactly one published
version (the hits of one answer never mix two editions)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bench.load import LoadStats, run_load
from tests.conftest import write_registry
from tests.procs import free_port, listening, stop_group

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
N_NOTES = 200
CLIENTS = 16
ROUND_SECONDS = 10.0  # the load runs in rounds until REINDEXES have published
REINDEXES = 2
MAX_SECONDS = 300.0
QUERIES = (
    "heron ledger weekly review",
    "who keeps the ledger entry",
    "team review of entries",
    "weekly heron review notes",
)
EDITION = re.compile(r"Edition (\d+):")


def write_notes(ws: Path, edition: int) -> None:
    for i in range(N_NOTES):
        (ws / f"note-{i:03d}.md").write_text(
            f"# Note {i}\n\nEdition {edition}: the heron ledger entry {i} for the weekly "
            f"review, kept by team {i % 17}.\n"
        )


def kp(env: dict[str, str], *args: str, log: Path) -> subprocess.CompletedProcess[bytes]:
    with log.open("ab") as out:
        return subprocess.run(
            [sys.executable, "-m", "kp", *args],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=600,
            check=False,
        )


@dataclass
class Reindexer:
    """`kp index --full` in a loop, each time over a new edition of every note."""

    env: dict[str, str]
    ws: Path
    log: Path
    edition: int = 1
    published: list[tuple[int, float]] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self.stop.is_set():
            self.edition += 1
            write_notes(self.ws, self.edition)
            started = time.monotonic()
            done = kp(
                self.env,
                "index",
                "--source",
                "memory_files",
                "--scope",
                "internal",
                "--full",
                log=self.log,
            )
            if done.returncode == 0:
                self.published.append((self.edition, time.monotonic() - started))
            else:
                self.failures.append(done.returncode)


@pytest.fixture
def platform(tmp_path: Path) -> Iterator[tuple[str, str, dict[str, str], Path]]:
    """(mcp url, admin token, env, workspace) of a `kp mcp` process over an indexed home."""
    ws = tmp_path / "ws"
    ws.mkdir()
    write_notes(ws, 1)
    config = write_registry(
        tmp_path / "registry.yaml",
        {
            "embedding": {"provider": "hash"},
            "store": {"engine": "edge"},
            "internal": {"sources": {"memory_files": {"path": str(ws)}}},
        },
    )
    port = free_port()
    env = {
        **os.environ,
        "KP_HOME": str(tmp_path / "home"),
        "KP_CONFIG": str(config),
        "KP_DAGSTER_URL": f"http://127.0.0.1:{free_port()}",
    }
    log = tmp_path / "kp.log"
    first = kp(env, "index", "--source", "memory_files", "--scope", "internal", log=log)
    assert first.returncode == 0, log.read_text()[-3000:]
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kp", "mcp", "--port", str(port)],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while not listening(port):
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, "kp mcp did not listen"
            time.sleep(0.2)
        token = (tmp_path / "home" / "admin-token").read_text().strip()
        yield f"http://127.0.0.1:{port}/mcp", token, env, ws
    finally:
        stop_group(proc, timeout=30)


def one_version(data: dict[str, Any]) -> str | None:
    hits = data.get("hits") or []
    if not hits:
        return f"an empty answer: {data.get('warnings')}"
    if {h["scope"] for h in hits} != {"internal"}:
        return f"hits outside the scope: {sorted({h['scope'] for h in hits})}"
    editions = {m.group(1) for h in hits if (m := EDITION.search(h["snippet"]))}
    if len(editions) != 1:
        return f"hits from {len(editions)} editions in one answer: {sorted(editions)}"
    return None


def test_16_clients_search_during_repeated_full_reindexes(platform, tmp_path) -> None:
    url, token, env, ws = platform
    reindexer = Reindexer(env, ws, tmp_path / "reindex.log")
    thread = threading.Thread(target=reindexer.run, daemon=True)
    thread.start()
    stats = LoadStats(clients=CLIENTS)
    try:
        while len(reindexer.published) < REINDEXES and stats.seconds < MAX_SECONDS:
            part = asyncio.run(
                run_load(
                    url,
                    token,
                    clients=CLIENTS,
                    seconds=ROUND_SECONDS,
                    queries=QUERIES,
                    limit=10,
                    check=one_version,
                )
            )
            stats.latencies += part.latencies
            stats.errors += part.errors
            stats.seconds += part.seconds
    finally:
        reindexer.stop.set()
        thread.join(timeout=600)
    print(
        stats.table(
            f"knowledge_search, {CLIENTS} clients, {stats.seconds:.0f} s, during "
            f"{len(reindexer.published)} full reindexes"
        )
    )
    print("reindex seconds:", [f"{s:.1f}" for _, s in reindexer.published])
    assert stats.errors == [], stats.errors[:5]
    assert stats.requests > CLIENTS
    assert reindexer.failures == [], (tmp_path / "reindex.log").read_text()[-3000:]
    assert len(reindexer.published) >= REINDEXES, "fewer reindexes than asked during the load"

    last = reindexer.published[-1][0]  # the service now serves the newest edition
    assert asyncio.run(_editions(url, token)) == {str(last)}


async def _editions(url: str, token: str) -> set[str]:
    from fastmcp import Client

    async with Client(url, auth=token) as client:
        result = await client.call_tool("knowledge_search", {"query": QUERIES[0], "limit": 10})
    return {
        m.group(1)
        for h in (result.structured_content or {})["hits"]
        if (m := EDITION.search(h["snippet"]))
    }
