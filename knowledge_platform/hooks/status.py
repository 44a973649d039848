"""`kp hooks status`: each registered webhook or channel with its health — the last delivery
accepted for its source x scope (from the queue), what the source says (ClickUp's
`health.status` and `fail_count`, a Drive channel's expiry) — and the refused deliveries per
source and reason."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast

from knowledge_platform.connectors.clickup.connector import ClickUpConnector
from knowledge_platform.connectors.clickup.settings import ClickUpSettings
from knowledge_platform.errors import KnowledgePlatformError
from knowledge_platform.hooks import registrations as store
from knowledge_platform.hooks.queue import HookQueue
from knowledge_platform.hooks.register import RENEW_BEFORE
from knowledge_platform.hooks.registrations import Registration
from knowledge_platform.registry import Registry


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
        return {"hooks": [asdict(h) for h in self.hooks], "rejects": self.rejects,
                "queue": self.queue}


def _clickup(registry: Registry, reg: Registration) -> tuple[str, str]:
    try:
        cfg = cast(ClickUpSettings, registry.source_settings("clickup", reg.scope))
        with ClickUpConnector(cfg, reg.scope).client() as http:
            teams = [cfg.team_id] if cfg.team_id else [
                str(t["id"]) for t in http.get_json(f"{cfg.base_url}/team").get("teams", [])]
            hooks = [h for team in teams
                     for h in http.get_json(f"{cfg.base_url}/team/{team}/webhook")
                     .get("webhooks", [])]
    except KnowledgePlatformError as exc:
        return "unknown", f"ClickUp did not answer: {exc}"
    found = next((h for h in hooks if str(h.get("id")) == reg.id), None)
    if found is None:
        return "gone", "not in ClickUp any more: run `kp hooks register`"
    health = found.get("health") or {}
    state = str(health.get("status") or "unknown")
    fails = health.get("fail_count", 0)
    word = {"active": "ok"}.get(state, state)
    advice = "; run `kp hooks register` to reactivate it" if word != "ok" else ""
    return word, f"ClickUp: {state}, fail_count {fails}{advice}"


def _drive(reg: Registration, now: float) -> tuple[str, str]:
    left = (reg.expires_at or 0) - now
    if left <= 0:
        return "expired", "channel expired: run `kp hooks register --source google_drive`"
    days = left / 86400
    state = "expiring" if left < RENEW_BEFORE else "ok"
    return state, f"expires in {days:.1f} days (renewed a day before by hooks_renewal_sensor)"


def hooks_status(registry: Registry, home: Path, queue: HookQueue, *,
                 check_sources: bool = True,
                 clock: Callable[[], float] = time.time) -> HooksStatus:
    now = clock()
    last = queue.last_deliveries()
    result = HooksStatus(rejects=queue.rejects(), queue=queue.kind)
    for reg in store.load(home):
        if reg.kind == "clickup_webhook":
            state, detail = _clickup(registry, reg) if check_sources else ("unknown", "")
        elif reg.kind == "drive_channel":
            state, detail = _drive(reg, now)
        else:
            state, detail = "ok", "configured on the git host (not checked)"
        at = last.get((reg.source, reg.scope))
        result.hooks.append(HookHealth(
            reg.source, reg.scope, reg.kind, reg.id, reg.endpoint, reg.secret, reg.location,
            state, detail, at[0] if at else None, reg.expires_at))
    return result
