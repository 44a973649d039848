"""Entry point for `kp mcp` (and `python -m mcp_service`): build the Runtime and the server,
then serve streamable HTTP (bearer tokens required) or stdio (runs as a local principal)."""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any, Literal

from fastmcp import FastMCP
from starlette.middleware import Middleware

from knowledge_platform.access import ADMIN_PRINCIPAL, admin_token_path, ensure_admin_token
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from mcp_service.auth import ExplainUnauthorized
from mcp_service.server import build_server

log = logging.getLogger("mcp_service")
Transport = Literal["http", "stdio"]
#: One JSON body per call instead of an SSE stream (the tools send no progress), and no
#: access-log line per request: both cost a search measurable time (bench/speed.py).
HTTP_APP_OPTIONS = {"json_response": True}
UVICORN_OPTIONS = {"access_log": False}


def http_options(settings: Settings) -> dict[str, Any]:
    """Options of FastMCP's HTTP app as `kp mcp` serves it (tests build the same app)."""
    unauthorized = Middleware(ExplainUnauthorized, token_file=admin_token_path(settings))
    return {**HTTP_APP_OPTIONS, "middleware": [unauthorized]}
#: One CPU thread per query embedding: searches run in parallel threads, and two threads on one
#: short query cost ~1.7x the CPU for ~15% less latency (bench/speed.py, CPU per request).
EMBED_THREADS = 1


def pin_tool_schemas(server: FastMCP) -> None:
    """Let the MCP SDK find a called tool's input schema by name. Without this lookup it runs
    the whole `tools/list` (with FastMCP's $ref inlining of every tool) before each
    `tools/call` on the 2026-07-28 HTTP protocol, to check `Mcp-Param-*` headers
    (modelcontextprotocol/python-sdk#3565): most of a search's time over HTTP. The tools are
    fixed once `build_server` returns, so their schemas are read once here (before serving:
    this runs its own event loop)."""
    tools = asyncio.run(server.list_tools(run_middleware=False))
    schemas = {tool.name: tool.parameters for tool in tools}
    server._mcp_server.get_tool_input_schema = schemas.get


def one_line_logs() -> None:
    """FastMCP logs through rich, which wraps each record at 80 columns when the output is a
    file (`kp up`'s mcp.log); one plain line per record, with its time, keeps it greppable."""
    if sys.stderr.isatty():
        return
    logger = logging.getLogger("fastmcp")
    for handler in logger.handlers[:]:
        logger.removeHandler(handler)
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)


def run(settings: Settings, transport: Transport = "http", host: str | None = None,
        port: int | None = None, *, stdio_principal: str = ADMIN_PRINCIPAL) -> None:
    """Serve until interrupted. HTTP: `http://host:port/mcp`, every request needs a bearer
    token (the admin token is created under KP_HOME on first start). stdio: the process
    belongs to whoever started it, so calls run as `stdio_principal` (default: compass)."""
    one_line_logs()
    runtime = Runtime(settings, embed_threads=EMBED_THREADS)
    try:
        if transport == "http":
            _, path, created = ensure_admin_token(settings)
            if created:
                log.warning("admin token written to %s (mode 0600)", path)
            server = build_server(runtime, default_principal=None, auth=True)
            pin_tool_schemas(server)
            server.run(transport="http", host=host or settings.mcp_host,
                       port=port or settings.mcp_port, show_banner=False,
                       uvicorn_config=UVICORN_OPTIONS, **http_options(settings))
        elif transport == "stdio":
            server = build_server(runtime, default_principal=stdio_principal, auth=False)
            server.run(transport="stdio", show_banner=False)
        else:
            raise ValueError(f"unknown transport {transport!r}; use 'http' or 'stdio'")
    finally:
        runtime.close()
