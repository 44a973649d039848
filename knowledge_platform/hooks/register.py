"""`kp hooks register`: create or renew each source's webhooks through its own API, and
record them under KP_HOME (registrations.py).

- ClickUp: one webhook per scope (`POST /team/{team_id}/webhook`, the task events, filtered to
  the scope's one space, folder or list when it selects exactly one), kept when it exists
  and is active, reactivated (`PUT /webhook/{id}` status active) when it failed or was
  suspended. ClickUp makes the signing secret: it is shown once, to be stored where the
  scope's `webhook_secret_env`/`_ref` says, unless that already holds it.
- Google Drive: one `changes.watch` channel per scope and change log (My Drive or a shared
  drive), its token the scope's webhook secret, renewed (a new channel, then `channels.stop`
  of the old) within a day of its expiry.
- git: a git host's API is not in the registry: what to configure on it is printed."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowledge_platform.connectors.clickup.connector import ClickUpConnector
from knowledge_platform.connectors.clickup.settings import ClickUpSettings
from knowledge_platform.connectors.git_docs.settings import GitDocsSettings
from knowledge_platform.connectors.google_drive.api import GoogleApiError
from knowledge_platform.connectors.google_drive.connector import GoogleDriveConnector
from knowledge_platform.connectors.google_drive.settings import GoogleDriveSettings
from knowledge_platform.errors import ConfigError, SourceError
from knowledge_platform.hook_settings import HOOK_PATHS
from knowledge_platform.hooks import registrations as store
from knowledge_platform.hooks.registrations import Registration
from knowledge_platform.hooks.sources import CHANNEL_PREFIX
from knowledge_platform.registry import Registry

CLICKUP_EVENTS = ["taskCreated", "taskUpdated", "taskDeleted", "taskMoved",
                  "taskStatusUpdated", "taskPriorityUpdated", "taskAssigneeUpdated",
                  "taskDueDateUpdated", "taskTagUpdated", "taskCommentPosted",
                  "taskCommentUpdated"]
LOCATIONS = ("space_id", "folder_id", "list_id")
#: A Drive channel is renewed when it has less than this left.
RENEW_BEFORE = 86400.0


@dataclass
class Outcome:
    source: str
    scope: str
    #: created | kept | reactivated | renewed | instructions | skipped
    action: str
    message: str
    #: a secret the source just made (ClickUp), to show once; None otherwise
    secret_value: str | None = None


def _where(settings: Any) -> str | None:
    """`$VARIABLE` or the op:// reference the scope names for its webhook secret."""
    source = settings.secret("webhook_secret")
    return str(source) if (source.env or source.ref) else None


def _needs_secret(source: str, scope: str) -> Outcome:
    return Outcome(source, scope, "skipped", f"{source}:{scope}: no webhook secret is named; "
                   f"add webhook_secret_env (or webhook_secret_ref) to its {source} settings")


# -- ClickUp -----------------------------------------------------------------------------------
def _location(cfg: ClickUpSettings) -> dict[str, str]:
    chosen = [(k, v) for k, ids in (("space_id", cfg.space_ids), ("folder_id", cfg.folder_ids),
                                    ("list_id", cfg.list_ids)) for v in ids]
    return dict(chosen) if len(chosen) == 1 else {}


