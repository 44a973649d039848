"""A local OpenID Connect provider, as far as a resource server and a client's discovery see
one: RFC 8414 / OIDC discovery metadata (authorization code with PKCE S256, dynamic client
registration, the `iss` response parameter), a JWKS with one RSA key, and `token()` to sign
access tokens with it (RS256, `kid` set) as the provider's token endpoint would. Served over
http, or over https with a certificate from `tls.py` for clients that insist on TLS."""

from __future__ import annotations

import base64
import ssl
import time
from typing import Any

from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from fastmcp.server.auth.providers.jwt import RSAKeyPair
from werkzeug.wrappers import Request, Response

from tests.fakes.http_fake import FakeServer, json_response

KID = "kp-test-key"


def _b64(number: int) -> str:
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class OidcIssuer(FakeServer):
    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        super().__init__()
        self.keys = RSAKeyPair.generate()
        self.tls = tls

    @property
    def issuer(self) -> str:
        return self.url()

    def metadata(self) -> dict[str, Any]:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": self.url("/authorize"),
            "token_endpoint": self.url("/oauth/token"),
            "registration_endpoint": self.url("/oidc/register"),
            "jwks_uri": self.url("/.well-known/jwks.json"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_post"],
            "authorization_response_iss_parameter_supported": True,
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "knowledge.read"],
        }

    def jwks(self) -> dict[str, Any]:
        public = load_pem_public_key(self.keys.public_key.encode())
        assert isinstance(public, RSAPublicKey)
        numbers = public.public_numbers()
        return {
            "keys": [
                {
                    "kty": "RSA",
                    "kid": KID,
                    "use": "sig",
                    "alg": "RS256",
                    "n": _b64(numbers.n),
                    "e": _b64(numbers.e),
                }
            ]
        }

    def token(
        self,
        subject: str,
        audience: str,
        *,
        scopes: list[str] | None = None,
        expires_in: int = 3600,
        issuer: str | None = None,
        **claims: Any,
    ) -> str:
        """An access token as this provider's token endpoint issues it."""
        return self.keys.create_token(
            subject=subject,
            issuer=issuer or self.issuer,
            audience=audience,
            scopes=scopes,
            expires_in_seconds=expires_in,
            kid=KID,
            additional_claims={"iat": int(time.time()), **claims},
        )

    def handle(self, request: Request) -> Response:
        if request.path in (
            "/.well-known/openid-configuration",
            "/.well-known/oauth-authorization-server",
        ):
            return json_response(self.metadata())
        if request.path == "/.well-known/jwks.json":
            return json_response(self.jwks())
        return json_response({"error": "not_found"}, 404)
