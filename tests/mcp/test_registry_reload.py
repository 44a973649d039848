"""The service follows the registry file while it runs, over real HTTP as `kp mcp` serves it:
a client added with `kp clients add` and indexed is searchable without a restart (and has its
`get_index_status` row), a principal removed from the file is refused at the next request, and
an edit that does not validate keeps the last good registry, says why once in the log and in
`get_index_status`."""

from __future__ import annotations

import contextlib
import logging
from contextlib import AbstractContextManager
from pathlib import Path

import httpx
import pytest
import yaml
from fastmcp import Client
from fastmcp.exceptions import ToolError
from typer.testing import CliRunner

from knowledge_platform.config.registry import hash_token
from knowledge_platform.ingest.runtime import IngestRuntime
from knowledge_platform.models import Document
from knowledge_platform.serve.access import ensure_admin_token
from knowledge_platform.settings import Settings
from kp.app import app as kp
from mcp_service.app import http_app
from tests.mcp.fixtures import index_documents
from tests.mcp.test_http import HEADERS, INITIALIZE
from tests.procs import free_port, served_in_thread

pytestmark = pytest.mark.anyio
MAYA = "maya-secret-token-1"


def note(scope: str, title: str, text: str) -> Document:
    return Document(
        source="memory_files",
        source_id=f"{scope}.md",
        scope=scope,
        title=title,
        kind="memory",
        uri=f"file:///ws/{scope}.md",
        text=f"# {title}\n\n{text}\n",
    )


def kp_mcp(settings: Settings) -> AbstractContextManager[str]:
    """`kp mcp`'s HTTP app (its own Runtime, following the registry) in a thread."""
    return served_in_thread(http_app(settings))


async def call(url: str, token: str, tool: str, **args: object) -> dict:
    async with Client(url, auth=token) as client:
        result = await client.call_tool(tool, args)
        return result.structured_content or {}


async def test_registry_edits_take_effect_without_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    for folder in ("ws", "clients/plant_therapy"):
        (tmp_path / folder).mkdir(parents=True)
    config = tmp_path / "registry.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "embedding": {"provider": "hash"},
                "internal": {"sources": {"memory_files": {"path": "ws"}}},
                "principals": [{"name": "maya", "token_sha256": hash_token(MAYA)}],
            }
        )
    )
    env = {
        "KP_HOME": str(tmp_path / "home"),
        "KP_CONFIG": str(config),
        "KP_DAGSTER_URL": f"http://127.0.0.1:{free_port()}",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    settings = Settings()
    admin, _, _ = ensure_admin_token(settings)
    indexer = IngestRuntime(settings)  # another process in real life: a Dagster run
    index_documents(
        indexer,
        "internal",
        "memory_files",
        [note("internal", "Ops", "The weekly reindex runs on Sunday.")],
    )

    with contextlib.closing(indexer), kp_mcp(settings) as url:
        with pytest.raises(ToolError, match="not available"):
            await call(url, admin, "knowledge_search", query="ficus", scope="plant_therapy")

        added = CliRunner().invoke(
            kp,
            [
                "clients",
                "add",
                "plant_therapy",
                "--director",
                "maya",
                "--source",
                "memory_files:path=clients/plant_therapy",
            ],
        )
        assert added.exit_code == 0, added.output
        index_documents(
            indexer,
            "plant_therapy",
            "memory_files",
            [note("plant_therapy", "Ficus care", "Water the ficus every Tuesday.")],
        )
        found = await call(url, MAYA, "knowledge_search", query="ficus", scope="plant_therapy")
        assert [h["title"] for h in found["hits"]] == ["Ficus care"]
        status = await call(url, admin, "get_index_status")
        rows = {(r["source"], r["scope"]): r for r in status["sources"]}
        assert rows[("memory_files", "plant_therapy")]["points"] == 1

        data = yaml.safe_load(config.read_text())
        data["principals"] = []
        config.write_text(yaml.safe_dump(data))
        refused = httpx.post(
            url, json=INITIALIZE, timeout=10, headers={**HEADERS, "Authorization": f"Bearer {MAYA}"}
        )
        assert refused.status_code == 401

        caplog.set_level(logging.INFO, logger="knowledge_platform.config.registry_watch")
        caplog.clear()
        config.write_text(config.read_text() + "clients: [not, a, mapping\n")
        for _ in range(3):  # still serving the last good registry, the new client included
            kept = await call(url, admin, "knowledge_search", query="ficus", scope="plant_therapy")
            assert [h["title"] for h in kept["hits"]] == ["Ficus care"]
        status = await call(url, admin, "get_index_status")
    why = [r.getMessage() for r in caplog.records if r.name.endswith("registry_watch")]
    assert len(why) == 1 and "not reloaded" in why[0] and "not valid YAML" in why[0], why
    assert any(
        w.startswith("registry edit not applied") and "not valid YAML" in w
        for w in status["warnings"]
    ), status["warnings"]
