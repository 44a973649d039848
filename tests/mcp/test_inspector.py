"""An independent MCP client — the Node MCP Inspector CLI, pinned in .ci/run — lists the tools
and calls each one over HTTP with a bearer token."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.access import read_admin_token
from tests.mcp.test_http import http_url  # noqa: F401 - the fixture

REPO = Path(__file__).resolve().parents[2]
#: The version pinned in .ci/run; README's example runs the same one.
PINNED = "@modelcontextprotocol/inspector@0.17.5"


def _inspector() -> list[str] | None:
    """KP_INSPECTOR (set by .ci/run), else the pinned install .ci/run makes, else the pinned
    version through npx; None without Node."""
    if not shutil.which("node"):
        return None
    if os.environ.get("KP_INSPECTOR"):
        return [os.environ["KP_INSPECTOR"]]
    local = REPO / ".ci" / "node" / "node_modules" / ".bin" / "mcp-inspector"
    if local.exists():
        return [str(local)]
    return ["npx", "-y", PINNED] if shutil.which("npx") else None


INSPECTOR = _inspector()

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        INSPECTOR is None, reason=f"needs Node with npx (or the install .ci/run makes of {PINNED})"
    ),
]

CALLS = {
    "knowledge_search": {"query": "weekly reindex", "scope": "internal"},
    "knowledge_ask": {"question": "When does the weekly reindex run?"},
    "get_context": {"topic": "reporting cadence"},
    "list_decisions": {},
    "list_recent_memory": {"days": "30"},
    "get_document": {"doc_id": "memory_files:MEMORY.md"},
    "list_runbooks": {"prefix": "adr/", "include_deprecated": "true"},
    "get_index_status": {},
    "trigger_reindex": {"source": "all"},
}


def inspector(url: str, token: str, *args: str) -> dict:
    done = subprocess.run(
        [
            *(INSPECTOR or []),
            "--cli",
            url,
            "--transport",
            "http",
            "--header",
            f"Authorization: Bearer {token}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_inspector_lists_and_calls_every_tool(http_url: str, runtime: Runtime) -> None:  # noqa: F811
    token = read_admin_token(runtime.settings)
    assert token
    listed = inspector(http_url, token, "--method", "tools/list")
    names = {t["name"] for t in listed["tools"]}
    assert names == set(CALLS)
    readers = {t["name"] for t in listed["tools"] if t.get("annotations", {}).get("readOnlyHint")}
    assert readers == set(CALLS) - {"trigger_reindex"}
    for tool, args in CALLS.items():
        flags = [f for k, v in args.items() for f in ("--tool-arg", f"{k}={v}")]
        result = inspector(http_url, token, "--method", "tools/call", "--tool-name", tool, *flags)
        assert "structuredContent" in result or "content" in result, (tool, result)
        if tool == "list_runbooks":
            found = {r["path"]: r["superseded_by"] for r in result["structuredContent"]["runbooks"]}
            assert found == {
                "adr/0001-monthly-reports.md": "git_docs:adr/0002-biweekly-reports.md",
                "adr/0002-biweekly-reports.md": None,
            }
        if tool == "knowledge_search":
            hits = result["structuredContent"]["hits"]
            assert hits and {h["scope"] for h in hits} == {"internal"}
