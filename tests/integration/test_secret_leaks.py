"""No secret value leaks: the demo and the connectors run with canary credentials, each
resolved from an `op://` reference through the fake `op` (tests/integration/leak_sources.py):
ClickUp's token, the Supabase management token (the service key it fetches from the fake
Management API each run is a canary too), Google's OAuth client secret and refresh token and a
service account's key, the OpenAI key (embeddings and answers), three principals' tokens (a
reference, a variable holding a reference, a plain variable), and unrelated canaries in the
environment.

`kp index` runs every source x scope through real Dagster materializations recorded in the
instance under KP_HOME; `kp search` and `kp status`; a sweep of every MCP tool over HTTP as a
principal and as the admin, with bad arguments and refused bearer tokens. Then every source
fails as an echoing server would, its error bodies repeating the secret it was sent (ClickUp
401, Supabase Management API 401 and REST 500, Google's token endpoint 401, OpenAI 500 under a
search), through `kp index`, `kp search` and MCP. Searched for every canary and its base64,
URL-encoded and JSON-escaped forms: every file under KP_HOME as bytes (Dagster's sqlite
storage and compute logs, JSON Lines snapshots, shards, caches, the query log), the
runs' config and tags and every event record through the Dagster instance API, every log
record, stdout/stderr, every `kp` output and every MCP response. 0 hits.

About 20 s on an idle machine (nine in-process Dagster runs, an MCP HTTP server)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError
from typer.testing import CliRunner

from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.access import ensure_admin_token
from knowledge_platform.settings import Settings
from kp.app import app
from mcp_service.server import build_server
from tests.conftest import write_registry
from tests.fakes.fake_op import FakeOp
from tests.integration.leak_sources import PROJECT, REFS, LeakSources
from tests.leaks import data_of, files_under, find_leaks
from tests.mcp.test_http import HEADERS, INITIALIZE
from tests.procs import free_port, served_in_thread

pytestmark = pytest.mark.integration

SOURCES = {
    ("memory_files", "internal"),
    ("clickup", "internal"),
    ("supabase", "internal"),
    ("google_drive", "internal"),
    ("google_drive", "shade_store"),
}


@pytest.fixture
def sources(fake_op: FakeOp) -> Iterator[LeakSources]:
    with LeakSources(fake_op) as world:
        yield world


@pytest.fixture
def logs() -> Iterator[list[str]]:
    """Every log record of the test, formatted with its arguments and any traceback."""
    lines: list[str] = []
    handler = logging.Handler(logging.DEBUG)
    fmt = logging.Formatter("%(name)s %(levelname)s %(message)s")
    handler.emit = lambda record: lines.append(fmt.format(record))  # type: ignore[method-assign]
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield lines
    root.removeHandler(handler)
    root.setLevel(old_level)


@pytest.fixture
def home(tmp_path: Path, sources: LeakSources, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = write_registry(tmp_path / "config" / "registry.yaml", sources.registry())
    home = tmp_path / "home"
    for name, value in {
        "KP_HOME": str(home),
        "KP_CONFIG": str(config),
        "KP_DAGSTER_URL": f"http://127.0.0.1:{free_port()}",  # no Dagster: errors are swept too
        **sources.env(),
    }.items():
        monkeypatch.setenv(name, value)
    return home


def kp(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    return f"$ kp {' '.join(args)} -> {result.exit_code}\n{result.output}\n{result.exception!r}"


async def sweep(url: str, token: str, who: str) -> dict[str, str]:
    """Every tool called once (get_document with a real id and a missing one), and bad
    arguments; each answer or error kept."""
    said: dict[str, str] = {}
    async with Client(url, auth=token) as client:
        tools = {t.name for t in await client.list_tools()}
        found = await client.call_tool("knowledge_search", {"query": "weekly reindex"})
        hits = (found.structured_content or {}).get("hits") or [{}]
        calls: list[tuple[str, dict[str, Any]]] = [
            ("knowledge_search", {"query": "what are the standing rules?", "limit": 10}),
            ("knowledge_search", {"query": "swatch test", "scope": "shade_store"}),
            ("knowledge_ask", {"question": "When does the weekly reindex run?"}),
            ("get_context", {"topic": "reindex schedule"}),
            ("list_decisions", {}),
            ("list_recent_memory", {"days": 365}),
            ("get_document", {"doc_id": hits[0].get("doc_id", "none")}),
            ("get_document", {"doc_id": "memory_files:nope.md"}),
            ("list_runbooks", {}),
            ("trigger_reindex", {"source": "clickup"}),
            ("get_index_status", {}),
            ("knowledge_search", {"query": "x", "limit": 10**30}),  # bad arguments
            ("knowledge_search", {"query": "x", "scope": "hot"}),
            ("get_document", {"doc_id": "../../etc/passwd"}),
        ]
        assert {name for name, _ in calls} == tools, "sweep every tool the server has"
        for n, (name, args) in enumerate(calls):
            try:
                result = await client.call_tool(name, args)
                said[f"{name}#{n}"] = json.dumps(result.structured_content, default=str) + str(
                    result.content
                )
            except ToolError as exc:
                said[f"{name}#{n} (error)"] = str(exc)
    return {f"mcp as {who}: {k}": v for k, v in said.items()}


async def sweep_all(url: str, secrets: dict[str, str], admin_token: str) -> dict[str, str]:
    said = await sweep(url, secrets["maya_token"], "maya")
    said |= await sweep(url, admin_token, "admin")
    for name in ("jonas_token", "rita_token"):  # a variable holding a reference; a plain one
        async with Client(url, auth=secrets[name]) as client:
            said[name] = str(await client.call_tool("list_decisions", {}))
    async with httpx.AsyncClient(timeout=10) as http:  # refused: none, wrong, a reference
        for label, auth in {
            "none": None,
            "wrong": f"Bearer {secrets['clickup_env']}",
            "reference": f"Bearer {REFS['maya_token']}",
        }.items():
            headers = {**HEADERS, **({"Authorization": auth} if auth else {})}
            reply = await http.post(url, json=INITIALIZE, headers=headers)
            said[f"mcp 401 ({label})"] = f"{reply.status_code} {reply.headers} {reply.text}"
    return said


def serve_and_sweep(
    settings: Settings, secrets: dict[str, str], sources: LeakSources
) -> dict[str, str]:
    admin_token, _, _ = ensure_admin_token(settings)
    runtime = Runtime(settings)
    try:
        with served_in_thread(build_server(runtime).http_app()) as url:
            said = asyncio.run(sweep_all(url, secrets, admin_token))
            sources.break_openai()  # a query's embedding fails; the error goes to the caller
            said["mcp search, OpenAI failing"] = asyncio.run(failing_search(url, admin_token))
            sources.mend_openai()
    finally:
        runtime.close()
    return said


async def failing_search(url: str, token: str) -> str:
    async with Client(url, auth=token) as client:
        with pytest.raises(ToolError) as info:
            await client.call_tool("knowledge_search", {"query": "an uncached query"})
    return str(info.value)


def break_each_source(sources: LeakSources) -> dict[str, str]:
    """Every connector fails against an echoing server; `kp index` says so in one line."""
    outputs: dict[str, str] = {}
    for name, source, breaks in (
        ("clickup 401", "clickup", sources.break_clickup),
        ("supabase management 401", "supabase", sources.break_supabase_management),
        ("supabase REST 500", "supabase", sources.break_supabase_rest),
        ("google token 401", "google_drive", sources.break_google_token),
    ):
        breaks()
        outputs[f"kp index ({name})"] = said = kp(
            "index", "--source", source, "--scope", "internal"
        )
        assert "-> 1" in said and f"{source}/internal failed" in said, said
        assert "***" in said, said  # the server did repeat a secret: it was masked
    return outputs


def dagster_records(dagster_home: Path) -> dict[str, str]:
    """Every run's config and tags, and every event record of it, through the instance."""
    from dagster import DagsterInstance, serialize_value

    texts: dict[str, str] = {}
    with DagsterInstance.from_config(str(dagster_home)) as instance:
        runs = instance.get_runs()
        for run in runs:
            records = instance.all_logs(run.run_id)
            texts[f"dagster run {run.run_id}"] = "\n".join(
                [
                    json.dumps(run.run_config, default=str),
                    json.dumps(run.tags),
                    *(serialize_value(r) for r in records),
                ]
            )
    assert len(runs) >= len(SOURCES) + 4
    return texts


