"""Every tool through the in-memory client (no token: the default principal)."""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.querylog import QueryLog
from mcp_service.server import build_server
from mcp_service.service import KnowledgeService
from mcp_service.snippets import SNIPPET_CHARS
from tests.mcp.fixtures import LONG_SECTION, days_ago

pytestmark = pytest.mark.anyio

TOOLS = {
    "knowledge_search",
    "knowledge_ask",
    "get_context",
    "list_decisions",
    "list_recent_memory",
    "get_document",
    "list_runbooks",
    "trigger_reindex",
    "get_index_status",
}


async def test_tool_list_schemas_and_hints(runtime: Runtime) -> None:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        tools = {t.name: t for t in await client.list_tools()}
    assert set(tools) == TOOLS
    for name, tool in tools.items():
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (name != "trigger_reindex"), name
        assert tool.description and len(tool.description) < 300
        assert tool.output_schema is not None
    props = tools["knowledge_search"].input_schema["properties"]
    assert props["query"]["minLength"] == 1 and props["query"]["maxLength"] == 2000
    assert props["limit"]["minimum"] == 1 and props["limit"]["maximum"] == 50
    days = tools["list_recent_memory"].input_schema["properties"]["days"]
    assert (days["minimum"], days["maximum"]) == (1, 365)


async def test_search_returns_hits_with_provenance_and_logs(runtime: Runtime) -> None:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        result = await client.call_tool(
            "knowledge_search", {"query": "weekly reindex Sunday", "limit": 3}
        )
    data = result.structured_content
    assert data is not None and data["scope"] == "internal"
    assert 1 <= len(data["hits"]) <= 3
    top = data["hits"][0]
    assert top["title"] == "Knowledge platform operations"
    assert top["uri"].endswith("platform-ops.md")
    assert top["doc_id"] == "memory_files:platform-ops.md"
    for key in ("source", "scope", "kind", "lifecycle", "headers", "score", "ordinal", "snippet"):
        assert key in top
    # A snippet and handles, not the passage: the whole text is get_document's.
    assert "Sunday" in top["snippet"] and len(top["snippet"]) <= SNIPPET_CHARS + 2
    assert not {"text", "source_id", "version", "sha"} & set(top)
    record = QueryLog(runtime.settings.query_log).read()[-1]
    assert record["tool"] == "knowledge_search" and record["principal"] == "compass"
    assert record["query"] == "weekly reindex Sunday" and record["hits"] == len(data["hits"])
    assert record["top_score"] == pytest.approx(top["score"], rel=1e-4)


