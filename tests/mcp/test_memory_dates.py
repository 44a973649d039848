"""Only dated memory is recent: a note's date comes from its front matter, its file name or
its first heading, never from the file's mtime (a fresh checkout would make every undated
file look written today)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from fastmcp import Client

from knowledge_platform.connectors.memory_files.connector import MemoryFilesConnector
from knowledge_platform.connectors.memory_files.settings import MemoryFilesSettings
from knowledge_platform.ingest.runtime import IngestRuntime
from knowledge_platform.settings import Settings
from mcp_service.server import build_server
from tests.mcp.fixtures import days_ago, index_documents

pytestmark = pytest.mark.anyio


def write(ws: Path, name: str, text: str) -> None:
    (ws / name).parent.mkdir(parents=True, exist_ok=True)
    (ws / name).write_text(text, encoding="utf-8")


async def test_undated_memory_files_carry_no_date_and_are_never_recent(
    kp_env: Settings, tmp_path: Path
) -> None:
    ws = tmp_path / "notes"
    write(ws, "MEMORY.md", "# Standing memory\n\nEvery test runs fourteen days.\n")
    write(ws, "clients.md", "# Clients\n\n## HOT\nAccount director: Jonas.\n")
    write(ws, f"memory/{days_ago(1)}.md", "# Ops sync\n\nThe audit starts Monday.\n")
    write(ws, "journal.md", f"# {days_ago(2)} — retro\n\nThe banner test is paused.\n")
    write(ws, "plan.md", f"---\ndate: {days_ago(3)}\n---\n# Plan\n\nShip the bundle test.\n")
    docs = MemoryFilesConnector(MemoryFilesSettings(path=ws), "internal").pull(None).documents
    dates = {d.source_id: d.date for d in docs}
    assert dates == {
        "MEMORY.md": None,
        "clients.md": None,
        f"memory/{days_ago(1)}.md": days_ago(1),
        "journal.md": days_ago(2),
        "plan.md": days_ago(3),
    }

    # the service's clock at noon of the fixtures' today: a run across midnight in New York
    # would otherwise see one today in the files and another in the service
    noon = dt.datetime.combine(days_ago(0), dt.time(12))
    runtime = IngestRuntime(kp_env.model_copy(update={"now": noon}))
    try:
        index_documents(runtime, "internal", "memory_files", docs)
        async with Client(build_server(runtime, default_principal="compass")) as client:
            recent = (
                await client.call_tool("list_recent_memory", {"days": 365})
            ).structured_content
    finally:
        runtime.close()
    assert [(e["source_id"], e["date"]) for e in recent["entries"]] == [
        (f"memory/{days_ago(1)}.md", str(days_ago(1))),
        ("journal.md", str(days_ago(2))),
        ("plan.md", str(days_ago(3))),
    ]
    assert dt.date.fromisoformat(recent["date_to"]) == days_ago(0)
