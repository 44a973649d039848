"""Bearer-token auth for the MCP service over knowledge_platform.access.

Over HTTP the verifier turns a token into an AccessToken naming the principal (no or an
unknown token: FastMCP answers 401 before any tool runs). Each tool call resolves its
caller with `Caller.grant()`: the access token's principal, or, when the call carries no
token at all (stdio, the in-memory client), the configured default principal, if any.
"""

from __future__ import annotations

from fastmcp.exceptions import ToolError
from fastmcp.server.auth import AccessToken, TokenVerifier
from fastmcp.server.dependencies import get_access_token

from knowledge_platform.access import Authenticator, Grant
from knowledge_platform.errors import AccessDeniedError

PRINCIPAL_CLAIM = "kp_principal"


class RegistryTokenVerifier(TokenVerifier):
    """Opaque bearer tokens checked against the registry's principals and the admin token."""

    def __init__(self, authenticator: Authenticator) -> None:
        super().__init__()
        self.authenticator = authenticator

    async def verify_token(self, token: str) -> AccessToken | None:
        grant = self.authenticator.authenticate(token)
        if grant is None:
            return None
        return AccessToken(token=token, client_id=grant.principal, scopes=[],
                           expires_at=None, claims={PRINCIPAL_CLAIM: grant.principal})


class Caller:
    def __init__(self, authenticator: Authenticator, default_principal: str | None) -> None:
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
