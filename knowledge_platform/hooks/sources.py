"""Per-source delivery parsers: ClickUp webhooks, Google Drive `changes.watch` channels and
git push events (GitHub, Gitea, GitLab). Each returns Accepted or raises Rejected."""

from __future__ import annotations

import email.utils
import hashlib
from collections.abc import Mapping
from typing import Any

from knowledge_platform.hooks.events import Accepted, HookEvent, Rejected
from knowledge_platform.hooks.git import git
from knowledge_platform.hooks.parsing import Context, Parser, iso, no_secret, parse_json
from knowledge_platform.hooks.verify import signature_matches, token_matches

#: Drive channel ids the platform creates: `kp-<scope>-<32 hex>`.
CHANNEL_PREFIX = "kp-"


def clickup(ctx: Context, headers: Mapping[str, str], body: bytes) -> Accepted:
    """`X-Signature`: hex HMAC-SHA256 of the body with the webhook's secret. The scopes are
    those whose secret signed it (one webhook per scope, `kp hooks register`)."""
    given = headers.get("x-signature")
    if not given:
        raise Rejected(401, "unsigned: no X-Signature header", code="unsigned")
    secrets = ctx.secrets("clickup")
    if not secrets:
        raise no_secret("clickup")
    scopes = [scope for scope, secret in secrets if signature_matches(secret, body, given)]
    if not scopes:
        raise Rejected(401, "X-Signature does not match the ClickUp webhook secret of any "
                            "scope", code="signature")
    data = parse_json(body)
    event = data.get("event")
    if not isinstance(event, str) or not event:
        raise Rejected(400, "malformed: no 'event' name", code="malformed")
    history = data.get("history_items") or []
    if not isinstance(history, list):
        raise Rejected(400, "malformed: 'history_items' is not a list", code="malformed")
    dates = [_ms(h.get("date")) for h in history if isinstance(h, dict)]
    newest = max((d for d in dates if d), default=0) / 1000
    max_age = ctx.registry().service.hooks.max_age_seconds
    if newest and newest < ctx.now() - max_age:
        raise Rejected(409, f"stale: the event's newest change is from {iso(newest)}, more "
                            f"than {max_age} s ago", code="stale")
    task = data.get("task_id")
    task_id = str(task) if isinstance(task, str | int) and str(task) else None
    marks = sorted(str(h.get("id")) for h in history if isinstance(h, dict) and h.get("id"))
    what = [str(data.get("webhook_id")), event, task_id or "", *marks]
    digest = hashlib.sha256(("|".join(what) if marks else body.hex()).encode()).hexdigest()
    delivery = f"clickup:{event}:{task_id or '-'}:{digest[:24]}"
    ids = (task_id,) if task_id else None
    deleted = (task_id,) if task_id and event == "taskDeleted" else ()
    return Accepted([HookEvent(f"{delivery}@{scope}", "clickup", scope, ids, deleted)
                     for scope in scopes], note=f"{event} {task_id or ''}".strip())


def drive_scope(ctx: Context, channel: str) -> str | None:
    if not channel.startswith(CHANNEL_PREFIX) or "-" not in channel[len(CHANNEL_PREFIX):]:
        return None
    scope = channel[len(CHANNEL_PREFIX):].rsplit("-", 1)[0]
    reg = ctx.registry()
    return scope if scope in reg.scopes and "google_drive" in reg.sources_for(scope) else None


def google_drive(ctx: Context, headers: Mapping[str, str], body: bytes) -> Accepted:
    """A `changes.watch` notification: no body; `X-Goog-Channel-Token` must be the scope's
    webhook secret (the token the channel was created with); `sync` opens a channel."""
    del body
    channel, token = headers.get("x-goog-channel-id"), headers.get("x-goog-channel-token")
    if not channel or token is None:
        raise Rejected(401, "unsigned: no X-Goog-Channel-ID / X-Goog-Channel-Token",
                       code="unsigned")
    scope = drive_scope(ctx, channel)
    if scope is None:
        raise Rejected(401, "unknown channel: not one `kp hooks register` creates for a scope "
                            "with google_drive", code="channel")
    secret = dict(ctx.secrets("google_drive")).get(scope)
    if secret is None:
        raise no_secret("google_drive")
    if not token_matches(secret, token):
        raise Rejected(401, "X-Goog-Channel-Token does not match the channel's token",
                       code="signature")
    state = headers.get("x-goog-resource-state", "")
    number = headers.get("x-goog-message-number", "")
    if not state or not number.isdigit():
        raise Rejected(400, "malformed: X-Goog-Resource-State and a numeric "
                            "X-Goog-Message-Number are required", code="malformed")
    expires = _rfc1123(headers.get("x-goog-channel-expiration"))
    if expires is not None and expires < ctx.now():
        raise Rejected(409, f"stale: channel {channel} expired at {iso(expires)}",
                       code="stale")
    if state == "sync":
        return Accepted([], note=f"sync: channel {channel} is open")
    return Accepted([HookEvent(f"drive:{channel}:{number}@{scope}", "google_drive", scope)],
                    note=state)


def _ms(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _rfc1123(value: str | None) -> float | None:
    parsed = email.utils.parsedate_tz(value) if value else None
    return float(email.utils.mktime_tz(parsed)) if parsed else None


PARSERS: dict[str, Parser] = {"clickup": clickup, "google_drive": google_drive, "git_docs": git}
