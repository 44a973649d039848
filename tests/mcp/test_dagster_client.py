"""The Dagster GraphQL client: unreachable -> "unavailable"; responses recorded from a live
`dagster dev` (1.13.27) parsed into per source x scope rows; launches sent as launchRun.

data/dagster_status.json: a stand-in code location with this project's asset keys, job and
check names (unpartitioned check, one check evaluated as failed, a run in flight).
data/dagster_status_project.json: this project's own code location (assets.definitions,
memory_files over three scopes, partitioned checks), one scope's first run in flight: through
the MCP tools, search and status say that scope is being indexed instead of advising a
reindex."""

from __future__ import annotations

import datetime as dt
import json
import re
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client

from mcp_service.dagster_client import DagsterClient
from mcp_service.server import build_server
from tests.mcp.fixtures import make_runtime

DATA = Path(__file__).parent / "data"
RECORDED = json.loads((DATA / "dagster_status.json").read_text())
PROJECT = json.loads((DATA / "dagster_status_project.json").read_text())
NOW = dt.datetime.fromisoformat(RECORDED["recorded_at"])
PAIRS = [tuple(p) for p in RECORDED["pairs"]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _replay(
    requests: list[dict[str, Any]],
    answers: dict[str, Any] | None = None,
    recorded: dict[str, Any] = RECORDED,
):
    """A transport answering each operation (by name) from `answers`, or the recording."""

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        requests.append(body)
        match = re.search(r"(?:query|mutation)\s+(\w+)", body["query"])
        name = match.group(1) if match else ""
        if answers and name in answers:
            return httpx.Response(200, json={"data": answers[name](body["variables"])})
        return httpx.Response(200, json={"data": recorded["data"]})

    return httpx.MockTransport(handler)


def test_unreachable_dagster_is_unavailable_not_an_exception() -> None:
    client = DagsterClient(f"http://127.0.0.1:{_free_port()}", timeout=2)
    status = client.index_status([("memory_files", "internal")], {("memory_files", "internal"): 7})
    assert status.status == "unavailable"
    assert "not reachable" in status.health and status.warnings
    assert status.sources[0].points == 7 and status.sources[0].last_materialization is None


def test_http_and_graphql_errors_are_unavailable() -> None:
    for response in (
        httpx.Response(502, text="bad gateway"),
        httpx.Response(200, json={"errors": [{"message": "Cannot query field"}]}),
    ):
        client = DagsterClient(
            "http://dagster.test", transport=httpx.MockTransport(lambda _r, resp=response: resp)
        )
        status = client.index_status([("memory_files", "internal")])
        assert status.status == "unavailable", response
    assert "Cannot query field" in status.health


def test_recorded_status_is_parsed_per_source_and_scope() -> None:
    sent: list[dict[str, Any]] = []
    client = DagsterClient("http://dagster.test", transport=_replay(sent))
    points = {pair: 5 for pair in PAIRS}
    status = client.index_status(PAIRS, points, now=NOW)
    variables = sent[0]["variables"]
    assert variables["partitions"] == ["hot", "internal", "shade_store"]
    assert variables["cn0"] == "clickup_collection_matches_chunks"
    rows = {(r.source, r.scope): r for r in status.sources}
    assert status.status == "degraded" and status.health.startswith("degraded: ")
    ok = rows[("memory_files", "internal")]
    assert ok.run_id == ok.latest_run_id and ok.latest_run_status == "SUCCESS"
    assert ok.metadata["points"] == 5 and {"added", "updated", "deleted", "unchanged"} <= set(
        ok.metadata
    )
    assert ok.last_materialization is not None and ok.last_materialization < NOW
    assert ok.freshness in {"HEALTHY", "WARNING", "DEGRADED"} and ok.points == 5
    bad = rows[("clickup", "shade_store")]
    assert bad.failing_checks == ["clickup_collection_matches_chunks"]
    assert bad.latest_run_status == "FAILURE"
    assert "clickup/shade_store: check clickup_collection_matches_chunks failing" in status.health
    running = rows[("clickup", "hot")]
    assert running.last_materialization is None and running.partition_freshness == "never"
    assert running.in_flight_runs and running.latest_run_status == "STARTED"
    assert [r.scope for r in status.in_flight] == ["hot"]
    assert rows[("clickup", "internal")].failing_checks == []


def test_recorded_project_status_with_partitioned_checks() -> None:
    client = DagsterClient("http://dagster.test", transport=_replay([], recorded=PROJECT))
    pairs = [tuple(p) for p in PROJECT["pairs"]]
    status = client.index_status(pairs, now=dt.datetime.fromisoformat(PROJECT["recorded_at"]))
    rows = {r.scope: r for r in status.sources}
    for scope in ("internal", "hot"):
        row = rows[scope]
        assert row.latest_run_status == "SUCCESS" and row.run_id == row.latest_run_id
        assert row.freshness == "HEALTHY" and row.partition_freshness == "fresh"
        assert row.failing_checks == [] and row.errored_checks == []
        assert row.metadata["points"] == row.metadata["added"] > 0
    assert rows["internal"].metadata["model"] == "test-hash-bow-64"
    pending = rows["shade_store"]
    assert pending.last_materialization is None and pending.in_flight_runs
    assert status.health == (f"degraded: memory_files/shade_store: {INDEXING}; 1 run(s) in flight")


FIRST_RUN = PROJECT["data"]["runsOrError"]["results"][0]
QUEUED_AT = dt.datetime.fromtimestamp(FIRST_RUN["creationTime"], tz=dt.UTC)
INDEXING = f"indexing since {QUEUED_AT:%Y-%m-%d %H:%M:%S} UTC, run {FIRST_RUN['runId']}"


@pytest.mark.anyio
async def test_a_scope_whose_first_run_is_in_flight_is_indexing_not_missing(tmp_path: Path) -> None:
    """Nothing is indexed yet; Dagster (the recording) has shade_store's first run going and
    none for hot."""
    sent: list[dict[str, Any]] = []
    runtime = make_runtime(tmp_path)
    dagster = DagsterClient("http://dagster.test", transport=_replay(sent, recorded=PROJECT))
    try:
        async with Client(
            build_server(runtime, default_principal="compass", dagster=dagster)
        ) as client:
            search = (
                await client.call_tool(
                    "knowledge_search", {"query": "launch checklist", "scope": "shade_store"}
                )
            ).structured_content
            ask = (
                await client.call_tool(
                    "knowledge_ask",
                    {"question": "What is on the launch checklist?", "scope": "shade_store"},
                )
            ).structured_content
            other = (
                await client.call_tool(
                    "knowledge_search", {"query": "launch checklist", "scope": "hot"}
                )
            ).structured_content
            status = (await client.call_tool("get_index_status", {})).structured_content
    finally:
        runtime.close()
    waiting = f"scope 'shade_store' has no index yet: {INDEXING}; search again when it finishes"
    assert search["hits"] == [] and search["warnings"] == [waiting]
    assert waiting in ask["warnings"] and "trigger_reindex" not in " ".join(ask["warnings"])
    assert other["warnings"] == [
        "scope 'hot' has no index yet; ask an admin to run trigger_reindex"
    ]
    asked = [b["variables"]["tags"] for b in sent if "KpInFlightRuns" in b["query"]]
    assert [{"key": "dagster/partition", "value": "shade_store"}] in asked
    row = next(
        r for r in status["sources"] if (r["source"], r["scope"]) == ("memory_files", "shade_store")
    )
    assert dt.datetime.fromisoformat(row["indexing_since"]) == QUEUED_AT
    assert f"memory_files/shade_store: {INDEXING}" in status["health"]


def test_in_flight_runs_of_other_scopes_are_hidden() -> None:
    client = DagsterClient("http://dagster.test", transport=_replay([]))
    status = client.index_status([("memory_files", "internal")], now=NOW)
    assert [r.scope for r in status.sources] == ["internal"]
    assert status.in_flight == []


def test_launch_reindex_sends_one_run_per_source_and_scope() -> None:
    sent: list[dict[str, Any]] = []
    added: list[tuple[str, str]] = []
    repo = {
        "nodes": [
            {
                "name": "__repository__",
                "location": {"name": "kp"},
                "jobs": [{"name": "__ASSET_JOB"}, {"name": "memory_files_reindex_job"}],
            }
        ]
    }

    def launch(variables: dict[str, Any]) -> dict[str, Any]:
        tags = {t["key"]: t["value"] for t in variables["params"]["executionMetadata"]["tags"]}
        return {
            "launchRun": {
                "__typename": "LaunchRunSuccess",
                "run": {"runId": f"run-{tags['dagster/partition']}", "status": "QUEUED"},
            }
        }

    answers = {
        "KpRepositories": lambda _v: {"repositoriesOrError": repo},
        "KpPartitionKeys": lambda _v: {
            "assetNodeOrError": {"__typename": "AssetNode", "partitionKeys": ["internal"]}
        },
        "KpAddPartition": lambda v: (
            added.append((v["name"], v["key"]))
            or {
                "addDynamicPartition": {
                    "__typename": "AddDynamicPartitionSuccess",
                    "partitionKey": v["key"],
                }
            }
        ),
        "KpLaunchRun": launch,
    }
    client = DagsterClient("http://dagster.test", transport=_replay(sent, answers))
    runs = client.launch_reindex(
        [("memory_files", "internal"), ("memory_files", "hot")], principal="compass"
    )
    assert [(r.scope, r.run_id) for r in runs] == [("internal", "run-internal"), ("hot", "run-hot")]
    assert added == [("memory_files_scopes", "hot")]  # the source's own partition set
    params = [b["variables"]["params"] for b in sent if "KpLaunchRun" in b["query"]]
    selector = params[0]["selector"]
    assert selector == {
        "repositoryName": "__repository__",
        "repositoryLocationName": "kp",
        "jobName": "memory_files_reindex_job",
    }
    tags = {t["key"]: t["value"] for t in params[1]["executionMetadata"]["tags"]}
    assert tags == {"dagster/partition": "hot", "kp/trigger": "mcp", "kp/principal": "compass"}


def test_launch_error_is_reported_per_run() -> None:
    answers = {
        "KpRepositories": lambda _v: {
            "repositoriesOrError": {
                "nodes": [
                    {
                        "name": "r",
                        "location": {"name": "l"},
                        "jobs": [{"name": "clickup_reindex_job"}],
                    }
                ]
            }
        },
        "KpPartitionKeys": lambda _v: {"assetNodeOrError": {"__typename": "AssetNotFoundError"}},
        "KpLaunchRun": lambda _v: {"launchRun": {"__typename": "PythonError", "message": "boom"}},
    }
    client = DagsterClient("http://dagster.test", transport=_replay([], answers))
    [run] = client.launch_reindex([("clickup", "internal")])
    assert run.run_id is None and run.error == "PythonError: boom"
