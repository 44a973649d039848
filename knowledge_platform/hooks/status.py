"""`kp hooks status`: each registered webhook or channel with its health — the last delivery
accepted for its source x scope (from the queue), what the source says (ClickUp's
`health.status` and `fail_count`, a Drive channel's expiry) — and the refused deliveries per
source and reason."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from knowledge_platform.config.registry import Registry
from knowledge_platform.connectors.catalog import push_source
from knowledge_platform.errors import KnowledgePlatformError
from knowledge_platform.hooks import registrations as store
from knowledge_platform.hooks.queue import HookQueue


@dataclass
class HookHealth:
    source: str
    scope: str
    kind: str
    id: str
    endpoint: str
    secret: str
    location: str
    #: ok | failing | suspended | expiring | expired | gone | unknown
    health: str
    detail: str
    last_delivery: float | None = None
    expires_at: float | None = None


@dataclass
class HooksStatus:
    hooks: list[HookHealth] = field(default_factory=list)
    rejects: list[dict[str, Any]] = field(default_factory=list)
    queue: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "hooks": [asdict(h) for h in self.hooks],
            "rejects": self.rejects,
            "queue": self.queue,
        }


def hooks_status(
    registry: Registry,
    home: Path,
    queue: HookQueue,
    *,
    check_sources: bool = True,
    clock: Callable[[], float] = time.time,
) -> HooksStatus:
    now = clock()
    last = queue.last_deliveries()
    result = HooksStatus(rejects=queue.rejects(), queue=queue.kind)
    for reg in store.load(home):
        try:
            settings = registry.source_settings(reg.source, reg.scope)
            state, detail = push_source(reg.source).health(settings, reg, now, check_sources)
        except KnowledgePlatformError as exc:  # the scope or source left the registry
            state, detail = "unknown", str(exc)
        at = last.get((reg.source, reg.scope))
        result.hooks.append(
            HookHealth(
                reg.source,
                reg.scope,
                reg.kind,
                reg.id,
                reg.endpoint,
                reg.secret,
                reg.location,
                state,
                detail,
                at[0] if at else None,
                reg.expires_at,
            )
        )
    return result
