"""What the MCP service costs an agent's context, in tokens of the tokenizer the project ships
(`knowledge_platform.ingest.tokens.TiktokenCounter`, cl100k_base, offline), over HTTP as `kp mcp`
serves it, on the indexed demo.

A tool result is counted whole: the compact JSON of the JSON-RPC `result` (structured content
and its text content), as a client on protocol 2025-11-25 receives it; the same calls on
2025-03-26 (before structured results: the JSON text copy too) are shown beside it.

Targets (issue 26): the catalogue (`tools/list`) <= 3,000; a default knowledge_search
(limit 10) <= 2,000; no tool result over 8,000 (every tool at its largest arguments).

    KP_MODEL_CACHE=... .venv/bin/python bench/context_budget.py [--home DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
from _common import ROOT, load_average, markdown_table, model_cache, write_results

from knowledge_platform.ingest.tokens import TiktokenCounter
from knowledge_platform.serve.access import ensure_admin_token
from knowledge_platform.settings import DEMO_CONFIG, Settings
from mcp_service.app import http_app
from tests.procs import free_port, served_in_thread

CATALOGUE, DEFAULT_SEARCH, ANY_RESULT = 3000, 2000, 8000
QUERIES = [
    "weekly reindex schedule",
    "client reports cadence",
    "how do we onboard a client",
    "Shade Store launch",
    "holiday freeze",
    "significance threshold for tests",
]
VERSIONS = ("2025-11-25", "2025-03-26")


class Session:
    """One MCP session over raw HTTP: every byte of each result is counted."""

    def __init__(self, url: str, token: str, version: str) -> None:
        self.url, self.version, self.ids = url, version, 0
        self.headers = {
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {token}",
        }
        opened = self.rpc(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        )
        assert opened["protocolVersion"] == version, opened
        self.headers["MCP-Protocol-Version"] = version

    def rpc(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.ids += 1
        reply = httpx.post(
            self.url,
            timeout=120,
            headers={**self.headers, "Mcp-Method": method},
            json={"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params},
        )
        if "mcp-session-id" in reply.headers:
            self.headers["mcp-session-id"] = reply.headers["mcp-session-id"]
        body = reply.json()
        if "error" in body:
            raise SystemExit(f"{method} {params}: {body['error']}")
        return body["result"]

    def call(self, tool: str, **args: Any) -> dict[str, Any]:
        return self.rpc("tools/call", {"name": tool, "arguments": args})


def tokens(counter: TiktokenCounter, value: Any) -> int:
    return counter.count(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def largest_calls(session: Session) -> list[tuple[str, dict[str, Any]]]:
    """Every tool at its largest arguments, and every document the demo holds."""
    docs: dict[tuple[str, str], None] = {}
    for scope in ("internal", "shade_store"):
        for query in QUERIES:
            found = session.call("knowledge_search", query=query, scope=scope, limit=50)
            docs.update({(h["doc_id"], scope): None for h in found["structuredContent"]["hits"]})
    calls: list[tuple[str, dict[str, Any]]] = [
        ("knowledge_search", {"query": q, "limit": 50}) for q in QUERIES
    ]
    calls += [("get_context", {"topic": q, "max_tokens": 6000}) for q in QUERIES]
    calls += [("knowledge_ask", {"question": q}) for q in QUERIES]
    calls += [("get_document", {"doc_id": d, "scope": s}) for d, s in docs]
    calls += [
        ("list_recent_memory", {"days": 365}),
        ("list_runbooks", {}),
        ("list_decisions", {}),
        ("get_index_status", {}),
    ]
    return calls


def measure(url: str, token: str) -> tuple[list[list[str]], dict[str, int]]:
    counter = TiktokenCounter()
    sessions = {v: Session(url, token, v) for v in VERSIONS}
    catalogue = {v: tokens(counter, s.rpc("tools/list", {})) for v, s in sessions.items()}
    rows = [["tools/list", *(str(catalogue[v]) for v in VERSIONS)]]
    default = {
        v: max(tokens(counter, s.call("knowledge_search", query=q)) for q in QUERIES)
        for v, s in sessions.items()
    }
    rows.append(
        [
            f"knowledge_search, default limit, max of {len(QUERIES)} queries",
            *(str(default[v]) for v in VERSIONS),
        ]
    )
    largest: dict[str, dict[str, int]] = {}
    for tool, args in largest_calls(sessions[VERSIONS[0]]):
        for v, s in sessions.items():
            size = tokens(counter, s.call(tool, **args))
            largest.setdefault(tool, {}).setdefault(v, 0)
            largest[tool][v] = max(largest[tool][v], size)
    rows += [
        [f"{tool}, largest", *(str(sizes[v]) for v in VERSIONS)] for tool, sizes in largest.items()
    ]
    figures = {
        "catalogue": catalogue[VERSIONS[0]],
        "default_search": default[VERSIONS[0]],
        "largest_result": max(s[VERSIONS[0]] for s in largest.values()),
    }
    return rows, figures


def indexed_demo(home: Path) -> None:
    env = {
        **os.environ,
        "KP_HOME": str(home),
        "KP_CONFIG": str(DEMO_CONFIG),
        "KP_MODEL_CACHE": str(model_cache()),
    }
    kp = Path(sys.executable).with_name("kp")
    subprocess.run([str(kp), "index"], env=env, check=True, capture_output=True, timeout=900)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, help="an indexed demo KP_HOME (default: a new one)")
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="kp-budget-"))
    try:
        if args.home is None:
            indexed_demo(home)
        os.environ.update(
            {
                "KP_HOME": str(home),
                "KP_CONFIG": str(DEMO_CONFIG),
                "KP_MODEL_CACHE": str(model_cache()),
                "KP_DAGSTER_URL": f"http://127.0.0.1:{free_port()}",
            }
        )
        settings = Settings()
        token, _, _ = ensure_admin_token(settings)
        with served_in_thread(http_app(settings)) as base:
            rows, figures = measure(base, token)
    finally:
        if args.home is None:
            shutil.rmtree(home, ignore_errors=True)
    verdict = (
        figures["catalogue"] <= CATALOGUE
        and figures["default_search"] <= DEFAULT_SEARCH
        and figures["largest_result"] <= ANY_RESULT
    )
    body = markdown_table(
        ["result (tokens, cl100k_base)", *(f"protocol {v}" for v in VERSIONS)], rows
    ) + (
        f"\n\nTargets: tools/list <= {CATALOGUE}, default knowledge_search <= {DEFAULT_SEARCH}, "
        f"any result <= {ANY_RESULT} (on {VERSIONS[0]}): "
        f"{'met' if verdict else 'NOT met'}.\n\n- {load_average()}; the demo registry, "
        "indexed by `kp index`; get_index_status without Dagster running.\n\n"
        "Command: `KP_MODEL_CACHE=... .venv/bin/python bench/context_budget.py`\n"
    )
    path = write_results("context_budget", "Context budget of the MCP service", body)
    print(body)
    print(f"written to {path.relative_to(ROOT)}")
    print(" ".join(f"{k}={v}" for k, v in figures.items()) + f" met={verdict}")


if __name__ == "__main__":
    main()
