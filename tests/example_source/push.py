"""Deliveries carry `X-Notes-Token` (the scope's webhook secret) and `{"paths": [...]}`."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from knowledge_platform.connectors.base import SourceSettings
from knowledge_platform.connectors.webhooks.contract import (
    Outcome,
    Registering,
    Registration,
    needs_secret,
    secret_location,
)
from knowledge_platform.connectors.webhooks.events import Accepted, HookEvent, Rejected
from knowledge_platform.connectors.webhooks.parsing import Context, no_secret, parse_json
from knowledge_platform.connectors.webhooks.verify import token_matches

RENEWS = False


def parse(ctx: Context, headers: Mapping[str, str], body: bytes) -> Accepted:
    token = headers.get("x-notes-token")
    if not token:
        raise Rejected(401, "unsigned: no X-Notes-Token header", code="unsigned")
    secrets = ctx.secrets("notes_push")
    if not secrets:
        raise no_secret("notes_push")
    scopes = [scope for scope, secret in secrets if token_matches(secret, token)]
    if not scopes:
        raise Rejected(401, "X-Notes-Token matches no scope's secret", code="signature")
    paths = parse_json(body).get("paths")
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise Rejected(400, "malformed: 'paths' is not a list of strings", code="malformed")
    digest = hashlib.sha256(body).hexdigest()[:24]
    return Accepted(
        [
            HookEvent(f"notes:{digest}@{scope}", "notes_push", scope, tuple(paths))
            for scope in scopes
        ],
        note=f"{len(paths)} paths",
    )


def register(job: Registering) -> tuple[list[Outcome], list[Registration]]:
    where = secret_location(job.settings)
    if where is None:
        return [needs_secret("notes_push", job.scope)], job.known
    reg = Registration(
        source="notes_push",
        scope=job.scope,
        kind="notes_hook",
        id=job.endpoint,
        endpoint=job.endpoint,
        secret=where,
        created_at=job.now,
    )
    return [
        Outcome(
            "notes_push",
            job.scope,
            "instructions",
            f"point the editor's save hook at {job.endpoint}",
        )
    ], [reg]


def health(settings: SourceSettings, reg: Registration, now: float, ask: bool) -> tuple[str, str]:
    del settings, reg, now, ask
    return "ok", "the editor pushes; nothing to ask"
