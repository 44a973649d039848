"""`kp up` as a user runs it: real processes on free ports, a temporary KP_HOME, the demo
registry; an MCP client over HTTP searches the demo once Dagster's sensor has indexed it."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from fastmcp import Client

from knowledge_platform.config.registry import load_registry
from tests.procs import Platform, free_ports, kp_up, listening, stop_group

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
PARTITIONS = """{ assetNodes { assetKey { path } partitionDefinition { name } partitionKeys
  assetPartitionStatuses { ... on DefaultPartitionStatuses {
    materializedPartitions failedPartitions unmaterializedPartitions } } } }"""


async def wait_for_hits(
    url: str, token: str, deadline: float, seen: list[str] | None = None
) -> dict:
    """The first search answer with hits; the warnings of the answers before it go to
    `seen`."""
    last: object = None
    while time.monotonic() < deadline:
        try:
            async with Client(url, auth=token) as client:
                result = await client.call_tool(  # the handbook may be indexed first
                    "knowledge_search",
                    {"query": "When does the weekly reindex run?", "sources": ["memory_files"]},
                )
                data = result.structured_content or {}
                if data.get("hits"):
                    return data
                last = data
                (seen if seen is not None else []).extend(data.get("warnings") or [])
        except Exception as exc:  # services still starting
            last = exc
        await asyncio.sleep(2)
    raise AssertionError(f"demo not indexed in time; last answer: {last!r}")


def partitions(platform: Platform) -> dict[tuple[str, ...], dict]:
    """Every partitioned asset's partition set, keys and statuses, read as the UI reads them."""
    nodes = platform.graphql(PARTITIONS)["assetNodes"]
    return {tuple(n["assetKey"]["path"]): n for n in nodes if n["partitionDefinition"]}


def assert_partitions_are_the_configuring_scopes(platform: Platform, deadline: float) -> None:
    """Each source's assets are partitioned by exactly the scopes whose registry entry
    configures it (the demo's `hot` configures none: a partition of none), and once the first
    runs end no partition is missing: none stays "Missing" for a scope without the source."""
    registry = load_registry(REPO / "demo" / "registry.yaml")
    assert registry.scopes_for("git_docs") == ["internal", "shade_store"]
    assert registry.scopes_for("memory_files") == ["internal"] and "hot" in registry.scopes
    while True:
        nodes = partitions(platform)
        missing = {
            k: n["assetPartitionStatuses"]["unmaterializedPartitions"] for k, n in nodes.items()
        }
        if not any(missing.values()) or time.monotonic() > deadline:
            break
        time.sleep(2)
    assert {k[0] for k in nodes} == set(registry.sources)
    for (source, step), node in nodes.items():
        assert node["partitionDefinition"]["name"] == f"{source}_scopes", (source, step)
        assert sorted(node["partitionKeys"]) == sorted(registry.scopes_for(source)), (source, step)
        assert node["assetPartitionStatuses"]["failedPartitions"] == [], (source, step)
    assert not any(missing.values()), missing


async def call(url: str, token: str, tool: str, args: dict) -> dict:
    async with Client(url, auth=token) as client:
        result = await client.call_tool(tool, args)
        return result.structured_content or {}


