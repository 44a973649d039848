"""A client the registry feeds from no source yet: search and reindex say so, and how to add
one, instead of pointing at trigger_reindex (which cannot help)."""

from __future__ import annotations

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from mcp_service.server import build_server

pytestmark = pytest.mark.anyio
HINT = "scope 'acme' has no sources yet: add one under clients.acme.sources in the registry"


async def test_search_and_reindex_of_a_client_without_sources_say_how_to_add_one(
    kp_env: Settings,
) -> None:
    runtime = Runtime(kp_env)  # the registry's client 'acme' has `sources: {}`
    try:
        async with Client(build_server(runtime, default_principal="compass")) as client:
            found = (
                await client.call_tool("knowledge_search", {"query": "hypothesis", "scope": "acme"})
            ).structured_content
            with pytest.raises(ToolError) as refused:
                await client.call_tool("trigger_reindex", {"scope": "acme"})
    finally:
        runtime.close()
    assert found["hits"] == []
    assert found["warnings"] == [
        HINT + " (registry.yaml), e.g. `memory_files: {path: "
        "<folder>}`; under `kp up` the registry sensor then indexes it"
    ]
    assert str(refused.value).startswith(f"nothing to reindex: {HINT}")
    assert "trigger_reindex" not in found["warnings"][0]