def test_no_secret_value_leaks_anywhere(
    home: Path,
    sources: LeakSources,
    fake_op: FakeOp,
    logs: list[str],
    capfd: pytest.CaptureFixture[str],
) -> None:
    secrets = sources.secrets
    outputs = {
        "kp index": kp("index"),
        "kp search": kp("search", "weekly reindex", "--json"),
        "kp status": kp("status", "--json"),
    }
    indexed = outputs["kp index"]
    assert "-> 0" in indexed and all(f"{s}" in indexed for s, _ in SOURCES), indexed
    settings = Settings()
    outputs |= serve_and_sweep(settings, secrets, sources)
    runtime = Runtime(settings)  # every source's documents were read with its credentials
    try:
        titles = {
            h.chunk.title
            for scope in ("internal", "shade_store")
            for h in runtime.retriever.search(scope, "reindex onboarding retainer swatch", limit=50)
        }
    finally:
        runtime.close()
    assert {
        "Reindex runbook",
        "Retainer pricing",
        "Onboarding playbook",
        "Shade Store brief",
    } <= titles, titles
    assert any('"mode": "llm"' in v for v in outputs.values())
    assert "admins only" in outputs["mcp as maya: trigger_reindex#9 (error)"]
    assert all(outputs[f"mcp 401 ({k})"].startswith("401") for k in ("none", "wrong", "reference"))
    assert "OpenAI embeddings" in outputs["mcp search, OpenAI failing"]
    assert len(sources.management.requests(f"/v1/projects/{PROJECT}/api-keys")) == 1  # per run
    assert set(sources.google.token_grants) == {
        "refresh_token",
        "urn:ietf:params:oauth:grant-type:jwt-bearer",
    }
    assert {c[1] for c in fake_op.calls} == set(REFS.values())

    outputs |= break_each_source(sources)

    captured = capfd.readouterr()
    canaries = {**secrets, **sources.issued_tokens()}
    texts = {
        **outputs,
        **dagster_records(home / "dagster"),
        "log records": "\n".join(logs),
        "stdout": captured.out,
        "stderr": captured.err,
    }
    files = list(files_under(home))
    hits = find_leaks(canaries, roots=[home], texts=texts)
    print(
        f"leak scan: {len(canaries)} secrets; {len(files)} files under KP_HOME, "
        f"{sum(len(data_of(f)) for f in files)} bytes of data "
        f"({sum(f.stat().st_size for f in files)} with the holes of sparse files); "
        f"{len(texts)} texts, {sum(len(t) for t in texts.values())} characters; "
        f"{len(logs)} log records"
    )
    assert len(logs) > 10 and (home / "dagster").is_dir() and (home / "data").is_dir()
    assert any(f.suffix == ".jsonl" for f in files) and any(f.suffix == ".db" for f in files)
    assert hits == []
