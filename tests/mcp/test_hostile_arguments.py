"""Hostile tool arguments: very long or control-character queries, out-of-range limits,
unknown arguments and filters, hostile scope strings. Each bad call is a one-line ToolError
(no traceback, no stack), and no call ever reads or returns another scope's data.

The caller is maya, director of shade_store: `hot` (another director's client) holds the
data that must never show up. tests/mcp/test_access.py checks every tool refuses the
hostile scopes for an admin; here the same strings come from a director, over HTTP too."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.querylog import QueryLog
from mcp_service.server import build_server
from tests.mcp.fixtures import TOKENS
from tests.procs import served_in_thread

pytestmark = pytest.mark.anyio

GRANTED = {"internal", "shade_store"}
#: Text that exists only in the `hot` scope's documents (and in no query below).
HOT_ONLY = ("HOT account notes", "product detail pages", "lifted conversion for HOT")

BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("knowledge_search", {"query": "x" * 2001}, "invalid argument query"),
    ("knowledge_search", {"query": "kumquat " * 20_000}, "invalid argument query"),
    ("knowledge_ask", {"question": "\x00\x01" * 1001}, "invalid argument question"),
    ("get_context", {"topic": "y" * 5000}, "invalid argument topic"),
    ("knowledge_search", {"query": "x", "limit": -1}, "invalid argument limit"),
    ("knowledge_search", {"query": "x", "limit": 0}, "invalid argument limit"),
    ("knowledge_search", {"query": "x", "limit": 10**30}, "invalid argument limit"),
    ("knowledge_search", {"query": "x", "limit": 2**63}, "invalid argument limit"),
    ("knowledge_search", {"query": "x", "limit": 5.5}, "invalid argument limit"),
    ("knowledge_search", {"query": "x", "limit": "all"}, "invalid argument limit"),
    ("get_context", {"topic": "x", "max_tokens": 10**9}, "invalid argument max_tokens"),
    ("get_context", {"topic": "x", "max_tokens": -100}, "invalid argument max_tokens"),
    ("list_recent_memory", {"days": -5}, "invalid argument days"),
    ("list_recent_memory", {"days": 10**6}, "invalid argument days"),
    ("knowledge_search", {"query": "x", "bogus": 1}, "invalid argument bogus"),
    ("knowledge_search", {"query": "x", "filters": {"scope": "hot"}}, "invalid argument filters"),
    ("knowledge_search", {"query": "x", "where": "scope = 'hot'"}, "invalid argument where"),
    ("knowledge_search", {"query": "x", "collection": "client_hot"}, "invalid argument collection"),
    ("get_index_status", {"scope": "hot"}, "invalid argument scope"),
    ("knowledge_search", {"query": "x", "kinds": ["secret"]}, "invalid argument kinds.0"),
    ("knowledge_search", {"query": "x", "sources": ["../hot"]}, "unknown source '../hot'"),
    ("knowledge_search", {"query": "x", "sources": ["memory_files\n"]}, "unknown source"),
    ("knowledge_search", {"query": "x", "sources": ["s" * 5000]}, "unknown source"),
    (
        "knowledge_search",
        {"query": "x", "sources": ["memory_files"] * 11},
        "invalid argument sources",
    ),
    ("knowledge_search", {"query": "x", "date_from": "yesterday"}, "invalid argument date_from"),
    (
        "knowledge_search",
        {"query": "x", "date_from": "2026-02-01", "date_to": "2026-01-01"},
        "is after date_to",
    ),
    ("knowledge_search", {"query": " \t\r\n "}, "query is blank"),
    ("get_document", {"doc_id": "d" * 513}, "invalid argument doc_id"),
    ("get_document", {"doc_id": "memory_files:hot.md"}, "no document"),
    ("get_document", {"doc_id": "memory_files:hot.md", "scope": "shade_store"}, "no document"),
    ("get_document", {"doc_id": "memory_files:../hot/hot.md\x00"}, "no document"),
    ("get_document", {"doc_id": "*"}, "no document"),
    ("trigger_reindex", {"source": "../../etc"}, "admins only"),
    ("no_such_tool", {}, "Unknown tool"),
]

HOSTILE_SCOPES = [
    "client_*",
    "*",
    "../internal",
    "internal/../hot",
    "",
    "a" * 500,
    "\u0456nternal",
    "internal\x00",
    "internal\n",
    " internal",
    "INTERNAL",
    "client_hot",
    "hot",
    "%2e%2e%2fhot",
    "shade_store\x00hot",
]
SCOPED: list[tuple[str, dict[str, Any]]] = [
    ("knowledge_search", {"query": "kumquat bundle test"}),
    ("knowledge_ask", {"question": "which kumquat test worked?"}),
    ("get_context", {"topic": "kumquat bundle"}),
    ("list_recent_memory", {"days": 30}),
    ("get_document", {"doc_id": "memory_files:hot.md"}),
]


class ScopeSpy:
    """Forwards to the real store and records the scope of every call."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.scopes: list[str] = []

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.inner, name)
        if name == "close":
            return method

        def call(*args: Any, **kwargs: Any) -> Any:
            if args:
                self.scopes.append(args[0])
            return method(*args, **kwargs)

        return call


