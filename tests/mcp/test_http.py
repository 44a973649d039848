"""The server over real HTTP: no or a wrong bearer token -> 401; a valid token works and
resolves to its principal; `python -m mcp_service` creates the admin token and serves; and
`import mcp_service.server` never imports dagster."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
import yaml
from fastmcp import Client
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import Middleware

from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.access import read_admin_token
from mcp_service.app import http_options, pin_tool_schemas
from mcp_service.server import build_server
from tests.mcp.fixtures import TOKENS

REPO = Path(__file__).resolve().parents[2]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_listening(port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on {port}")


class ListingCounter(Middleware):
    """Counts the tools/list requests the server answers."""

    def __init__(self) -> None:
        self.listings = 0

    async def on_list_tools(self, context: Any, call_next: Any) -> Any:
        self.listings += 1
        return await call_next(context)


@contextmanager
def serving(runtime: Runtime, *middleware: Middleware, port: int | None = None) -> Iterator[str]:
    """The server as `kp mcp` serves it, over real HTTP in a thread; yields its URL."""
    port = port or _free_port()
    mcp = build_server(runtime)
    for extra in middleware:
        mcp.add_middleware(extra)
    pin_tool_schemas(mcp)
    app = mcp.http_app(**http_options(runtime))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    _wait_listening(port)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def http_url(runtime: Runtime) -> Iterator[str]:
    with serving(runtime) as url:
        yield url


def test_no_token_and_wrong_token_get_401_saying_what_to_send(
    http_url: str, runtime: Runtime
) -> None:
    none = httpx.post(http_url, json=INITIALIZE, headers=HEADERS, timeout=10)
    wrong = httpx.post(
        http_url,
        json=INITIALIZE,
        timeout=10,
        headers={**HEADERS, "Authorization": "Bearer not-a-token"},
    )
    basic = httpx.post(
        http_url,
        json=INITIALIZE,
        timeout=10,
        headers={**HEADERS, "Authorization": "Basic dXNlcjpwdw=="},
    )
    assert none.status_code == wrong.status_code == basic.status_code == 401
    assert none.headers["www-authenticate"].lower().startswith("bearer")
    assert 'error="invalid_token"' in wrong.headers["www-authenticate"]
    for reply in (none, wrong, basic):
        text = reply.json()["error_description"]
        # The header to send and the registry settings that issue tokens; no server path.
        assert "'Authorization: Bearer <token>'" in text and "principals[].token_sha256" in text
        assert str(runtime.settings.home_dir) not in text and "/" not in text
        assert int(reply.headers["content-length"]) == len(reply.content)
    assert "not one this service accepts" in wrong.json()["error_description"]
    assert "re-register" not in wrong.text


def _status_with_authorization(url: str, value: str) -> int:
    """POST initialize with this Authorization value sent byte for byte (httpx refuses to
    send a value with a trailing space; other clients do send it)."""
    parts = httpx.URL(url)
    body = json.dumps(INITIALIZE).encode()
    head = (
        f"POST {parts.path} HTTP/1.1\r\nHost: {parts.host}:{parts.port}\r\n"
        f"Content-Type: application/json\r\nAccept: {HEADERS['Accept']}\r\n"
        f"Authorization: {value}\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    with socket.create_connection((parts.host, parts.port), timeout=10) as conn:
        conn.sendall(head + body)
        status_line = conn.makefile("rb").readline().decode()
    return int(status_line.split()[1])


def test_whitespace_around_the_token_is_tolerated(http_url: str, runtime: Runtime) -> None:
    admin = read_admin_token(runtime.settings)
    for value in (f"Bearer {admin} ", f"Bearer  {admin}", f"Bearer \t{admin}  ", f"bearer {admin}"):
        assert _status_with_authorization(http_url, value) == 200, repr(value)
    assert _status_with_authorization(http_url, f"Bearer {admin}x ") == 401


@pytest.mark.anyio
async def test_valid_token_resolves_its_principal(http_url: str, runtime: Runtime) -> None:
    async with Client(http_url, auth=TOKENS["maya"]) as client:
        result = await client.call_tool(
            "knowledge_search", {"query": "kumquat", "scope": "shade_store"}
        )
        with pytest.raises(ToolError, match="not available to maya"):
            await client.call_tool("knowledge_search", {"query": "kumquat", "scope": "hot"})
    assert {h["scope"] for h in result.structured_content["hits"]} == {"shade_store"}
    admin = read_admin_token(runtime.settings)
    assert admin
    async with Client(http_url, auth=admin) as client:
        hot = await client.call_tool("knowledge_search", {"query": "kumquat", "scope": "hot"})
    assert {h["scope"] for h in hot.structured_content["hits"]} == {"hot"}


def test_tool_calls_do_not_list_every_tool(runtime: Runtime) -> None:
    """With the input schemas pinned, the SDK's Mcp-Param-* check needs no tools/list per call
    (it ran one per call before: most of a search's time over HTTP)."""

    async def search(url: str, queries: list[str]) -> list[int]:
        counts = []
        async with Client(url, auth=TOKENS["maya"]) as client:
            for query in queries:
                result = await client.call_tool(
                    "knowledge_search", {"query": query, "scope": "shade_store"}
                )
                assert not result.is_error
                counts.append(listings.listings)
        return counts

    listings = ListingCounter()
    with serving(runtime, listings) as url:
        counts = asyncio.run(search(url, ["kumquat", "lantern", "pipeline", "again"]))
    assert counts[0] <= 1 and set(counts) == {counts[0]}  # the client's own listing, once


@pytest.mark.anyio
async def test_module_entry_point_serves_with_admin_token(tmp_path: Path) -> None:
    config = tmp_path / "registry.yaml"
    (tmp_path / "ws").mkdir()
    config.write_text(
        yaml.safe_dump(
            {
                "embedding": {"provider": "hash"},
                "internal": {"sources": {"memory_files": {"path": "ws"}}},
            }
        )
    )
    port = _free_port()
    env = {
        **os.environ,
        "KP_HOME": str(tmp_path / "home"),
        "KP_CONFIG": str(config),
        "KP_DAGSTER_URL": f"http://127.0.0.1:{_free_port()}",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_service", "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_listening(port)
        token_file = tmp_path / "home" / "admin-token"
        assert oct(token_file.stat().st_mode & 0o777) == "0o600"
        url = f"http://127.0.0.1:{port}/mcp"
        assert httpx.post(url, json=INITIALIZE, headers=HEADERS, timeout=10).status_code == 401
        async with Client(url, auth=token_file.read_text().strip()) as client:
            result = await client.call_tool("knowledge_search", {"query": "anything"})
            with pytest.raises(ToolError) as refused:
                await client.call_tool("trigger_reindex", {"source": "clickup"})
        assert result.structured_content["hits"] == []
        assert "no index yet" in result.structured_content["warnings"][0]
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    # The service's log says why a call failed, not only that it did.
    assert f"tool 'trigger_reindex' failed: {refused.value}\n" in err.decode()


def test_server_module_imports_neither_dagster_nor_the_write_side() -> None:
    """Beside the import contracts (static imports), what the process really loads: no
    Dagster, nothing of knowledge_platform.ingest."""
    code = (
        "import sys, mcp_service.server, mcp_service.app; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] == 'dagster' "
        "or m.startswith('knowledge_platform.ingest')); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
