"""Bearer-token auth for the MCP service over knowledge_platform.access.

Over HTTP the verifier turns a token into an AccessToken naming the principal (no or an
unknown token: FastMCP answers 401 before any tool runs). Each tool call resolves its
caller with `Caller.grant()`: the access token's principal, or, when the call carries no
token at all (stdio, the in-memory client), the configured default principal, if any.
"""

from __future__ import annotations

import json
from pathlib import Path

from fastmcp.exceptions import ToolError
from fastmcp.server.auth import AccessToken, TokenVerifier
from fastmcp.server.dependencies import get_access_token
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from knowledge_platform.access import Authenticator, Grant, LiveAuthenticator
from knowledge_platform.errors import AccessDeniedError

PRINCIPAL_CLAIM = "kp_principal"


class RegistryTokenVerifier(TokenVerifier):
    """Opaque bearer tokens checked against the registry's principals and the admin token."""

    def __init__(self, authenticator: Authenticator | LiveAuthenticator) -> None:
        super().__init__()
        self.authenticator = authenticator

    async def verify_token(self, token: str) -> AccessToken | None:
        grant = self.authenticator.authenticate(token)
        if grant is None:
            return None
        return AccessToken(token=token, client_id=grant.principal, scopes=[],
                           expires_at=None, claims={PRINCIPAL_CLAIM: grant.principal})


class Caller:
    def __init__(self, authenticator: Authenticator | LiveAuthenticator,
                 default_principal: str | None) -> None:
        self.authenticator = authenticator
        self.default_principal = default_principal
        if default_principal is not None:
            authenticator.grant(default_principal)  # fail at build time on a typo

    def grant(self) -> Grant:
        token = get_access_token()
        try:
            if token is not None:
                name = token.claims.get(PRINCIPAL_CLAIM)
                if not isinstance(name, str):
                    raise ToolError("this access token names no principal of this service")
                return self.authenticator.grant(name)
            if self.default_principal is None:
                raise ToolError("not authenticated: send 'Authorization: Bearer <token>' "
                                "(this server has no default principal)")
            return self.authenticator.grant(self.default_principal)
        except AccessDeniedError as exc:
            raise ToolError(str(exc)) from None


class ExplainUnauthorized:
    """ASGI middleware: FastMCP answers a request without a bearer token with an empty 401
    and a wrong token with advice for OAuth clients ("re-register and obtain new tokens").
    Both 401s here say which header is expected and where the admin token lives."""

    def __init__(self, app: ASGIApp, token_file: Path) -> None:
        self.app = app
        self.token_file = token_file

    def _explain(self, start: Message) -> tuple[Message, Message]:
        headers = dict(start.get("headers", []))
        challenge = headers.get(b"www-authenticate", b"Bearer").decode("latin-1")
        where = (f"the admin token is in {self.token_file} on the server; other principals' "
                 "tokens are configured in the registry (token_sha256, token_env or token_ref)")
        if "invalid_token" in challenge:
            error = "invalid_token"
            text = ("this bearer token is not one this service knows; send "
                    f"'Authorization: Bearer <token>' with a valid token: {where}")
            challenge = 'Bearer error="invalid_token", error_description="unknown bearer token"'
        else:
            error = "unauthorized"
            text = f"this MCP endpoint needs the header 'Authorization: Bearer <token>': {where}"
        body = json.dumps({"error": error, "error_description": text}).encode()
        return ({"type": "http.response.start", "status": 401,
                 "headers": [(b"content-type", b"application/json"),
                             (b"content-length", str(len(body)).encode()),
                             (b"www-authenticate", challenge.encode("latin-1"))]},
                {"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        held: Message | None = None
        done = False

        async def explained(message: Message) -> None:
            nonlocal held, done
            if message["type"] == "http.response.start" and message["status"] == 401:
                held = message
            elif held is not None and message["type"] == "http.response.body":
                if not done:  # the original body (one message, or the first of several)
                    for part in self._explain(held):
                        await send(part)
                    done = True
            else:
                await send(message)

        await self.app(scope, receive, explained)
