"""Isolation: grants, hostile scope strings, another director's client, confidentiality,
and every store call naming exactly the caller's one validated scope."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from knowledge_platform.config.registry import Registry
from knowledge_platform.errors import AccessDeniedError
from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.access import (
    ADMIN_PRINCIPAL,
    Authenticator,
    ensure_admin_token,
    read_admin_token,
)
from mcp_service.server import build_server
from tests.mcp.fixtures import TOKENS, make_settings, registry_data

HOSTILE = [
    "client_*",
    "../internal",
    "",
    " internal",
    "INTERNAL",
    "client_hot",
    "a" * 500,
    "\u0456nternal",
    "internal\x00",
    "hot\n",
    "*",
    "internal/../hot",
]
SCOPED_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("knowledge_search", {"query": "kumquat"}),
    ("knowledge_ask", {"question": "kumquat test?"}),
    ("get_context", {"topic": "kumquat"}),
    ("list_recent_memory", {"days": 30}),
    ("get_document", {"doc_id": "memory_files:hot.md"}),
    ("list_runbooks", {}),
]


def _registry() -> Registry:
    return Registry.model_validate({**registry_data(), "base_dir": Path(".")})


class RecordingStore:
    """Forwards to the real store and records the scope every call names."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.scopes: list[str] = []

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.inner, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            if args:
                self.scopes.append(args[0])
            return method(*args, **kwargs)

        return call if name != "close" else method


def test_grants_follow_the_registry() -> None:
    authn = Authenticator(_registry(), env={})
    assert authn.grant("maya").scopes == ("internal", "shade_store")
    assert authn.grant("jonas").scopes == ("internal", "hot")
    assert authn.grant("maya").confidentiality == ["public", "internal"]
    assert authn.grant("rita").confidentiality == ["public", "internal", "restricted"]
    ops = authn.grant("ops")
    assert (
        ops.admin
        and ops.confidentiality is None
        and set(ops.scopes) == {"internal", "shade_store", "hot"}
    )
    assert authn.grant(ADMIN_PRINCIPAL).admin
    with pytest.raises(AccessDeniedError, match="unknown principal"):
        authn.grant("mallory")


def test_tokens_resolve_by_hash_and_env(tmp_path: Path) -> None:
    data = registry_data()
    data["principals"].append({"name": "envy", "token_env": "KP_TEST_TOKEN_ENVY"})
    registry = Registry.model_validate({**data, "base_dir": tmp_path})
    authn = Authenticator(
        registry, admin_token="admin-xyz", env={"KP_TEST_TOKEN_ENVY": "envy-token"}
    )
    for token, name in (
        (TOKENS["maya"], "maya"),
        ("envy-token", "envy"),
        ("admin-xyz", ADMIN_PRINCIPAL),
    ):
        grant = authn.authenticate(token)
        assert grant is not None and grant.principal == name
    for bad in ("", "maya", TOKENS["maya"] + " ", TOKENS["maya"].upper()):
        assert authn.authenticate(bad) is None
    assert Authenticator(registry, env={}).authenticate("envy-token") is None