def register_clickup(cfg: ClickUpSettings, scope: str, endpoint: str,
                     now: float) -> tuple[Outcome, Registration | None]:
    where = _where(cfg)
    if where is None:
        return _needs_secret("clickup", scope), None
    location = _location(cfg)
    label = ",".join(f"{k}={v}" for k, v in location.items()) or "team"
    with ClickUpConnector(cfg, scope).client() as http:
        base = cfg.base_url
        team = cfg.team_id
        if team is None:
            teams = [str(t["id"]) for t in http.get_json(f"{base}/team").get("teams", [])]
            if len(teams) != 1:
                raise ConfigError(f"clickup:{scope}: the token sees {len(teams)} workspaces; "
                                  "set team_id in its clickup settings")
            team = teams[0]
        hooks = http.get_json(f"{base}/team/{team}/webhook").get("webhooks", [])
        mine = [h for h in hooks if h.get("endpoint") == endpoint and all(
            str(h.get(k) or "") == location.get(k, "") for k in LOCATIONS)]
        if mine:
            hook = mine[0]
            action = "kept"
            if (hook.get("health") or {}).get("status") != "active":
                _send(http, "PUT", f"{base}/webhook/{hook['id']}", {"status": "active"})
                action = "reactivated"
        else:
            reply = _send(http, "POST", f"{base}/team/{team}/webhook",
                          {"endpoint": endpoint, "events": CLICKUP_EVENTS, **location})
            hook = reply.get("webhook") or reply
            action = "created"
    secret = str(hook.get("secret") or "")
    held = cfg.resolve_optional_secret("webhook_secret", owner=f"clickup:{scope}",
                                       what="webhook secret")
    show = secret if secret and held != secret else None
    message = f"clickup:{scope}: webhook {hook['id']} {action} ({label}) -> {endpoint}"
    if show:
        message += f"; store its signing secret in {where}"
    reg = Registration(source="clickup", scope=scope, kind="clickup_webhook",
                       id=str(hook["id"]), endpoint=endpoint, secret=where, location=label,
                       created_at=now)
    return Outcome("clickup", scope, action, message, show), reg


def _send(http: Any, method: str, url: str, body: dict[str, Any]) -> dict[str, Any]:
    response = http.request(method, url, content=json.dumps(body).encode(),
                            headers={"Content-Type": "application/json"})
    try:
        data = response.json()
    except ValueError:
        raise SourceError(f"clickup: {method} {url} answered malformed JSON") from None
    return data if isinstance(data, dict) else {}


# -- Google Drive ------------------------------------------------------------------------------
def register_drive(cfg: GoogleDriveSettings, scope: str, endpoint: str, hours: int,
                   known: list[Registration], now: float,
                   ) -> tuple[list[Outcome], list[Registration]]:
    """Outcomes, and the registrations of this scope's channels after renewal."""
    where = _where(cfg)
    token = cfg.resolve_optional_secret("webhook_secret", owner=f"google_drive:{scope}",
                                        what="webhook secret")
    if where is None or token is None:
        return [_needs_secret("google_drive", scope) if where is None else Outcome(
            "google_drive", scope, "skipped", f"google_drive:{scope}: {where} is not set: "
            "put a long random string there (it becomes the channels' token)")], known
    connector = GoogleDriveConnector(cfg, scope)
    api = connector.api()
    outcomes: list[Outcome] = []
    kept: list[Registration] = []
    try:
        for log in connector.change_logs(api):
            mine = [r for r in known if r.location == log and r.endpoint == endpoint]
            live = [r for r in mine if (r.expires_at or 0) > now + RENEW_BEFORE]
            if live:
                kept += live
                outcomes.append(Outcome("google_drive", scope, "kept",
                                        f"google_drive:{scope}: channel {live[0].id} on "
                                        f"{log or 'My Drive'} until {_when(live[0])}"))
                continue
            reg = _watch(api, scope, log, endpoint, token, where, hours, now)
            for old in mine:
                _stop(api, old)
            kept.append(reg)
            action = "renewed" if mine else "created"
            outcomes.append(Outcome("google_drive", scope, action, f"google_drive:{scope}: "
                                    f"channel {reg.id} {action} on {log or 'My Drive'} -> "
                                    f"{endpoint}, until {_when(reg)}"))
    finally:
        api.close()
    return outcomes, kept


