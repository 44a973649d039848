"""Google Drive's push side: `changes.watch` channels, one per scope and change log (My Drive
or a shared drive), their token the scope's webhook secret, renewed (a new channel, then
`channels.stop` of the old) within a day of expiry; a notification carries no body and names
its channel, whose id `kp-<scope>-<32 hex>` says the scope."""

from __future__ import annotations

import email.utils
import time
import uuid
from collections.abc import Mapping
from typing import Any, cast

from knowledge_platform.connectors.base import SourceSettings
from knowledge_platform.connectors.google_drive.api import GoogleApiError
from knowledge_platform.connectors.google_drive.connector import GoogleDriveConnector
from knowledge_platform.connectors.google_drive.settings import GoogleDriveSettings
from knowledge_platform.connectors.webhooks.contract import (
    Outcome,
    Registering,
    Registration,
    needs_secret,
    secret_location,
)
from knowledge_platform.connectors.webhooks.events import Accepted, HookEvent, Rejected
from knowledge_platform.connectors.webhooks.parsing import Context, iso, no_secret
from knowledge_platform.connectors.webhooks.verify import token_matches

RENEWS = True
#: Drive channel ids the platform creates: `kp-<scope>-<32 hex>`.
CHANNEL_PREFIX = "kp-"
#: A channel is renewed when it has less than this left.
RENEW_BEFORE = 86400.0


def channel_scope(ctx: Context, channel: str) -> str | None:
    if not channel.startswith(CHANNEL_PREFIX) or "-" not in channel[len(CHANNEL_PREFIX) :]:
        return None
    scope = channel[len(CHANNEL_PREFIX) :].rsplit("-", 1)[0]
    return scope if scope in ctx.scopes("google_drive") else None


def parse(ctx: Context, headers: Mapping[str, str], body: bytes) -> Accepted:
    """`X-Goog-Channel-Token` must be the scope's webhook secret (the token the channel was
    created with); `sync` opens a channel."""
    del body
    channel, token = headers.get("x-goog-channel-id"), headers.get("x-goog-channel-token")
    if not channel or token is None:
        raise Rejected(
            401, "unsigned: no X-Goog-Channel-ID / X-Goog-Channel-Token", code="unsigned"
        )
    scope = channel_scope(ctx, channel)
    if scope is None:
        raise Rejected(
            401,
            "unknown channel: not one `kp hooks register` creates for a scope with google_drive",
            code="channel",
        )
    secret = dict(ctx.secrets("google_drive")).get(scope)
    if secret is None:
        raise no_secret("google_drive")
    if not token_matches(secret, token):
        raise Rejected(
            401, "X-Goog-Channel-Token does not match the channel's token", code="signature"
        )
    state = headers.get("x-goog-resource-state", "")
    number = headers.get("x-goog-message-number", "")
    if not state or not number.isdigit():
        raise Rejected(
            400,
            "malformed: X-Goog-Resource-State and a numeric X-Goog-Message-Number are required",
            code="malformed",
        )
    expires = _rfc1123(headers.get("x-goog-channel-expiration"))
    if expires is not None and expires < ctx.now():
        raise Rejected(409, f"stale: channel {channel} expired at {iso(expires)}", code="stale")
    if state == "sync":
        return Accepted([], note=f"sync: channel {channel} is open")
    return Accepted(
        [HookEvent(f"drive:{channel}:{number}@{scope}", "google_drive", scope)], note=state
    )


def _rfc1123(value: str | None) -> float | None:
    parsed = email.utils.parsedate_tz(value) if value else None
    return float(email.utils.mktime_tz(parsed)) if parsed else None


def register(job: Registering) -> tuple[list[Outcome], list[Registration]]:
    cfg, scope, endpoint, now = (
        cast(GoogleDriveSettings, job.settings),
        job.scope,
        job.endpoint,
        job.now,
    )
    where = secret_location(cfg)
    token = cfg.resolve_optional_secret(
        "webhook_secret", owner=f"google_drive:{scope}", what="webhook secret"
    )
    if where is None or token is None:
        return [
            needs_secret("google_drive", scope)
            if where is None
            else Outcome(
                "google_drive",
                scope,
                "skipped",
                f"google_drive:{scope}: {where} is not set: "
                "put a long random string there (it becomes the channels' token)",
            )
        ], job.known
    connector = GoogleDriveConnector(cfg, scope)
    api = connector.api()
    outcomes: list[Outcome] = []
    kept: list[Registration] = []
    try:
        for log in connector.change_logs(api):
            mine = [r for r in job.known if r.location == log and r.endpoint == endpoint]
            live = [r for r in mine if (r.expires_at or 0) > now + RENEW_BEFORE]
            if live:
                kept += live
                outcomes.append(
                    Outcome(
                        "google_drive",
                        scope,
                        "kept",
                        f"google_drive:{scope}: channel {live[0].id} on "
                        f"{log or 'My Drive'} until {_when(live[0])}",
                    )
                )
                continue
            reg = _watch(api, scope, log, endpoint, token, where, job.channel_hours, now)
            for old in mine:
                _stop(api, old)
            kept.append(reg)
            action = "renewed" if mine else "created"
            outcomes.append(
                Outcome(
                    "google_drive",
                    scope,
                    action,
                    f"google_drive:{scope}: "
                    f"channel {reg.id} {action} on {log or 'My Drive'} -> "
                    f"{endpoint}, until {_when(reg)}",
                )
            )
    finally:
        api.close()
    return outcomes, kept


def _watch(
    api: Any, scope: str, log: str, endpoint: str, token: str, where: str, hours: int, now: float
) -> Registration:
    extra: dict[str, Any] = {"driveId": log, "includeItemsFromAllDrives": True} if log else {}
    start = api.call(
        api.changes.getStartPageToken(supportsAllDrives=True, **({"driveId": log} if log else {}))
    )
    body = {
        "id": f"{CHANNEL_PREFIX}{scope}-{uuid.uuid4().hex}",
        "type": "web_hook",
        "address": endpoint,
        "token": token,
        "expiration": int((now + hours * 3600) * 1000),
    }
    channel = api.call(
        api.changes.watch(
            pageToken=start["startPageToken"], supportsAllDrives=True, body=body, **extra
        )
    )
    return Registration(
        source="google_drive",
        scope=scope,
        kind="drive_channel",
        id=channel["id"],
        endpoint=endpoint,
        secret=where,
        location=log,
        resource_id=channel.get("resourceId"),
        expires_at=int(channel["expiration"]) / 1000,
        created_at=now,
    )


def _stop(api: Any, old: Registration) -> None:
    try:
        api.call(api.channels.stop(body={"id": old.id, "resourceId": old.resource_id}))
    except GoogleApiError as exc:
        if exc.status != 404:  # already gone: nothing to stop
            raise


def _when(reg: Registration) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(reg.expires_at or 0))


def health(settings: SourceSettings, reg: Registration, now: float, ask: bool) -> tuple[str, str]:
    del settings, ask
    left = (reg.expires_at or 0) - now
    if left <= 0:
        return "expired", "channel expired: run `kp hooks register --source google_drive`"
    days = left / 86400
    state = "expiring" if left < RENEW_BEFORE else "ok"
    return state, f"expires in {days:.1f} days (renewed a day before by hooks_renewal_sensor)"
