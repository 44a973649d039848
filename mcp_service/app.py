"""Entry point for `kp mcp` (and `python -m mcp_service`): build the Runtime and the server,
then serve streamable HTTP (bearer tokens required) or stdio (runs as a local principal)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

import uvicorn
from fastmcp import FastMCP
from starlette.applications import Starlette
from starlette.middleware import Middleware

from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.access import ADMIN_PRINCIPAL, ensure_admin_token
from knowledge_platform.settings import Settings
from mcp_service.auth import ExplainUnauthorized
from mcp_service.edge import HostOriginGuard
from mcp_service.hooks import hook_routes
from mcp_service.protocol import InvalidRequestCode
from mcp_service.server import build_server
from mcp_service.workers import serve as serve_workers

log = logging.getLogger("mcp_service")
Transport = Literal["http", "stdio"]
#: One JSON body per call instead of an SSE stream (the tools send no progress), and no
#: access-log line per request: both cost a search measurable time (bench/speed.py).
HTTP_APP_OPTIONS = {"json_response": True}
UVICORN_OPTIONS: dict[str, Any] = {
    "access_log": False,
    "timeout_graceful_shutdown": 2,
    "lifespan": "on",
    "log_level": "info",
}


def http_options(runtime: Runtime) -> dict[str, Any]:
    """Options of FastMCP's HTTP app as `kp mcp` serves it (tests build the same app): Host
    and Origin checked first, then JSON-RPC error codes and 401s set right, each from the
    registry as it is now."""

    def issuer() -> str | None:
        oauth = runtime.registry.service.oauth
        return oauth.issuer if oauth else None

    return {
        **HTTP_APP_OPTIONS,
        "middleware": [
            Middleware(HostOriginGuard, service=lambda: runtime.registry.service),
            Middleware(InvalidRequestCode),
            Middleware(ExplainUnauthorized, issuer=issuer),
        ],
    }


#: One CPU thread per query embedding: searches run in parallel threads, and two threads on one
#: short query cost ~1.7x the CPU for ~15% less latency (bench/speed.py, CPU per request).
EMBED_THREADS = 1


def pin_tool_schemas(server: FastMCP) -> None:
    """Let the MCP SDK find a called tool's input schema by name. Without this lookup it runs
    the whole `tools/list` (with FastMCP's $ref inlining of every tool) before each
    `tools/call` on the 2026-07-28 HTTP protocol, to check `Mcp-Param-*` headers
    (modelcontextprotocol/python-sdk#3565): most of a search's time over HTTP. The tools are
    fixed once `build_server` returns, so their schemas are read once here (in a thread of
    its own: a uvicorn worker builds its app inside a running event loop)."""
    with ThreadPoolExecutor(1) as pool:
        tools = pool.submit(asyncio.run, server.list_tools(run_middleware=False)).result()
    schemas = {tool.name: tool.parameters for tool in tools}
    server._mcp_server.get_tool_input_schema = schemas.get


def http_app(settings: Settings) -> Starlette:
    """The HTTP app `kp mcp` serves: bearer tokens required, its own Runtime, closed when the
    app shuts down (which removes the process's reader copies of the published shards)."""
    runtime = Runtime(settings, embed_threads=EMBED_THREADS, follow=True)
    server = build_server(runtime, default_principal=None, auth=True)
    pin_tool_schemas(server)
    app = server.http_app(**http_options(runtime))
    # Webhooks beside /mcp, signed by each source instead of a bearer token.
    app.router.routes.extend(hook_routes(settings.home_dir, lambda: runtime.registry))
    serve = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[Any]:
        try:
            async with serve(app) as state:
                yield state
        finally:
            runtime.close()

    app.router.lifespan_context = lifespan
    return app


def worker_app() -> Starlette:
    """uvicorn's app factory in each worker process: settings from the environment the
    parent exported (`_export`)."""
    one_line_logs()
    return http_app(Settings())


def one_line_logs() -> None:
    """FastMCP logs through rich, which wraps each record at 80 columns when the output is a
    file (`kp up`'s mcp.log); one plain line per record, with its time, keeps it greppable.
    The core's records (a registry reloaded or refused) go to the same file the same way."""
    if sys.stderr.isatty():
        return
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    for name in ("fastmcp", "knowledge_platform"):
        logger = logging.getLogger(name)
        for old in logger.handlers[:]:
            logger.removeHandler(old)
        logger.addHandler(handler)
    core = logging.getLogger("knowledge_platform")
    core.setLevel(logging.INFO)
    core.propagate = False  # `python -m mcp_service` also configures the root logger


def run(
    settings: Settings,
    transport: Transport = "http",
    host: str | None = None,
    port: int | None = None,
    *,
    stdio_principal: str = ADMIN_PRINCIPAL,
    workers: int | None = None,
) -> None:
    """Serve until interrupted. HTTP: `http://host:port/mcp`, every request needs a bearer
    token (the admin token is created under KP_HOME on first start), served by `workers`
    processes (default: KP_MCP_WORKERS), to which one process hands the connections in
    turn (see mcp_service/workers.py), each with its own reader of the published
    collections. stdio: the process belongs to whoever started it, so calls run as
    `stdio_principal` (default: compass)."""
    one_line_logs()
    if transport == "http":
        _, path, created = ensure_admin_token(settings)
        if created:
            log.warning("admin token written to %s (mode 0600)", path)
        options = {
            **UVICORN_OPTIONS,
            "host": host or settings.mcp_host,
            "port": port or settings.mcp_port,
        }
        count = workers or settings.mcp_workers
        if count > 1:
            _export(settings)
            serve_workers("mcp_service.app:worker_app", count, options)
        else:
            uvicorn.run(http_app(settings), **options)
    elif transport == "stdio":
        runtime = Runtime(settings, embed_threads=EMBED_THREADS, follow=True)
        try:
            server = build_server(runtime, default_principal=stdio_principal, auth=False)
            server.run(transport="stdio", show_banner=False)
        finally:
            runtime.close()
    else:
        raise ValueError(f"unknown transport {transport!r}; use 'http' or 'stdio'")


def _export(settings: Settings) -> None:
    """Worker processes read their settings from the environment: these settings."""
    os.environ.update(
        {
            "KP_HOME": str(settings.home_dir),
            "KP_CONFIG": str(settings.config.resolve()),
            "KP_MODEL_CACHE": str(settings.models_dir),
            "KP_DAGSTER_URL": settings.dagster_url,
        }
    )
