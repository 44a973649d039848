"""OAuth resource-server mode beside the static bearer tokens, from FastMCP's own providers.

With `service.oauth` in the registry the HTTP app serves RFC 9728 protected-resource metadata
naming the configured authorization server (at `/.well-known/oauth-protected-resource/mcp`,
and at the root path), its 401 challenge points to that document, and an access token signed
by the issuer (JWKS), for this service's audience, unexpired and carrying the configured
scopes is accepted for the principal its claim names: the same grant a static token of that
principal gets. Static tokens keep working. Without `service.oauth`, static tokens alone."""

from __future__ import annotations

from collections.abc import Callable

from fastmcp.server.auth import AccessToken, AuthProvider, MultiAuth, RemoteAuthProvider
from fastmcp.server.auth.providers.jwt import JWTVerifier
from pydantic import AnyHttpUrl
from starlette.routing import Route

from knowledge_platform.config.edge_settings import OAuthConfig
from knowledge_platform.config.registry import Registry
from knowledge_platform.serve.access import ADMIN_PRINCIPAL, Authenticator, LiveAuthenticator
from mcp_service.auth import PRINCIPAL_CLAIM, RegistryTokenVerifier
from mcp_service.identity import TITLE

ROOT_METADATA = "/.well-known/oauth-protected-resource"


class PrincipalJWTVerifier(JWTVerifier):
    """A JWT verified by FastMCP's JWTVerifier (signature against the issuer's JWKS, `iss`,
    `aud`, `exp`, scopes), then mapped to a principal by one claim: `oauth.principals`
    translates the claim's value when given (and only mapped values pass), else the value
    must be the name of a principal in the registry."""

    def __init__(
        self, config: OAuthConfig, audience: str, registry: Callable[[], Registry]
    ) -> None:
        super().__init__(
            jwks_uri=config.jwks_uri,
            issuer=config.issuer,
            audience=audience,
            algorithm=config.algorithm,
            required_scopes=config.scopes or None,
        )
        self.config = config
        self.registry = registry

    def principal(self, claims: dict[str, object]) -> str | None:
        value = claims.get(self.config.principal_claim)
        if not isinstance(value, str) or not value:
            return None
        known = {p.name for p in self.registry().principals}
        if self.config.principals:  # an explicit map may name the admin too
            name = self.config.principals.get(value)
            return name if name in (*known, ADMIN_PRINCIPAL) else None
        return value if value in known else None

    async def verify_token(self, token: str) -> AccessToken | None:
        verified = await super().verify_token(token.strip())
        if verified is None:
            return None
        name = self.principal(verified.claims)
        if name is None:
            self.logger.warning(
                "OAuth token of %r names no principal of this service (claim %r)",
                verified.client_id,
                self.config.principal_claim,
            )
            return None
        return verified.model_copy(update={"claims": {**verified.claims, PRINCIPAL_CLAIM: name}})


class ProtectedResource(RemoteAuthProvider):
    """RFC 9728 metadata at the path-inserted location and at the root well-known path."""

    def get_routes(self, mcp_path: str | None = None) -> list[Route]:
        routes = super().get_routes(mcp_path)
        if routes and routes[0].path != ROOT_METADATA:
            routes.append(Route(ROOT_METADATA, routes[0].endpoint, methods=["GET", "OPTIONS"]))
        return routes


def auth_provider(
    registry: Callable[[], Registry], authenticator: Authenticator | LiveAuthenticator
) -> AuthProvider:
    """The HTTP app's auth: static tokens, plus OAuth when `service.oauth` is configured (read
    when the app is built: a change of it takes a restart)."""
    static = RegistryTokenVerifier(authenticator)
    service = registry().service
    config, resource = service.oauth, service.mcp_url
    if config is None or resource is None or service.public_url is None:
        return static
    jwt = PrincipalJWTVerifier(config, config.audience or resource, registry)
    metadata = ProtectedResource(
        token_verifier=jwt,
        authorization_servers=[AnyHttpUrl(config.issuer)],
        base_url=service.public_url,
        scopes_supported=config.scopes or None,
        resource_name=TITLE,
        resource_documentation=AnyHttpUrl(service.website_url) if service.website_url else None,
    )
    # Scopes are the JWT verifier's to check: a static token carries none, and is not refused.
    return MultiAuth(server=metadata, verifiers={"registry-tokens": static}, required_scopes=[])