async def test_a_repeated_search_runs_on_the_event_loop_with_the_same_answer_and_rules(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []
    search = KnowledgeService.search

    def recorded(self: KnowledgeService, *args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return search(self, *args, **kwargs)

    monkeypatch.setattr(KnowledgeService, "search", recorded)
    args = {"query": "Shade Store launch plan", "scope": "hot"}
    async with Client(build_server(runtime, default_principal="compass")) as client:
        first = await client.call_tool("knowledge_search", args)  # embeds, opens the shard
        again = await client.call_tool("knowledge_search", args)
    assert threads == ["AnyIO worker thread", threading.current_thread().name]
    assert again.structured_content == first.structured_content
    assert first.structured_content["hits"]
    # The loop's path checks access as the thread's does: maya does not direct HOT.
    async with Client(build_server(runtime, default_principal="maya")) as client:
        with pytest.raises(ToolError, match="scope 'hot' is not available to maya"):
            await client.call_tool("knowledge_search", args)
    assert runtime.store.ready_in_process("hot") and runtime.retriever.embedded(args["query"])


async def test_search_lifecycle_and_filters(runtime: Runtime) -> None:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        plain = await client.call_tool("knowledge_search", {"query": "zebra walrus", "limit": 50})
        both = await client.call_tool(
            "knowledge_search",
            {
                "query": "zebra walrus",
                "limit": 50,
                "include_drafts": True,
                "include_deprecated": True,
            },
        )
        decisions = await client.call_tool(
            "knowledge_search", {"query": "reports", "kinds": ["decision"], "sources": ["git_docs"]}
        )
        dated = await client.call_tool(
            "knowledge_search",
            {"query": "decision", "date_from": str(days_ago(30)), "date_to": str(days_ago(10))},
        )
        with pytest.raises(ToolError, match="unknown source 'nope'"):
            await client.call_tool("knowledge_search", {"query": "x", "sources": ["nope"]})
        with pytest.raises(ToolError, match=r"date_from .* is after date_to"):
            await client.call_tool(
                "knowledge_search",
                {"query": "x", "date_from": "2026-02-01", "date_to": "2026-01-01"},
            )
    assert {h["lifecycle"] for h in plain.structured_content["hits"]} == {"stable"}
    lifecycles = {h["title"]: h["lifecycle"] for h in both.structured_content["hits"]}
    assert lifecycles["Zebra migration plan"] == "draft"
    assert lifecycles["Walrus process"] == "deprecated"
    assert {h["kind"] for h in decisions.structured_content["hits"]} == {"decision"}
    assert all(
        str(days_ago(30)) <= h["date"] <= str(days_ago(10))
        for h in dated.structured_content["hits"]
    )
    assert dated.structured_content["hits"]


async def test_bad_arguments_are_one_line_tool_errors(runtime: Runtime) -> None:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        for args, pattern in [
            ({"query": "x", "limit": 51}, "invalid argument limit"),
            ({"query": ""}, "invalid argument query"),
            ({"query": "   "}, "query is blank"),
            ({"query": "x" * 2001}, "invalid argument query"),
        ]:
            with pytest.raises(ToolError, match=pattern) as info:
                await client.call_tool("knowledge_search", args)
            assert "\n" not in str(info.value) and "Traceback" not in str(info.value)
        with pytest.raises(ToolError, match="invalid argument days"):
            await client.call_tool("list_recent_memory", {"days": 0})


async def test_ask_is_extractive_and_cited(runtime: Runtime) -> None:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        result = await client.call_tool(
            "knowledge_ask", {"question": "When does the weekly reindex run?"}
        )
    data = result.structured_content
    assert data["mode"] == "extractive"
    assert data["answer"].startswith("Extractive answer")
    assert "Sunday at 02:00" in data["answer"] and "[1]" in data["answer"]
    assert data["citations"][0]["title"] == "Knowledge platform operations"
    assert 0 < data["confidence"] <= 1
    assert QueryLog(runtime.settings.query_log).read()[-1]["tool"] == "knowledge_ask"


async def test_get_context_merges_sections_within_budget(runtime: Runtime) -> None:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        wide = await client.call_tool(
            "get_context", {"topic": "lantern dashboard operator", "max_tokens": 4000}
        )
        tight = await client.call_tool(
            "get_context", {"topic": "lantern dashboard operator", "max_tokens": 200}
        )
    blocks = wide.structured_content["blocks"]
    doc_ids = [b["doc_id"] for b in blocks]
    assert len(doc_ids) == len(set(doc_ids)), "one block per document"
    ops = next(b for b in blocks if b["doc_id"] == "memory_files:platform-ops.md")
    assert len(ops["ordinals"]) >= 2  # the runbook section spans several chunks
    assert ops["ordinals"] == sorted(ops["ordinals"])
    assert "Step 1:" in ops["text"] and "Step 60:" in ops["text"]
    # overlap between windows removed: every step appears exactly once
    assert ops["text"].count("Step 30:") == 1
    assert wide.structured_content["tokens"] <= 4000
    assert tight.structured_content["tokens"] <= 200 and tight.structured_content["truncated"]


async def test_list_decisions_internal_and_client(runtime: Runtime) -> None:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        internal = (await client.call_tool("list_decisions", {})).structured_content
        shade = (
            await client.call_tool("list_decisions", {"client": "shade_store"})
        ).structured_content
    assert internal["scope"] == "internal"
    by_title = {d["title"]: d for d in internal["decisions"]}
    adr1, adr2 = by_title["ADR 1: monthly reports"], by_title["ADR 2: biweekly reports"]
    assert adr1["superseded"] and adr1["superseded_by"] == "git_docs:adr/0002-biweekly-reports.md"
    assert not adr2["superseded"] and adr2["status"] == "accepted"
    summaries = [d["summary"] for d in internal["decisions"]]
    assert any(
        s.startswith("We standardise on 95% significance and a 14-day minimum for every")
        for s in summaries
    )
    assert any("every second Monday" in s for s in summaries)
    dates = [d["date"] for d in internal["decisions"]]
    assert dates == sorted(dates, reverse=True)
    assert shade["scope"] == "shade_store"
    assert [d["summary"] for d in shade["decisions"]] == ["Pause the checkout test."]
    assert shade["decisions"][0]["citation"]["url"].endswith("/t/task-1")


async def test_list_recent_memory_window(runtime: Runtime) -> None:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        week = (await client.call_tool("list_recent_memory", {"days": 7})).structured_content
        month = (await client.call_tool("list_recent_memory", {"days": 30})).structured_content
    week_dates = [e["date"] for e in week["entries"]]
    assert str(days_ago(2)) in week_dates and str(days_ago(20)) not in week_dates
    assert all(d >= str(days_ago(7)) for d in week_dates)
    assert week_dates == sorted(week_dates, reverse=True)
    assert {e["kind"] for e in month["entries"]} == {"memory"}
    assert str(days_ago(20)) in [e["date"] for e in month["entries"]]
    assert "Zebra migration plan" not in [e["title"] for e in week["entries"]]  # a draft


async def test_get_document_reassembles_in_order(runtime: Runtime) -> None:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        doc = (
            await client.call_tool("get_document", {"doc_id": "memory_files:platform-ops.md"})
        ).structured_content
        draft = (
            await client.call_tool("get_document", {"doc_id": "memory_files:drafts/plan.md"})
        ).structured_content
        with pytest.raises(ToolError, match=r"no document 'memory_files:nope\.md'"):
            await client.call_tool("get_document", {"doc_id": "memory_files:nope.md"})
    assert doc["chunks"] >= 3 and doc["uri"].endswith("platform-ops.md")
    text = doc["text"]
    assert text.index("## Schedules") < text.index("## Runbook") < text.index("## Escalation")
    for step in ("Step 1:", "Step 31:", "Step 60:"):
        assert text.count(step) == 1, step
    assert LONG_SECTION[-80:] in " ".join(text.split())
    assert draft["lifecycle"] == "draft"


async def test_index_status_unavailable_without_dagster(runtime: Runtime) -> None:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        status = (await client.call_tool("get_index_status", {})).structured_content
    assert status["status"] == "unavailable" and "not reachable" in status["health"]
    rows = {(r["source"], r["scope"]): r for r in status["sources"]}
    assert rows[("memory_files", "internal")]["points"] >= 7
    assert rows[("clickup", "shade_store")]["points"] == 1


async def test_trigger_reindex_admin_only_and_reports_unreachable(runtime: Runtime) -> None:
    async with Client(build_server(runtime, default_principal="maya")) as client:
        with pytest.raises(ToolError, match="for admins only"):
            await client.call_tool("trigger_reindex", {})
    async with Client(build_server(runtime, default_principal="compass")) as client:
        with pytest.raises(ToolError, match=r"not reachable .*; nothing was launched"):
            await client.call_tool("trigger_reindex", {"source": "memory_files"})
        with pytest.raises(ToolError, match="not configured"):
            await client.call_tool("trigger_reindex", {"source": "clickup", "scope": "hot"})


async def test_no_default_principal_refuses(runtime: Runtime) -> None:
    async with Client(build_server(runtime)) as client:
        with pytest.raises(ToolError, match="not authenticated"):
            await client.call_tool("knowledge_search", {"query": "reindex"})


def _append_many(path: str, worker: int) -> None:
    log = QueryLog(Path(path))
    for i in range(200):
        log.append(
            principal=f"p{worker}",
            scope="internal",
            tool="knowledge_search",
            query="q" * (i % 50 + 1) + " ünïcode",
            hits=i,
            top_score=0.5,
        )


def test_query_log_appends_whole_lines_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "queries.jsonl"
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_append_many, args=(str(path), w)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    lines = path.read_text(encoding="utf-8").splitlines()
    records = QueryLog(path).read()
    assert len(lines) == len(records) == 800
    assert {r["principal"] for r in records} == {"p0", "p1", "p2", "p3"}
    assert all(r["time"].endswith("+00:00") for r in records)
