"""Results that fit an agent's context: a document comes a page at a time by cursor, lists
page too, a bad cursor is refused in one line, and the JSON of a structured result is sent
once to clients that read structured content (its text copy only to older clients)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.access import read_admin_token
from mcp_service import paging, server
from mcp_service.server import build_server
from tests.mcp.test_http import HEADERS, INITIALIZE, serving

OPS = "memory_files:platform-ops.md"


async def _pages(client: Client, tool: str, field: str, **args: Any) -> list[Any]:
    pages, cursor = [], None
    while True:
        result = await client.call_tool(tool, {**args, **({"cursor": cursor} if cursor else {})})
        pages.append(result.structured_content[field])
        cursor = result.structured_content.get("next_cursor")
        if not cursor:
            return pages


@pytest.mark.anyio
async def test_a_document_comes_a_page_at_a_time(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        whole = (await client.call_tool("get_document", {"doc_id": OPS})).structured_content
        monkeypatch.setattr(paging, "PAGE_CHARS", 2000)
        pages = await _pages(client, "get_document", "text", doc_id=OPS)
        first = await client.call_tool("get_document", {"doc_id": OPS})
        cursor = first.structured_content["next_cursor"]
        for bad, why in (("bm90IGEgY3Vyc29y", "invalid cursor"), ("%%%", "invalid cursor")):
            with pytest.raises(ToolError, match=why):
                await client.call_tool("get_document", {"doc_id": OPS, "cursor": bad})
        with pytest.raises(ToolError, match="belongs to another call"):
            await client.call_tool(
                "get_document", {"doc_id": "memory_files:MEMORY.md", "cursor": cursor}
            )
    assert whole["next_cursor"] is None and len(whole["text"]) < paging.PAGE_CHARS * 5
    assert len(pages) > 2 and all(len(p) <= 2000 for p in pages)
    assert " ".join(pages).split() == whole["text"].split()  # nothing lost, nothing twice
    assert "Step 1:" in pages[0] and "Step 60:" in pages[-1]


@pytest.mark.anyio
async def test_lists_page_by_cursor(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        whole = (await client.call_tool("list_decisions", {})).structured_content["decisions"]
        monkeypatch.setattr(server, "DECISIONS_PAGE", 1)
        pages = await _pages(client, "list_decisions", "decisions")
    assert len(whole) >= 2 and [len(p) for p in pages] == [1] * len(whole)
    assert [d for page in pages for d in page] == whole


def _call(url: str, headers: dict[str, str], version: str) -> dict[str, Any]:
    opened = httpx.post(
        url,
        headers=headers,
        timeout=10,
        json={**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": version}},
    )
    assert opened.json()["result"]["protocolVersion"] == version
    session = {
        "mcp-session-id": opened.headers["mcp-session-id"],
        "MCP-Protocol-Version": version,
        "Mcp-Method": "tools/call",
    }
    reply = httpx.post(
        url,
        headers={**headers, **session},
        timeout=30,
        json={
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "knowledge_search", "arguments": {"query": "weekly reindex"}},
        },
    )
    return reply.json()["result"]


def test_structured_json_is_sent_once_where_the_client_reads_it(runtime: Runtime) -> None:
    with serving(runtime) as url:
        headers = {**HEADERS, "Authorization": f"Bearer {read_admin_token(runtime.settings)}"}
        old = _call(url, headers, "2025-03-26")  # before structured results: the JSON text
        new = _call(url, headers, "2025-11-25")
    assert json.loads(old["content"][0]["text"]) == old["structuredContent"]
    brief = new["content"][0]["text"]
    hits = new["structuredContent"]["hits"]
    assert hits and all(f"[{i}] {h['title']}" in brief for i, h in enumerate(hits, 1))
    assert hits[0]["snippet"] not in brief and len(brief) < len(json.dumps(hits)) / 3
