"""The registry's `service:` section: the public base URL sources deliver webhooks to (and
clients reach the MCP endpoint under; its edge settings are in edge_settings.py), and
how the webhook endpoints defend themselves (rate limit, stale events, how long event ids are
remembered for replay detection)."""

from __future__ import annotations

from urllib.parse import urlsplit

from limits import parse as parse_limit
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from knowledge_platform.config.edge_settings import MCP_PATH, EdgeConfig, loopback

#: Bodies above this are refused (413) before they are read whole.
MAX_BODY_BYTES = 1024 * 1024


class HooksConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    #: Deliveries accepted per source and MCP process (the `limits` syntax: "600/minute",
    #: "20/second"); past it: 429 with Retry-After.
    rate_limit: str = "600/minute"
    #: A ClickUp event whose history items are all older than this is refused as stale.
    max_age_seconds: int = Field(default=3600, ge=60, le=7 * 86400)
    #: Event ids are remembered this long (a replay within it answers 409).
    keep_days: int = Field(default=7, ge=1, le=90)
    #: Google Drive channels are asked to live this long, and renewed a day before they end.
    drive_channel_hours: int = Field(default=24 * 6, ge=2, le=24 * 7)
    #: The hooks sensor's minimum interval. Dagster's sensor daemon looks every 5 s and skips
    #: a sensor whose interval has not quite passed, so 5 meant every 5-10 s (~8 s between
    #: ticks in a kp up home's schedule storage, #29); at 1 (the default) on every look.
    sensor_seconds: int = Field(default=1, ge=1, le=600)
    #: Events of a source x scope naming at most this many ids are applied inside the hooks
    #: sensor's tick (its hot path, no run; knowledge_platform.ingest.hot_delta); more, or 0, a run.
    hot_path_max_ids: int = Field(default=20, ge=0, le=200)

    @field_validator("rate_limit")
    @classmethod
    def _rate(cls, value: str) -> str:
        try:
            parse_limit(value)
        except ValueError:
            raise ValueError(
                f"rate_limit {value!r}: expected e.g. '600/minute' or '20/second'"
            ) from None
        return value


class ServiceConfig(EdgeConfig):
    model_config = ConfigDict(extra="forbid")

    #: Where sources reach the MCP service's HTTP app from outside (a TLS reverse proxy in
    #: production): https://kb.example.com, or a path prefix under it. http only on loopback.
    public_url: str | None = None
    hooks: HooksConfig = Field(default_factory=HooksConfig)

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value.strip())
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise ValueError(f"public_url {value!r}: give an absolute https:// URL")
        if parts.scheme == "http" and not loopback(parts.hostname):
            raise ValueError(
                f"public_url {value!r}: sources deliver webhooks over https only "
                "(http is accepted for loopback tests)"
            )
        if parts.query or parts.fragment or parts.username or parts.password:
            raise ValueError(f"public_url {value!r}: no query, fragment or credentials")
        return value.strip().rstrip("/")

    @model_validator(mode="after")
    def _oauth_needs_public_url(self) -> ServiceConfig:
        if self.oauth is not None and not self.public_url:
            raise ValueError(
                "oauth: set service.public_url too (the URL clients reach the "
                "service under: tokens name it, the OAuth metadata advertises it)"
            )
        return self

    @property
    def mcp_url(self) -> str | None:
        """The MCP endpoint as clients reach it from outside, or None without a public_url."""
        return f"{self.public_url}{MCP_PATH}" if self.public_url else None

    def hook_url(self, path: str) -> str | None:
        """The endpoint a source delivers to (its `PushSpec.path`), or None without a
        public_url."""
        return f"{self.public_url}{path}" if self.public_url else None
