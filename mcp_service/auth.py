"""Bearer-token auth for the MCP service over knowledge_platform.serve.access.

Over HTTP the verifier turns a token into an AccessToken naming the principal (no or an
unknown token: FastMCP answers 401 before any tool runs); an OAuth access token is mapped to a
principal the same way (oauth.py). Each tool call resolves its caller with `Caller.grant()`:
the access token's principal, or, when the call carries no token at all (stdio, the in-memory
client), the configured default principal, if any.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from fastmcp.exceptions import ToolError
from fastmcp.server.auth import AccessToken, TokenVerifier
from fastmcp.server.dependencies import get_access_token
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from knowledge_platform.errors import AccessDeniedError
from knowledge_platform.serve.access import Authenticator, Grant, LiveAuthenticator

PRINCIPAL_CLAIM = "kp_principal"


class RegistryTokenVerifier(TokenVerifier):
    """Opaque bearer tokens checked against the registry's principals and the admin token."""

    def __init__(self, authenticator: Authenticator | LiveAuthenticator) -> None:
        super().__init__()
        self.authenticator = authenticator

    async def verify_token(self, token: str) -> AccessToken | None:
        token = token.strip()  # `Bearer  <token>` or a trailing space: the same token
        grant = self.authenticator.authenticate(token)
        if grant is None:
            return None
        return AccessToken(
            token=token,
            client_id=grant.principal,
            scopes=[],
            expires_at=None,
            claims={PRINCIPAL_CLAIM: grant.principal},
        )


class Caller:
    def __init__(
        self, authenticator: Authenticator | LiveAuthenticator, default_principal: str | None
    ) -> None:
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
                raise ToolError(
                    "not authenticated: send 'Authorization: Bearer <token>' "
                    "(this server has no default principal)"
                )
            return self.authenticator.grant(self.default_principal)
        except AccessDeniedError as exc:
            raise ToolError(str(exc)) from None


#: Where a caller's token comes from, for a 401: registry settings, never a server path.
STATIC_TOKENS = (
    "a principal's token (registry: principals[].token_sha256, token_env or "
    "token_ref; the admin's is the file admin-token under KP_HOME)"
)
_PARAM = re.compile(r'(resource_metadata|scope)="([^"]*)"')


class ExplainUnauthorized:
    """ASGI middleware: FastMCP answers a request without a bearer token with an empty 401
    and a wrong token with advice for OAuth clients ("re-register and obtain new tokens").
    Both 401s here say which header is expected and which registry setting issues tokens
    (`issuer()`: the OAuth issuer, if any), and keep the challenge's `resource_metadata`."""

    def __init__(self, app: ASGIApp, issuer: Callable[[], str | None]) -> None:
        self.app = app
        self.issuer = issuer

    def _explain(self, start: Message) -> tuple[Message, Message]:
        headers = dict(start.get("headers", []))
        challenge = headers.get(b"www-authenticate", b"Bearer").decode("latin-1")
        params = "".join(f', {k}="{v}"' for k, v in _PARAM.findall(challenge))
        issuer = self.issuer()
        sources = STATIC_TOKENS + (
            f", or an access token from {issuer} (registry: service.oauth)" if issuer else ""
        )
        if "invalid_token" in challenge:
            error = "invalid_token"
            text = (
                "this bearer token is not one this service accepts (unknown, expired, or "
                f"from another issuer); send 'Authorization: Bearer <token>' with {sources}"
            )
            challenge = (
                'Bearer error="invalid_token", error_description="unknown, expired or '
                f'foreign bearer token"{params}'
            )
        else:
            error = "unauthorized"
            text = f"this MCP endpoint needs the header 'Authorization: Bearer <token>': {sources}"
            challenge = "Bearer" + params.replace(",", "", 1)
        body = json.dumps({"error": error, "error_description": text}).encode()
        return (
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", challenge.encode("latin-1")),
                ],
            },
            {"type": "http.response.body", "body": body},
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/hooks/"):  # signed, no token
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
