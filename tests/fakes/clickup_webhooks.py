"""Webhooks in the ClickUp fake, as documented (developer.clickup.com: Webhooks, Webhook
signature, Webhook health, Task payloads): `POST /team/{team_id}/webhook` with `{endpoint,
events, space_id?|folder_id?|list_id?|task_id?}` answers `{id, webhook: {..., secret}}`;
`GET /team/{team_id}/webhook` lists the token's webhooks (with `health` and `secret`);
`PUT /webhook/{id}` updates `endpoint`, `events` or `status`; `DELETE /webhook/{id}`.

Every task change the fake makes is delivered to the active webhooks whose events and
location match: a JSON body `{event, history_items, task_id, webhook_id}` (`taskDeleted`
without history items), `X-Signature` = hex HMAC-SHA256 of the body with the webhook's
secret, asynchronously, each event tried up to five times; an event that fails five times
adds one to `health.fail_count` and is lost; 100 failures, or one 410, suspend the webhook;
a success sets it active and the count back to 0."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import uuid
from typing import Any

from werkzeug.wrappers import Request, Response

from tests.fakes.http_fake import json_response
from tests.fakes.webhook_delivery import Deliverer, Delivery

EVENTS = (
    "taskCreated",
    "taskUpdated",
    "taskDeleted",
    "taskPriorityUpdated",
    "taskStatusUpdated",
    "taskAssigneeUpdated",
    "taskDueDateUpdated",
    "taskTagUpdated",
    "taskMoved",
    "taskCommentPosted",
    "taskCommentUpdated",
    "taskTimeEstimateUpdated",
    "taskTimeTrackedUpdated",
    "listCreated",
    "listUpdated",
    "listDeleted",
    "folderCreated",
    "folderUpdated",
    "folderDeleted",
    "spaceCreated",
    "spaceUpdated",
    "spaceDeleted",
)
LOCATIONS = ("space_id", "folder_id", "list_id", "task_id")


def _err(status: int, err: str, code: str) -> Response:
    return json_response({"err": err, "ECODE": code}, status)


class ClickUpWebhooksMixin:
    webhooks: dict[str, dict[str, Any]]
    teams: dict[str, dict[str, Any]]
    tasks: dict[str, dict[str, Any]]

    def clock(self) -> float:
        raise NotImplementedError

    def _init_webhooks(self) -> None:
        self.webhooks = {}
        self.deliverer = Deliverer()
        #: tries per event (ClickUp: five) and the pause before the first retry
        self.webhook_attempts = 5
        self.webhook_retry_delay = 0.05

    def _webhooks_routes(self) -> list[tuple[str, Any]]:
        return [
            (r"/api/v2/team/([^/]+)/webhook", self._team_webhooks),
            (r"/api/v2/webhook/([^/]+)", self._webhook),
        ]

    # -- the API -----------------------------------------------------------------------------
    def _team_webhooks(self, request: Request, team: str) -> Response:
        if team not in self.teams:
            return _err(401, "Team not authorized", "OAUTH_027")
        if request.method == "GET":
            return json_response(
                {"webhooks": [w for w in self.webhooks.values() if w["team_id"] == team]}
            )
        if request.method != "POST":
            return _err(405, "Method not allowed", "APP_001")
        body = request.get_json(silent=True) or {}
        endpoint, events = body.get("endpoint"), body.get("events") or ["*"]
        if not isinstance(endpoint, str) or not endpoint.startswith(("https://", "http://")):
            return _err(400, "Webhook endpoint invalid", "OAUTH_025")
        if not isinstance(events, list) or any(e != "*" and e not in EVENTS for e in events):
            return _err(400, "Invalid events", "OAUTH_026")
        hook = {
            "id": str(uuid.uuid4()),
            "userid": 1,
            "team_id": team,
            "endpoint": endpoint,
            "client_id": "fake",
            "events": events,
            **{k: (str(body[k]) if body.get(k) is not None else None) for k in LOCATIONS},
            "health": {"status": "active", "fail_count": 0},
            "secret": secrets.token_hex(16).upper(),
        }
        self.webhooks[hook["id"]] = hook
        return json_response({"id": hook["id"], "webhook": hook})

    def _webhook(self, request: Request, hook_id: str) -> Response:
        hook = self.webhooks.get(hook_id)
        if hook is None:
            return _err(404, "Webhook not found", "OAUTH_040")
        if request.method == "DELETE":
            del self.webhooks[hook_id]
            return json_response({})
        if request.method != "PUT":
            return _err(405, "Method not allowed", "APP_001")
        body = request.get_json(silent=True) or {}
        for key in ("endpoint", "events"):
            if key in body:
                hook[key] = body[key]
        if body.get("status") == "active":
            hook["health"] = {"status": "active", "fail_count": 0}
        return json_response({"id": hook_id, "webhook": hook})

    # -- deliveries --------------------------------------------------------------------------
    def emit(self, event: str, task: dict[str, Any], history: list[dict[str, Any]] | None) -> None:
        """Deliver one event about `task` (its state at the event) to the matching webhooks."""
        where = {
            "task_id": task.get("id"),
            "list_id": (task.get("list") or {}).get("id"),
            "folder_id": (task.get("folder") or {}).get("id"),
            "space_id": (task.get("space") or {}).get("id"),
        }
        for hook in list(self.webhooks.values()):
            if hook["health"]["status"] == "suspended":
                continue
            if "*" not in hook["events"] and event not in hook["events"]:
                continue
            if any(hook[k] is not None and hook[k] != where[k] for k in LOCATIONS):
                continue
            payload: dict[str, Any] = {"event": event}
            if history is not None:
                payload["history_items"] = history
            payload.update(task_id=task["id"], webhook_id=hook["id"])
            body = json.dumps(payload, separators=(",", ":")).encode()
            signature = hmac.new(hook["secret"].encode(), body, hashlib.sha256).hexdigest()
            self.deliverer.send(
                Delivery(
                    hook["endpoint"],
                    body,
                    {"Content-Type": "application/json", "X-Signature": signature},
                    done=lambda status, h=hook: self._health(h, status),
                    attempts=self.webhook_attempts,
                    retry_delay=self.webhook_retry_delay,
                )
            )

    def history_item(self, task: dict[str, Any], field: str, after: Any = None) -> dict[str, Any]:
        return {
            "id": str(uuid.uuid4().int)[:19],
            "type": 1,
            "date": str(int(self.clock() * 1000)),
            "field": field,
            "parent_id": (task.get("list") or {}).get("id"),
            "data": {},
            "source": None,
            "user": {"id": 1, "username": "alice"},
            "before": None,
            "after": after,
        }

    def wait_deliveries(self, timeout: float = 10.0) -> None:
        self.deliverer.wait(timeout)

    def _health(self, hook: dict[str, Any], status: int | None) -> None:
        if status == 410:
            hook["health"] = {"status": "suspended", "fail_count": hook["health"]["fail_count"]}
        elif status is not None and 200 <= status < 300:
            hook["health"] = {"status": "active", "fail_count": 0}
        else:
            count = hook["health"]["fail_count"] + 1
            hook["health"] = {
                "status": "suspended" if count >= 100 else "failing",
                "fail_count": count,
            }
