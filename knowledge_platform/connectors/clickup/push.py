"""ClickUp's push side: webhooks signed with `X-Signature` (hex HMAC-SHA256 of the body with
the webhook's secret), one webhook per scope created through `POST /team/{team_id}/webhook`
(the task events, filtered to the scope's one space, folder or list when it selects exactly
one), and its health as ClickUp reports it (`health.status`, `fail_count`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, cast

from knowledge_platform.connectors.base import SourceSettings
from knowledge_platform.connectors.clickup.connector import ClickUpConnector
from knowledge_platform.connectors.clickup.settings import ClickUpSettings
from knowledge_platform.connectors.webhooks.contract import (
    Outcome,
    Registering,
    Registration,
    needs_secret,
    secret_location,
)
from knowledge_platform.connectors.webhooks.events import Accepted, HookEvent, Rejected
from knowledge_platform.connectors.webhooks.parsing import Context, iso, no_secret, parse_json
from knowledge_platform.connectors.webhooks.verify import signature_matches
from knowledge_platform.errors import ConfigError, KnowledgePlatformError, SourceError

RENEWS = False
EVENTS = [
    "taskCreated",
    "taskUpdated",
    "taskDeleted",
    "taskMoved",
    "taskStatusUpdated",
    "taskPriorityUpdated",
    "taskAssigneeUpdated",
    "taskDueDateUpdated",
    "taskTagUpdated",
    "taskCommentPosted",
    "taskCommentUpdated",
]
LOCATIONS = ("space_id", "folder_id", "list_id")


def parse(ctx: Context, headers: Mapping[str, str], body: bytes) -> Accepted:
    """The scopes are those whose secret signed it (one webhook per scope)."""
    given = headers.get("x-signature")
    if not given:
        raise Rejected(401, "unsigned: no X-Signature header", code="unsigned")
    secrets = ctx.secrets("clickup")
    if not secrets:
        raise no_secret("clickup")
    scopes = [scope for scope, secret in secrets if signature_matches(secret, body, given)]
    if not scopes:
        raise Rejected(
            401,
            "X-Signature does not match the ClickUp webhook secret of any scope",
            code="signature",
        )
    data = parse_json(body)
    event = data.get("event")
    if not isinstance(event, str) or not event:
        raise Rejected(400, "malformed: no 'event' name", code="malformed")
    history = data.get("history_items") or []
    if not isinstance(history, list):
        raise Rejected(400, "malformed: 'history_items' is not a list", code="malformed")
    dates = [_ms(h.get("date")) for h in history if isinstance(h, dict)]
    newest = max((d for d in dates if d), default=0) / 1000
    max_age = ctx.max_age_seconds()
    if newest and newest < ctx.now() - max_age:
        raise Rejected(
            409,
            f"stale: the event's newest change is from {iso(newest)}, more than {max_age} s ago",
            code="stale",
        )
    task = data.get("task_id")
    task_id = str(task) if isinstance(task, str | int) and str(task) else None
    marks = sorted(str(h.get("id")) for h in history if isinstance(h, dict) and h.get("id"))
    what = [str(data.get("webhook_id")), event, task_id or "", *marks]
    digest = hashlib.sha256(("|".join(what) if marks else body.hex()).encode()).hexdigest()
    delivery = f"clickup:{event}:{task_id or '-'}:{digest[:24]}"
    ids = (task_id,) if task_id else None
    deleted = (task_id,) if task_id and event == "taskDeleted" else ()
    return Accepted(
        [HookEvent(f"{delivery}@{scope}", "clickup", scope, ids, deleted) for scope in scopes],
        note=f"{event} {task_id or ''}".strip(),
    )


def _ms(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _location(cfg: ClickUpSettings) -> dict[str, str]:
    chosen = [
        (k, v)
        for k, ids in (
            ("space_id", cfg.space_ids),
            ("folder_id", cfg.folder_ids),
            ("list_id", cfg.list_ids),
        )
        for v in ids
    ]
    return dict(chosen) if len(chosen) == 1 else {}


def _teams(http: Any, cfg: ClickUpSettings) -> list[str]:
    """The workspace the token works in: `team_id`, else every one `GET /team` lists."""
    if cfg.team_id:
        return [cfg.team_id]
    return [str(t["id"]) for t in http.get_json(f"{cfg.base_url}/team").get("teams", [])]


def register(job: Registering) -> tuple[list[Outcome], list[Registration]]:
    """Kept when it exists and is active, reactivated (`PUT /webhook/{id}` status active) when
    it failed or was suspended, else created. ClickUp makes the signing secret: shown once, to
    be stored where the scope's `webhook_secret_env`/`_ref` says, unless that holds it."""
    cfg, scope, endpoint = cast(ClickUpSettings, job.settings), job.scope, job.endpoint
    where = secret_location(cfg)
    if where is None:
        return [needs_secret("clickup", scope)], job.known
    location = _location(cfg)
    label = ",".join(f"{k}={v}" for k, v in location.items()) or "team"
    with ClickUpConnector(cfg, scope).client() as http:
        base = cfg.base_url
        teams = _teams(http, cfg)
        if len(teams) != 1:
            raise ConfigError(
                f"clickup:{scope}: the token sees {len(teams)} workspaces; "
                "set team_id in its clickup settings"
            )
        team = teams[0]
        hooks = http.get_json(f"{base}/team/{team}/webhook").get("webhooks", [])
        mine = [
            h
            for h in hooks
            if h.get("endpoint") == endpoint
            and all(str(h.get(k) or "") == location.get(k, "") for k in LOCATIONS)
        ]
        if mine:
            hook = mine[0]
            action = "kept"
            if (hook.get("health") or {}).get("status") != "active":
                _send(http, "PUT", f"{base}/webhook/{hook['id']}", {"status": "active"})
                action = "reactivated"
        else:
            reply = _send(
                http,
                "POST",
                f"{base}/team/{team}/webhook",
                {"endpoint": endpoint, "events": EVENTS, **location},
            )
            hook = reply.get("webhook") or reply
            action = "created"
    secret = str(hook.get("secret") or "")
    held = cfg.resolve_optional_secret(
        "webhook_secret", owner=f"clickup:{scope}", what="webhook secret"
    )
    show = secret if secret and held != secret else None
    message = f"clickup:{scope}: webhook {hook['id']} {action} ({label}) -> {endpoint}"
    if show:
        message += f"; store its signing secret in {where}"
    reg = Registration(
        source="clickup",
        scope=scope,
        kind="clickup_webhook",
        id=str(hook["id"]),
        endpoint=endpoint,
        secret=where,
        location=label,
        created_at=job.now,
    )
    return [Outcome("clickup", scope, action, message, show)], [reg]