def _watch(api: Any, scope: str, log: str, endpoint: str, token: str, where: str, hours: int,
           now: float) -> Registration:
    extra: dict[str, Any] = {"driveId": log, "includeItemsFromAllDrives": True} if log else {}
    start = api.call(api.changes.getStartPageToken(supportsAllDrives=True,
                                                   **({"driveId": log} if log else {})))
    body = {"id": f"{CHANNEL_PREFIX}{scope}-{uuid.uuid4().hex}", "type": "web_hook",
            "address": endpoint, "token": token,
            "expiration": int((now + hours * 3600) * 1000)}
    channel = api.call(api.changes.watch(pageToken=start["startPageToken"],
                                         supportsAllDrives=True, body=body, **extra))
    return Registration(source="google_drive", scope=scope, kind="drive_channel",
                        id=channel["id"], endpoint=endpoint, secret=where, location=log,
                        resource_id=channel.get("resourceId"),
                        expires_at=int(channel["expiration"]) / 1000, created_at=now)


def _stop(api: Any, old: Registration) -> None:
    try:
        api.call(api.channels.stop(body={"id": old.id, "resourceId": old.resource_id}))
    except GoogleApiError as exc:
        if exc.status != 404:  # already gone: nothing to stop
            raise


def _when(reg: Registration) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(reg.expires_at or 0))


# -- git ---------------------------------------------------------------------------------------
def register_git(cfg: GitDocsSettings, scope: str, endpoint: str,
                 now: float) -> tuple[Outcome, Registration | None]:
    where = _where(cfg)
    if where is None:
        return _needs_secret("git_docs", scope), None
    branch = "the default branch" if cfg.branch == "HEAD" else cfg.branch
    message = (f"git_docs:{scope}: on the host of {cfg.repo}, add a webhook: URL {endpoint}, "
               f"content type application/json, secret = the value of {where}, event push "
               f"(GitHub/Gitea sign it; GitLab sends it as X-Gitlab-Token); pushes to "
               f"{branch} are read")
    reg = Registration(source="git_docs", scope=scope, kind="git_hook", id=endpoint,
                       endpoint=endpoint, secret=where, location=cfg.repo, created_at=now)
    return Outcome("git_docs", scope, "instructions", message), reg


# -- all ---------------------------------------------------------------------------------------
def register(registry: Registry, home: Path, *, source: str | None = None,
             scope: str | None = None, renew_only: bool = False,
             clock: Callable[[], float] = time.time) -> list[Outcome]:
    """Create or renew the webhooks of every push source x scope (or the ones named); with
    `renew_only`, only Drive channels already registered and due. Records the result."""
    public = registry.service
    if public.public_url is None:
        raise ConfigError("service.public_url is not set in the registry: the address sources "
                          "deliver webhooks to (https://..., the MCP service behind its proxy)")
    if source is not None and source not in HOOK_PATHS:
        raise ConfigError(f"no webhooks for {source!r}; sources with webhooks: "
                          f"{', '.join(HOOK_PATHS)}")
    now = clock()
    records = store.load(home)
    outcomes: list[Outcome] = []
    for name in HOOK_PATHS:
        for sc in registry.scopes:
            if (source and name != source) or (scope and sc != scope) \
                    or name not in registry.sources_for(sc):
                continue
            cfg = registry.source_settings(name, sc)
            endpoint = public.hook_url(name) or ""
            mine = [r for r in records if (r.source, r.scope) == (name, sc)]
            if renew_only and (name != "google_drive" or not mine):
                continue
            if name == "google_drive":
                done, fresh = register_drive(cfg, sc, endpoint,  # type: ignore[arg-type]
                                             public.hooks.drive_channel_hours, mine, now)
                outcomes += done
            else:
                make = register_clickup if name == "clickup" else register_git
                one, reg = make(cfg, sc, endpoint, now)  # type: ignore[arg-type]
                outcomes.append(one)
                fresh = [reg] if reg else mine
            records = [r for r in records if (r.source, r.scope) != (name, sc)] + fresh
    store.save(home, records)
    return outcomes