def test_kp_up_indexes_the_demo_and_serves_search_and_status(tmp_path):
    with kp_up(tmp_path) as platform:
        started = time.monotonic()
        token = platform.token()
        seen: list[str] = []
        data = asyncio.run(wait_for_hits(platform.mcp_url, token, started + 420, seen))
        print(f"demo searchable {time.monotonic() - started:.1f}s after kp up")
        # While the first runs were going, search said so (not "run trigger_reindex").
        indexing = re.compile(
            r"scope 'internal' has no index yet: indexing since "
            r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, run ([0-9a-f-]{36})"
        )
        named = {m.group(1) for w in seen if (m := indexing.search(w))}
        assert named, seen
        assert named <= {r["runId"] for r in platform.runs()}
        top = data["hits"][0]
        assert top["title"] == "Knowledge platform operations"
        assert top["source"] == "memory_files" and top["scope"] == "internal"
        assert "Sunday" in top["snippet"]
        assert "date" not in top  # an undated note, not the checkout's mtime

        assert httpx.post(platform.mcp_url, json={}).status_code == 401  # no token

        # The run records the collection's materialization just after it publishes.
        deadline = time.monotonic() + 180
        while True:
            report = asyncio.run(call(platform.mcp_url, token, "get_index_status", {}))
            entries = {(e["source"], e["scope"]): e for e in report["sources"]}
            memory, handbook = (
                entries[("memory_files", "internal")],
                entries[("git_docs", "internal")],
            )
            done = memory["last_materialization"] and handbook["last_materialization"]
            if done or time.monotonic() > deadline:
                break
            time.sleep(2)
        print("index status:", report["health"])
        assert memory["last_materialization"] and memory["run_id"]
        assert memory["metadata"]["added"] == memory["points"]
        assert memory["points"] and memory["points"] > 0
        # The demo handbook is read from this repository's HEAD: the status names that sha.
        head = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "HEAD"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        assert handbook["sha"] == head and handbook["points"]
        runbooks = asyncio.run(
            call(platform.mcp_url, token, "list_runbooks", {"prefix": "demo/handbook/runbooks/"})
        )
        titles = {r["title"] for r in runbooks["runbooks"]}
        assert {"Incident response", "Credential rotation"} <= titles  # admin sees restricted
        assert all(
            r["sha"] and r["uri"].startswith("doc://git_docs/") for r in runbooks["runbooks"]
        )

        # kp up recorded its URLs under KP_HOME; `kp status` asks that Dagster (not :3000).
        urls = json.loads((platform.home / "urls.json").read_text())
        assert urls == {"dagster": platform.dagster_url, "mcp": platform.mcp_url}
        env = {**os.environ, "KP_HOME": str(platform.home)}
        env.pop("KP_DAGSTER_URL", None)
        env.pop("KP_CONFIG", None)
        done = subprocess.run(
            [sys.executable, "-m", "kp", "status", "--json"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        cli = json.loads(done.stdout)
        assert cli["dagster_url"] == platform.dagster_url and cli["status"] != "unavailable"
        rows = {(e["source"], e["scope"]): e for e in cli["sources"]}
        assert rows[("memory_files", "internal")]["run_id"] == memory["run_id"]

        partitions_read = time.monotonic()
        assert_partitions_are_the_configuring_scopes(platform, partitions_read + 240)
        print(f"every partition materialized {time.monotonic() - partitions_read:.1f}s later")

        # The automation sensor runs without anyone switching it on.
        sensors = platform.graphql(
            "{ repositoriesOrError { ... on RepositoryConnection { nodes { sensors {"
            " name sensorState { status } } } } } }"
        )["repositoriesOrError"]["nodes"][0]["sensors"]
        status = {s["name"]: s["sensorState"]["status"] for s in sensors}
        assert status["default_automation_condition_sensor"] == "RUNNING"
        # The first visit opens on the asset graph, not behind "Join the community".
        assert platform.graphql("{ shouldShowNux }")["shouldShowNux"] is False

        # TERM stops every child process group.
        os.killpg(platform.proc.pid, signal.SIGTERM)
        assert platform.proc.wait(timeout=60) == 0
        deadline = time.monotonic() + 30
        ports = (platform.dagster_port, platform.mcp_port)
        while time.monotonic() < deadline and any(listening(p) for p in ports):
            time.sleep(0.5)
        assert not any(listening(p) for p in ports)


@pytest.mark.parametrize("busy", ["--dagster-port", "--mcp-port"])
def test_kp_up_on_a_busy_port_says_which_and_starts_nothing(tmp_path, busy):
    ports = dict(zip(("--dagster-port", "--mcp-port"), free_ports(2), strict=True))
    home = tmp_path / "home"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", ports[busy]))
        taken.listen()
        proc = subprocess.Popen(
            [sys.executable, "-m", "kp", "up", *(str(x) for kv in ports.items() for x in kv)],
            cwd=REPO,
            env={**os.environ, "KP_HOME": str(home)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            _, err = proc.communicate(timeout=120)
        finally:
            stop_group(proc, timeout=60)  # had it started anything, TERM stops all of it
    assert proc.returncode == 2, err
    (line,) = err.strip().splitlines()
    assert f"port {ports[busy]} on 127.0.0.1" in line and f"pass {busy} <another port>" in line
    assert "nothing was started" in line
    assert not (home / "logs").exists() and not (home / "urls.json").exists()
