"""No secret value leaks (phase 1: the core, before the connectors read references).

The demo's memory files are indexed with every secret the core reads given as a canary: the
OpenAI key from a 1Password reference (fake `op`; the fake OpenAI server accepts only that
key, for embeddings and answers), a principal's token from a reference, another's from an
environment variable that holds a reference (`op run` style), another's from a plain
variable, and unrelated canaries in the environment. Then `kp index`, `kp search`,
`kp status` and a sweep of every MCP tool over HTTP (as that principal and as the admin) run,
and every file under KP_HOME (Dagster's sqlite event log, compute logs, Parquet snapshots,
shards, caches, query log), every log record and every output are searched: 0 hits.

About 20 s: a real in-process Dagster materialization and an MCP HTTP server."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError
from typer.testing import CliRunner

from knowledge_platform.access import ensure_admin_token
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from kp.app import app
from tests.conftest import REPO, write_registry
from tests.fakes.fake_op import FakeOp
from tests.fakes.openai_server import FakeOpenAI
from tests.leaks import canary, find_leaks
from tests.mcp.test_hostile_arguments import served
from tests.procs import free_port

pytestmark = pytest.mark.integration

OPENAI_REF = "op://Compass/OpenAI platform/api key"
MAYA_REF = "op://Compass/KP maya/token"
JONAS_REF = "op://Compass/KP jonas/token"


@pytest.fixture
def canaries() -> dict[str, str]:
    return {"openai_key": canary("sk-proj-"), "maya_token": canary("kp-"),
            "jonas_token": canary("kp-"), "rita_token": canary("kp-"),
            "clickup_env": canary("pk_81234567_"), "service_account": canary("ops_")}


@pytest.fixture
def openai(canaries: dict[str, str]) -> Iterator[FakeOpenAI]:
    with FakeOpenAI(api_key=canaries["openai_key"]) as server:
        yield server


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
def home(tmp_path: Path, canaries: dict[str, str], openai: FakeOpenAI, fake_op: FakeOp,
         monkeypatch: pytest.MonkeyPatch) -> Path:
    fake_op.set(OPENAI_REF, canaries["openai_key"])
    fake_op.set(MAYA_REF, canaries["maya_token"])
    fake_op.set(JONAS_REF, canaries["jonas_token"])
    registry = {
        "embedding": {"provider": "openai", "base_url": openai.base_url,
                      "api_key_ref": OPENAI_REF, "max_retries": 0},
        "answer": {"api_key_env": "KP_LEAK_ANSWER_KEY", "base_url": openai.base_url},
        "store": {"engine": "edge"},
        "internal": {"name": "Surefoot",
                     "sources": {"memory_files": {"path": str(REPO / "demo" / "workspace")}}},
        "clients": {"shade_store": {"name": "The Shade Store", "director": "maya",
                                    "sources": {}}},
        "principals": [{"name": "maya", "token_ref": MAYA_REF},
                       {"name": "jonas", "token_env": "KP_LEAK_JONAS"},
                       {"name": "rita", "token_env": "KP_LEAK_RITA", "role": "restricted"}],
    }
    config = write_registry(tmp_path / "config" / "registry.yaml", registry)
    home = tmp_path / "home"
    for name, value in {
        "KP_HOME": str(home), "KP_CONFIG": str(config),
        "KP_DAGSTER_URL": f"http://127.0.0.1:{free_port()}",  # no Dagster: errors are swept too
        "KP_LEAK_ANSWER_KEY": OPENAI_REF, "KP_LEAK_JONAS": JONAS_REF,
        "KP_LEAK_RITA": canaries["rita_token"], "CLICKUP_TOKEN": canaries["clickup_env"],
        "KP_LEAK_UNUSED_OP_TOKEN": canaries["service_account"],
    }.items():
        monkeypatch.setenv(name, value)
    return home


def kp(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    return f"$ kp {' '.join(args)} -> {result.exit_code}\n{result.output}\n{result.exception!r}"


async def sweep(url: str, token: str, admin: bool) -> dict[str, str]:
    """Every tool called once (twice for get_document: a real doc id and a bad one)."""
    said: dict[str, str] = {}
    async with Client(url, auth=token) as client:
        tools = {t.name for t in await client.list_tools()}
        found = await client.call_tool("knowledge_search", {"query": "weekly reindex"})
        hits = (found.structured_content or {}).get("hits") or [{}]
        calls: list[tuple[str, dict[str, Any]]] = [
            ("knowledge_search", {"query": "what are the standing rules?", "limit": 10}),
            ("knowledge_ask", {"question": "When does the weekly reindex run?"}),
            ("get_context", {"topic": "reindex schedule"}),
            ("list_decisions", {}), ("list_recent_memory", {"days": 365}),
            ("get_document", {"doc_id": hits[0].get("doc_id", "none")}),
            ("get_document", {"doc_id": "memory_files:nope.md"}),
            ("list_runbooks", {}), ("trigger_reindex", {"source": "memory_files"}),
            ("get_index_status", {}),
        ]
        assert {name for name, _ in calls} == tools, "sweep every tool the server has"
        for n, (name, args) in enumerate(calls):
            try:
                result = await client.call_tool(name, args)
                said[f"{name}#{n}"] = json.dumps(result.structured_content, default=str) + str(
                    result.content)
            except ToolError as exc:
                said[f"{name}#{n} (error)"] = str(exc)
    return {f"mcp as {'admin' if admin else 'maya'}: {k}": v for k, v in said.items()}


async def sweep_all(url: str, canaries: dict[str, str], admin_token: str) -> dict[str, str]:
    said = await sweep(url, canaries["maya_token"], admin=False)
    said |= await sweep(url, admin_token, admin=True)
    for name in ("jonas_token", "rita_token"):  # env-held reference, plain variable
        async with Client(url, auth=canaries[name]) as client:
            said[name] = str(await client.call_tool("list_decisions", {}))
    return said


def test_no_secret_value_leaks_anywhere(home: Path, canaries: dict[str, str],
                                        openai: FakeOpenAI, fake_op: FakeOp, logs: list[str],
                                        capfd: pytest.CaptureFixture[str]) -> None:
    outputs = {"kp index": kp("index"), "kp search": kp("search", "weekly reindex", "--json"),
               "kp status": kp("status", "--json")}
    assert "-> 0" in outputs["kp index"] and "memory_files" in outputs["kp index"]
    assert "Knowledge platform operations" in outputs["kp search"]

    settings = Settings()
    admin_token, _, _ = ensure_admin_token(settings)
    runtime = Runtime(settings)
    try:
        with served(runtime) as url:
            said = asyncio.run(sweep_all(url, canaries, admin_token))
    finally:
        runtime.close()
    outputs |= said

    # the canaries were really in play: the secrets worked where they were used
    assert any("LLM" not in v and '"mode": "llm"' in v for v in said.values()), said
    assert openai.requests("/v1/embeddings", "POST")
    assert all(r.status == 200 for r in openai.log)
    assert {c[1] for c in fake_op.calls} == {OPENAI_REF, MAYA_REF, JONAS_REF}
    assert "admins only" in said["mcp as maya: trigger_reindex#8 (error)"]

    captured = capfd.readouterr()
    hits = find_leaks(canaries, roots=[home], texts={
        **outputs, "log records": "\n".join(logs), "stdout": captured.out,
        "stderr": captured.err})
    assert len(logs) > 10 and (home / "dagster").is_dir() and (home / "data").is_dir()
    assert hits == []