def test_admin_token_created_once_with_0600(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    token, path, created = ensure_admin_token(settings)
    assert created and path == settings.home_dir / "admin-token" and len(token) >= 32
    # never an option to a CLI ("--token -abc" broke an argparse tool), whatever it draws
    assert token.startswith("kpadm_") and not token.startswith("-")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    again, _, created_again = ensure_admin_token(settings)
    assert again == token and not created_again and read_admin_token(settings) == token


@pytest.mark.parametrize("scope", HOSTILE)
def test_hostile_scope_strings_refused(scope: str) -> None:
    grant = Authenticator(_registry(), env={}).grant("ops")
    with pytest.raises(AccessDeniedError) as info:
        grant.check_scope(scope)
    message = str(info.value)
    assert "\n" not in message and len(message) < 200


@pytest.mark.anyio
async def test_hostile_scopes_refused_by_every_tool(runtime: Runtime) -> None:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        for scope in HOSTILE:
            for tool, args in SCOPED_CALLS:
                with pytest.raises(ToolError) as info:
                    await client.call_tool(tool, {**args, "scope": scope})
                assert "\n" not in str(info.value), (tool, scope)
            with pytest.raises(ToolError):
                await client.call_tool("list_decisions", {"client": scope})
            with pytest.raises(ToolError):
                await client.call_tool("trigger_reindex", {"scope": scope})


@pytest.mark.anyio
async def test_director_refused_on_another_directors_client(runtime: Runtime) -> None:
    async with Client(build_server(runtime, default_principal="maya")) as client:
        for tool, args in SCOPED_CALLS:
            with pytest.raises(ToolError, match="scope 'hot' is not available to maya"):
                await client.call_tool(tool, {**args, "scope": "hot"})
        with pytest.raises(ToolError, match="scope 'hot' is not available to maya"):
            await client.call_tool("list_decisions", {"client": "hot"})
        with pytest.raises(ToolError, match="admins only"):
            await client.call_tool("trigger_reindex", {"scope": "hot"})
        status = (await client.call_tool("get_index_status", {})).structured_content
    assert {row["scope"] for row in status["sources"]} == {"internal", "shade_store"}


@pytest.mark.anyio
async def test_results_stay_inside_the_one_scope(runtime: Runtime) -> None:
    recorder = RecordingStore(runtime.store)
    runtime.__dict__["store"] = recorder
    runtime.__dict__.pop("retriever", None)
    async with Client(build_server(runtime, default_principal="maya")) as client:
        search = await client.call_tool(
            "knowledge_search", {"query": "kumquat test", "scope": "shade_store", "limit": 50}
        )
        context = await client.call_tool(
            "get_context", {"topic": "kumquat", "scope": "shade_store"}
        )
        decisions = await client.call_tool("list_decisions", {"client": "shade_store"})
        memory = await client.call_tool("list_recent_memory", {"scope": "shade_store", "days": 365})
        await client.call_tool("knowledge_ask", {"question": "kumquat?", "scope": "shade_store"})
        with pytest.raises(ToolError, match="no document"):
            await client.call_tool(
                "get_document", {"doc_id": "memory_files:hot.md", "scope": "shade_store"}
            )
    hits = search.structured_content["hits"]
    assert hits and {h["scope"] for h in hits} == {"shade_store"}
    assert "HOT account notes" not in {h["title"] for h in hits}
    assert {b["scope"] for b in context.structured_content["blocks"]} == {"shade_store"}
    assert {d["citation"]["scope"] for d in decisions.structured_content["decisions"]} == {
        "shade_store"
    }
    assert {e["scope"] for e in memory.structured_content["entries"]} == {"shade_store"}
    assert recorder.scopes and set(recorder.scopes) == {"shade_store"}


@pytest.mark.anyio
async def test_restricted_documents_need_the_restricted_role(runtime: Runtime) -> None:
    salary = {"doc_id": "memory_files:hr/salaries.md"}
    async with Client(build_server(runtime, default_principal="maya")) as client:
        search = await client.call_tool(
            "knowledge_search", {"query": "ocelot salary bands", "limit": 50}
        )
        memory = await client.call_tool("list_recent_memory", {"days": 30})
        context = await client.call_tool("get_context", {"topic": "ocelot salary bands"})
        with pytest.raises(ToolError, match="no document"):
            await client.call_tool("get_document", salary)
    titles = {h["title"] for h in search.structured_content["hits"]}
    assert "Salary bands" not in titles
    assert "Salary bands" not in {e["title"] for e in memory.structured_content["entries"]}
    assert "Salary bands" not in {b["title"] for b in context.structured_content["blocks"]}
    for principal in ("rita", "compass"):
        async with Client(build_server(runtime, default_principal=principal)) as client:
            found = await client.call_tool("knowledge_search", {"query": "ocelot salary bands"})
            doc = await client.call_tool("get_document", salary)
        assert found.structured_content["hits"][0]["title"] == "Salary bands", principal
        assert "ocelot" in doc.structured_content["text"]
