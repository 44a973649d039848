"""An accepted push event (one source x scope to bring up to date, with the ids it named) and
the one-line refusals of a delivery that is not accepted."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from knowledge_platform.connectors.base import Hint
from knowledge_platform.errors import KnowledgePlatformError

#: A hint naming more ids than this is dropped: an ordinary run (a listing) is cheaper.
MAX_HINT_IDS = 200


class Rejected(KnowledgePlatformError):
    """A delivery refused with an HTTP status and a one-line reason; nothing was queued."""

    def __init__(self, status: int, reason: str, *, code: str | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        #: Short stable key for counting refusals ("signature", "replay", ...).
        self.code = code or str(status)


@dataclass(frozen=True)
class HookEvent:
    """`event_id` is unique per delivery and scope (a second delivery of it is a replay).
    `ids`/`deleted`: what the event named, for a run that can read by id; `ids=None`: the
    event names nothing a connector can use (an ordinary run follows)."""

    event_id: str
    source: str
    scope: str
    ids: tuple[str, ...] | None = None
    deleted: tuple[str, ...] = ()

    def hint_json(self) -> str | None:
        if self.ids is None:
            return None
        return json.dumps({"ids": list(self.ids), "deleted": list(self.deleted)})


@dataclass
class Accepted:
    """What a delivery became: events to queue (none for a handshake or a filtered push)."""

    events: list[HookEvent] = field(default_factory=list)
    note: str = ""


def encode_hint(hint: Hint | None) -> str | None:
    if hint is None:
        return None
    return json.dumps({"ids": sorted(hint.ids), "deleted": sorted(hint.deleted)})


def decode_hint(text: str | None) -> Hint | None:
    """A run tag back into a Hint; None for no tag or one that is not a hint."""
    if not text:
        return None
    try:
        data: Any = json.loads(text)
        return Hint(
            ids=frozenset(map(str, data["ids"])),
            deleted=frozenset(map(str, data.get("deleted", []))),
        )
    except (ValueError, KeyError, TypeError):
        return None
