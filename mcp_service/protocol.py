"""Where the MCP SDK and FastMCP answer differently from the specification, set right here:

- `server/discover` lists the handshake revisions the server still negotiates, not only the
  modern one (a client reading it learns every version it can speak);
- the deprecated `logging` capability (2026-07-28, SEP-2577) is not declared: the service logs
  to its own file, never to the client;
- a body that is JSON but not a JSON-RPC request gets -32600 Invalid Request, as JSON-RPC 2.0
  assigns, where the SDK's streamable HTTP transport answers -32602 (`InvalidRequestCode`);
- list cursors are validated: FastMCP pages lists only with a page size, so `PAGE_SIZE` (more
  than the catalogue holds) turns on its cursor check and an invalid cursor gets -32602.
"""

from __future__ import annotations

import json
from typing import Any

from fastmcp import FastMCP
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, DiscoverRequest, DiscoverResult
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: Components per list page: more than the server has, so every list is one page.
PAGE_SIZE = 100
SUPPORTED = [*MODERN_PROTOCOL_VERSIONS, *reversed(HANDSHAKE_PROTOCOL_VERSIONS)]
_SDK_VALIDATION = "Validation error"


class DiscoverEveryVersion(Middleware):
    async def on_discover(
        self,
        context: MiddlewareContext[DiscoverRequest],
        call_next: CallNext[DiscoverRequest, DiscoverResult | dict[str, Any]],
    ) -> DiscoverResult | dict[str, Any]:
        result = await call_next(context)
        if isinstance(result, DiscoverResult):
            return result.model_copy(update={"supported_versions": SUPPORTED})
        return result


def conform(server: FastMCP) -> None:
    """Apply the in-server corrections to `server` (the HTTP one is `InvalidRequestCode`)."""
    server.add_middleware(DiscoverEveryVersion())
    server._mcp_server._request_handlers.pop("logging/setLevel", None)


class InvalidRequestCode:
    """ASGI middleware: the SDK's 400 "Validation error" (-32602) for a message that is no
    JSON-RPC request becomes -32600 with a one-line message. Only 400 responses are read."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        held: Message | None = None
        body = bytearray()

        async def checked(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start" and message["status"] == 400:
                held = message
                return
            if held is None:
                await send(message)
                return
            body.extend(message.get("body", b""))
            if message.get("more_body"):
                return
            fixed = _fixed(bytes(body))
            headers = [(k, v) for k, v in held["headers"] if k != b"content-length"]
            await send(
                {**held, "headers": [*headers, (b"content-length", str(len(fixed)).encode())]}
            )
            await send({"type": "http.response.body", "body": fixed})

        await self.app(scope, receive, checked)


def _fixed(body: bytes) -> bytes:
    try:
        reply = json.loads(body)
        error = reply["error"]
        wrong = error["code"] == INVALID_PARAMS and error["message"].startswith(_SDK_VALIDATION)
    except (ValueError, KeyError, TypeError, AttributeError):
        return body
    if not wrong:
        return body
    reply["error"] = {
        "code": INVALID_REQUEST,
        "message": (
            "Invalid Request: not a JSON-RPC 2.0 request object (jsonrpc '2.0', a string method, "
            "an id that is a string or number)"
        ),
    }
    return json.dumps(reply).encode()
