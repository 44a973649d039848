"""Entry point for `kp mcp` (and `python -m mcp_service`): build the Runtime and the server,
then serve streamable HTTP (bearer tokens required) or stdio (runs as a local principal)."""

from __future__ import annotations

import logging
from typing import Literal

from knowledge_platform.access import ADMIN_PRINCIPAL, ensure_admin_token
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from mcp_service.server import build_server

log = logging.getLogger("mcp_service")
Transport = Literal["http", "stdio"]


def run(settings: Settings, transport: Transport = "http", host: str | None = None,
        port: int | None = None, *, stdio_principal: str = ADMIN_PRINCIPAL) -> None:
    """Serve until interrupted. HTTP: `http://host:port/mcp`, every request needs a bearer
    token (the admin token is created under KP_HOME on first start). stdio: the process
    belongs to whoever started it, so calls run as `stdio_principal` (default: compass)."""
    runtime = Runtime(settings)
    try:
        if transport == "http":
            _, path, created = ensure_admin_token(settings)
            if created:
                log.warning("admin token written to %s (mode 0600)", path)
            server = build_server(runtime, default_principal=None, auth=True)
            server.run(transport="http", host=host or settings.mcp_host,
                       port=port or settings.mcp_port, show_banner=False)
        elif transport == "stdio":
            server = build_server(runtime, default_principal=stdio_principal, auth=False)
            server.run(transport="stdio", show_banner=False)
        else:
            raise ValueError(f"unknown transport {transport!r}; use 'http' or 'stdio'")
    finally:
        runtime.close()