def spied(runtime: Runtime) -> ScopeSpy:
    spy = ScopeSpy(runtime.store)
    runtime.__dict__["store"] = spy
    runtime.__dict__.pop("retriever", None)
    return spy


def assert_one_line(message: str) -> None:
    assert message and "\n" not in message and "\r" not in message, repr(message)
    assert "Traceback" not in message and 'File "' not in message, message
    assert len(message) < 400, message
    assert not any(text in message for text in HOT_ONLY), message


def assert_no_foreign_data(data: dict[str, Any] | None) -> None:
    text = repr(data)  # the echoed query/topic holds none of HOT_ONLY
    assert not any(t in text for t in HOT_ONLY), text[:300]
    for key in ("hits", "blocks", "entries"):
        for item in (data or {}).get(key, []):
            assert item["scope"] in GRANTED


async def test_bad_arguments_are_one_line_errors(runtime: Runtime) -> None:
    spy = spied(runtime)
    async with Client(build_server(runtime, default_principal="maya")) as client:
        for tool, args, expected in BAD_CALLS:
            with pytest.raises(ToolError) as info:
                await client.call_tool(tool, args)
            assert expected in str(info.value), (tool, str(info.value))
            assert_one_line(str(info.value))
    assert set(spy.scopes) <= GRANTED


async def test_hostile_scopes_never_reach_another_scope(runtime: Runtime) -> None:
    spy = spied(runtime)
    async with Client(build_server(runtime, default_principal="maya")) as client:
        for scope in HOSTILE_SCOPES:
            for tool, args in SCOPED:
                with pytest.raises(ToolError) as info:
                    await client.call_tool(tool, {**args, "scope": scope})
                assert_one_line(str(info.value))
            with pytest.raises(ToolError) as info:
                await client.call_tool("list_decisions", {"client": scope})
            assert_one_line(str(info.value))
        # the same calls in maya's own client scope still work and stay in it
        for tool, args in SCOPED[:4]:
            result = await client.call_tool(tool, {**args, "scope": "shade_store"})
            assert_no_foreign_data(result.structured_content)
    assert spy.scopes and set(spy.scopes) <= GRANTED


async def test_control_characters_are_answered_in_scope_and_logged_on_one_line(
    runtime: Runtime,
) -> None:
    queries = [
        "kumquat\x00swatch",
        "kumquat \x1b[31mred\x1b[0m",
        "kumquat\u202egnp.exe",
        "kumquat\r\nscope: hot",
        "kumquat\u2028\u2029\x85\x0b\x0c",
        "\x00\x01\x02",
        "\ud7ff\ufffe\uffff kumquat",
        "'; DROP TABLE points; --",
    ]
    log = QueryLog(runtime.settings.query_log)
    before = len(log.read())
    async with Client(build_server(runtime, default_principal="maya")) as client:
        for query in queries:
            for scope in ("internal", "shade_store"):
                result = await client.call_tool(
                    "knowledge_search", {"query": query, "scope": scope, "limit": 50}
                )
                data = result.structured_content
                assert data is not None and data["scope"] == scope
                assert_no_foreign_data(data)
                assert {h["scope"] for h in data["hits"]} <= {scope}
    records = log.read()[before:]
    assert [r["query"] for r in records] == [q.strip() for q in queries for _ in range(2)]
    assert {r["principal"] for r in records} == {"maya"}


async def test_a_far_future_date_filter_is_answered(runtime: Runtime) -> None:
    async with Client(build_server(runtime, default_principal="maya")) as client:
        result = await client.call_tool(
            "knowledge_search",
            {"query": "weekly reindex", "date_from": "0001-01-01", "date_to": "9999-12-31"},
        )
    assert (result.structured_content or {})["hits"]


def served(runtime: Runtime) -> contextlib.AbstractContextManager[str]:
    return served_in_thread(build_server(runtime).http_app())


async def test_hostile_arguments_over_http(runtime: Runtime) -> None:
    spy = spied(runtime)
    with served(runtime) as url:
        async with Client(url, auth=TOKENS["maya"]) as client:
            for tool, args, expected in BAD_CALLS[::3]:
                with pytest.raises(ToolError) as info:
                    await client.call_tool(tool, args)
                assert expected in str(info.value), (tool, str(info.value))
                assert_one_line(str(info.value))
            for scope in HOSTILE_SCOPES:
                with pytest.raises(ToolError) as info:
                    await client.call_tool(
                        "knowledge_search", {"query": "kumquat bundle test", "scope": scope}
                    )
                assert_one_line(str(info.value))
            result = await client.call_tool(
                "knowledge_search",
                {"query": "kumquat\x00 bundle\u2028test", "scope": "shade_store", "limit": 50},
            )
    assert_no_foreign_data(result.structured_content)
    assert set(spy.scopes) <= GRANTED
