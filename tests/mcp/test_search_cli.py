"""`kp search`: the blank-query rule MCP applies, and each title printed once."""

from __future__ import annotations

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError
from typer.testing import CliRunner

from knowledge_platform.ingest.runtime import IngestRuntime
from knowledge_platform.models import Document
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from kp.app import app
from mcp_service.server import build_server
from tests.mcp.fixtures import index_documents

OPS = Document(
    source="memory_files",
    source_id="platform-ops.md",
    scope="internal",
    title="Knowledge platform operations",
    kind="memory",
    uri="file:///ws/platform-ops.md",
    text="# Knowledge platform operations\n\n## Schedules\nThe weekly reindex runs "
    "every Sunday at 02:00 America/New_York.\n",
)


@pytest.fixture
def indexed(kp_env: Settings) -> Settings:
    runtime = IngestRuntime(kp_env)
    try:
        index_documents(runtime, "internal", "memory_files", [OPS])
    finally:
        runtime.close()
    return kp_env


@pytest.mark.anyio
@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
async def test_blank_query_is_refused_by_kp_search_and_by_mcp_alike(
    indexed: Settings, query: str
) -> None:
    cli = CliRunner().invoke(app, ["search", query])
    assert cli.exit_code == 2
    assert "query is blank; say what to look for" in cli.output
    runtime = Runtime(indexed)
    try:
        async with Client(build_server(runtime, default_principal="compass")) as client:
            with pytest.raises(ToolError, match="query"):  # '' already fails the schema
                await client.call_tool("knowledge_search", {"query": query})
    finally:
        runtime.close()


def test_kp_search_prints_the_title_once_then_the_rest_of_the_trail(indexed: Settings) -> None:
    result = CliRunner().invoke(app, ["search", "weekly reindex"])
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first.startswith("1. Knowledge platform operations > Schedules  score=")
    assert first.count("Knowledge platform operations") == 1