def _send(http: Any, method: str, url: str, body: dict[str, Any]) -> dict[str, Any]:
    response = http.request(
        method, url, content=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        data = response.json()
    except ValueError:
        raise SourceError(f"clickup: {method} {url} answered malformed JSON") from None
    return data if isinstance(data, dict) else {}


def health(settings: SourceSettings, reg: Registration, now: float, ask: bool) -> tuple[str, str]:
    del now
    if not ask:
        return "unknown", ""
    cfg = cast(ClickUpSettings, settings)
    try:
        with ClickUpConnector(cfg, reg.scope).client() as http:
            hooks = [
                h
                for team in _teams(http, cfg)
                for h in http.get_json(f"{cfg.base_url}/team/{team}/webhook").get("webhooks", [])
            ]
    except KnowledgePlatformError as exc:
        return "unknown", f"ClickUp did not answer: {exc}"
    found = next((h for h in hooks if str(h.get("id")) == reg.id), None)
    if found is None:
        return "gone", "not in ClickUp any more: run `kp hooks register`"
    state_of = found.get("health") or {}
    state = str(state_of.get("status") or "unknown")
    fails = state_of.get("fail_count", 0)
    word = {"active": "ok"}.get(state, state)
    advice = "; run `kp hooks register` to reactivate it" if word != "ok" else ""
    return word, f"ClickUp: {state}, fail_count {fails}{advice}"
