"""What a push source provides (`PushSource`, implemented by `connectors/<source>/push.py`)
and the records `kp hooks register` keeps of what it created (`Registration`, never a secret's
value)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel

from knowledge_platform.connectors.base import SourceSettings
from knowledge_platform.connectors.webhooks.events import Accepted
from knowledge_platform.connectors.webhooks.parsing import Context


class Registration(BaseModel):
    source: str
    scope: str
    #: What was made: "clickup_webhook", "drive_channel", "git_hook", ... (the source's word)
    kind: str
    #: ClickUp webhook id, Drive channel id, or the endpoint for a git host's hook
    id: str
    endpoint: str
    #: where the webhook secret lives: `$VARIABLE` or `op://...` (never the value)
    secret: str
    #: ClickUp: the location filter ("team", "list_id=901"...); Drive: the change log
    location: str = ""
    #: Drive: the channel's resourceId (to stop it) and expiry (unix seconds)
    resource_id: str | None = None
    expires_at: float | None = None
    created_at: float


@dataclass
class Outcome:
    source: str
    scope: str
    #: created | kept | reactivated | renewed | instructions | skipped
    action: str
    message: str
    #: a secret the source just made (ClickUp), to show once; None otherwise
    secret_value: str | None = None


@dataclass(frozen=True)
class Registering:
    """What the generic register loop hands a source for one scope."""

    settings: SourceSettings
    scope: str
    #: Where the source delivers: service.public_url + the source's path.
    endpoint: str
    #: This scope's registrations from the last `kp hooks register`.
    known: list[Registration]
    #: Hours a channel that expires is asked to live (service.hooks.drive_channel_hours).
    channel_hours: int
    now: float


class PushSource(Protocol):
    """A source's push module: `connectors/<source>/push.py`."""

    #: Its registrations expire and are renewed by `hooks_renewal_sensor` (Drive channels).
    RENEWS: bool

    def parse(self, ctx: Context, headers: Mapping[str, str], body: bytes) -> Accepted:
        """Verify (first, over the raw bytes) and parse one delivery; raises Rejected."""
        ...

    def register(self, job: Registering) -> tuple[list[Outcome], list[Registration]]:
        """Create, keep, reactivate or renew this scope's webhooks through the source's API:
        what was done, and the scope's registrations now."""
        ...

    def health(
        self, settings: SourceSettings, reg: Registration, now: float, ask: bool
    ) -> tuple[str, str]:
        """(ok | failing | suspended | expiring | expired | gone | unknown, detail); `ask`:
        the source's API may be asked."""
        ...


def secret_location(settings: Any) -> str | None:
    """`$VARIABLE` or the op:// reference the scope names for its webhook secret."""
    source = settings.secret("webhook_secret")
    return str(source) if (source.env or source.ref) else None


def needs_secret(source: str, scope: str) -> Outcome:
    return Outcome(
        source,
        scope,
        "skipped",
        f"{source}:{scope}: no webhook secret is named; "
        f"add webhook_secret_env (or webhook_secret_ref) to its {source} settings",
    )
