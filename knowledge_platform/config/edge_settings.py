"""The registry's settings for the MCP service's HTTP edge (`service:`): which hosts and
browser origins may reach it (DNS rebinding), and the OAuth resource-server mode beside the
static bearer tokens (`service.oauth`: an external authorization server whose JWTs map to
principals)."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: Where the MCP endpoint lives under the service's base URL.
MCP_PATH = "/mcp"


def loopback(host: str) -> bool:
    """Whether `host` (a name or an address, IPv6 with or without brackets) is this machine."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def require_https(value: str, what: str) -> None:
    """ValueError unless `value` is an absolute https URL (http only on loopback)."""
    parts = urlsplit(value.strip())
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ValueError(f"{what} {value!r}: give an absolute https:// URL")
    if parts.scheme == "http" and not loopback(parts.hostname):
        raise ValueError(f"{what} {value!r}: https only (http is accepted on loopback)")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"{what} {value!r}: no query, fragment or credentials")


class OAuthConfig(BaseModel):
    """An OpenID Connect provider (Auth0, Keycloak, Entra ID, Okta...) whose access tokens the
    service accepts beside static bearer tokens."""

    model_config = ConfigDict(extra="forbid")

    #: The issuer exactly as it appears in the tokens' `iss` claim (and names its metadata).
    issuer: str
    #: Where the issuer publishes its signing keys (its metadata's `jwks_uri`).
    jwks_uri: str
    #: The `aud` a token must carry; default: this service's MCP URL (public_url + /mcp).
    audience: str | None = None
    #: The claim naming the caller; its value is a principal's name unless `principals` maps it.
    principal_claim: str = "sub"
    #: Claim value -> principal name. When given, only these values are accepted.
    principals: dict[str, str] = Field(default_factory=dict)
    #: OAuth scopes every token must carry, advertised to clients in the metadata.
    scopes: list[str] = Field(default_factory=list)
    algorithm: str = "RS256"

    @field_validator("issuer", "jwks_uri")
    @classmethod
    def _url(cls, value: str) -> str:
        require_https(value, "oauth URL")
        return value.strip()  # as written: Auth0's issuer ends in a slash, and `iss` with it


class EdgeConfig(BaseModel):
    """Hosts and origins allowed beside loopback and `public_url`, and the OAuth mode."""

    model_config = ConfigDict(extra="forbid")

    #: Host names (no port) the service is reached under besides public_url's and loopback.
    allowed_hosts: list[str] = Field(default_factory=list)
    #: Browser origins (scheme://host[:port]) allowed besides public_url's and loopback ones.
    allowed_origins: list[str] = Field(default_factory=list)
    #: The documentation or home page clients show for this server (serverInfo.websiteUrl).
    website_url: str | None = None
    oauth: OAuthConfig | None = None

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts(cls, value: list[str]) -> list[str]:
        for host in value:
            if not host or (any(c in host for c in "/:@ ") and not host.startswith("[")):
                raise ValueError(
                    f"allowed_hosts: {host!r} is not a host name (no scheme or "
                    "port, e.g. kb.example.com)"
                )
        return [h.lower() for h in value]

    @field_validator("allowed_origins")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        return [origin_of(o, "allowed_origins") for o in value]


def origin_of(url: str, what: str = "origin") -> str:
    """The origin (scheme://host[:port], lower case, default port dropped) of `url`."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{what}: {url!r} is not an http(s) origin, e.g. https://kb.example.com")
    default = {"http": 80, "https": 443}[parts.scheme]
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{what}: {url!r} has an invalid port") from None
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != default else "")
