"""A fake ClickUp API (v2 tasks; v3 Docs in clickup_docs) following the documented behaviour:
both Authorization forms; at most 100 tasks a page, the end said only by `last_page` (pages may
be short before it: `task_page_sizes`); comments 25 newest first paged by start/start_id, each
with `reply_count`, replies at `GET /comment/{id}/reply`; a new comment or reply does NOT bump
the task's `date_updated` (ClickUp does not say it does); the filters enforced
(date_updated_gt, include_closed, subtasks, archived, include_timl); `GET /task/{id}` with
404 `ITEM_013` "Task not found, deleted" for a deleted task and 401 `OAUTH_027` for an id the
token cannot see; 429 with X-RateLimit-* after `rate_limit` requests a window (or once, by
`throttle_next`, with or without those headers); no tombstones in any listing. Attachments
(clickup_attachments): on `GET /task/{id}` only, each file served at its `url`. Webhooks
(clickup_webhooks): created, listed, updated and deleted through the API; every task change
below is delivered, signed, to the matching ones."""

from __future__ import annotations

import copy
import itertools
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from werkzeug.wrappers import Request, Response

from tests.fakes.clickup_attachments import ClickUpAttachmentsMixin
from tests.fakes.clickup_comments import ClickUpCommentsMixin
from tests.fakes.clickup_docs import ClickUpDocsMixin
from tests.fakes.clickup_webhooks import ClickUpWebhooksMixin
from tests.fakes.http_fake import FakeServer, json_response

TASKS_PER_PAGE = 100


def _err(status: int, err: str, code: str) -> Response:
    return json_response({"err": err, "ECODE": code}, status)


def _flag(request: Request, name: str) -> bool:
    return request.args.get(name, "false").lower() == "true"


class ClickUpFake(
    ClickUpCommentsMixin,
    ClickUpDocsMixin,
    ClickUpAttachmentsMixin,
    ClickUpWebhooksMixin,
    FakeServer,
):
    def __init__(
        self,
        *,
        personal_token: str = "pk_42_TESTTOKEN",
        oauth_token: str = "oauth-access-token",
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self.personal_token = personal_token
        self.oauth_token = oauth_token
        self.clock = clock
        self.teams: dict[str, dict[str, Any]] = {}
        self.spaces: dict[str, dict[str, Any]] = {}
        self.folders: dict[str, dict[str, Any]] = {}
        self.lists: dict[str, dict[str, Any]] = {}
        self.tasks: dict[str, dict[str, Any]] = {}
        self.extra_lists: dict[str, set[str]] = {}
        self.deleted_tasks: set[str] = set()
        #: Sizes of successive task pages (cycled); None: 100 a page.
        self.task_page_sizes: list[int] | None = None
        #: True: every change gets the same timestamp (equal date_updated across pages).
        self.frozen = False
        self._init_docs()
        self._init_comments()
        self._init_attachments()
        self._init_webhooks()
        self.rate_limit: int | None = None
        self.rate_window_seconds = 60
        self._window_reset: int | None = None
        self._window_count = 0
        self._throttle: dict[str, str] | None = None
        self._now_ms = 1_700_000_000_000
        self._ids = itertools.count(1)

    # -- mutations ---------------------------------------------------------------------------
    def tick(self) -> str:
        if not self.frozen:
            self._now_ms += 1000
        return str(self._now_ms)

    def advance(self, seconds: int) -> None:
        """Move the fake's clock for `date_*` fields (not the rate-limit clock)."""
        self._now_ms += seconds * 1000

    def add_hierarchy(self, team: str, space: str, folder: str | None, list_id: str) -> None:
        self.teams.setdefault(team, {"id": team, "name": f"Team {team}"})
        self.spaces.setdefault(space, {"id": space, "name": f"Space {space}", "team_id": team})
        if folder:
            self.folders.setdefault(folder, {"id": folder, "name": f"F {folder}", "space": space})
        self.lists[list_id] = {"id": list_id, "name": f"List {list_id}",
                               "space": space, "folder": folder}  # fmt: skip

    def add_task(
        self,
        list_id: str,
        name: str,
        *,
        description: str = "",
        status: str = "to do",
        closed: bool = False,
        tags: Iterable[str] = (),
        custom_fields: Iterable[dict[str, Any]] = (),
        parent: str | None = None,
        also_in: Iterable[str] = (),
        task_id: str | None = None,
    ) -> str:
        tid = task_id or f"t{next(self._ids):05d}"
        now = self.tick()
        lst = self.lists[list_id]
        self.tasks[tid] = {
            "id": tid, "custom_id": None, "name": name, "text_content": description,
            "description": description, "markdown_description": description,
            "status": {"status": "complete" if closed else status,
                       "type": "closed" if closed else "open", "orderindex": 1},
            "date_created": now, "date_updated": now, "date_closed": now if closed else None,
            "archived": False, "parent": parent, "top_level_parent": parent,
            "creator": {"id": 1, "username": "alice"}, "assignees": [],
            "tags": [{"name": t} for t in tags], "priority": None,
            "url": f"https://app.clickup.com/t/{tid}",
            "list": {"id": list_id, "name": lst["name"]},
            "folder": {"id": lst["folder"]}, "space": {"id": lst["space"]},
            "custom_fields": list(custom_fields),
        }  # fmt: skip
        self.extra_lists[tid] = set(also_in)
        self.emit(
            "taskCreated", self.tasks[tid], [self.history_item(self.tasks[tid], "task_creation")]
        )
        return tid

    def add_raw_task(self, list_id: str, raw: dict[str, Any]) -> None:
        """A task exactly as given (e.g. malformed) in a list."""
        self.tasks[raw.get("id", f"raw{next(self._ids)}")] = {**raw, "list": {"id": list_id}}

    def rename_list(self, list_id: str, name: str) -> None:
        """A list renamed: its tasks show the new name, their date_updated does not move."""
        self.lists[list_id]["name"] = name

    def update_task(self, task_id: str, **changes: Any) -> None:
        task = self.tasks[task_id]
        if "description" in changes:
            text = changes.pop("description")
            task.update(description=text, markdown_description=text, text_content=text)
        if "status" in changes:
            task["status"] = {**task["status"], "status": changes.pop("status")}
        fields = [*changes] or ["content"]
        task.update(changes)
        task["date_updated"] = self.tick()
        self.emit("taskUpdated", task, [self.history_item(task, fields[0])])

    def archive_task(self, task_id: str) -> None:
        self.update_task(task_id, archived=True)

    def delete_task(self, task_id: str) -> None:
        task = self.tasks.pop(task_id)
        self.deleted_tasks.add(task_id)
        self.emit("taskDeleted", task, None)

    def move_task(self, task_id: str, list_id: str) -> None:
        """Move a task to another list (its home list; a move is a task update)."""
        lst = self.lists[list_id]
        self.update_task(task_id, list={"id": list_id, "name": lst["name"]},
                         folder={"id": lst["folder"]}, space={"id": lst["space"]})  # fmt: skip
        self.emit(
            "taskMoved",
            self.tasks[task_id],
            [self.history_item(self.tasks[task_id], "section_moved")],
        )

    def throttle_next(self, *, reset_in: float | None = 0.5) -> None:
        """The next request answers 429: with X-RateLimit-* (the window reopens `reset_in`
        seconds from now) or, with None, bare (no header says how long to wait)."""
        headers: dict[str, str] = {}
        if reset_in is not None:
            headers = {"X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "0",
                       "X-RateLimit-Reset": str(int(self.clock() + reset_in + 0.999))}  # fmt: skip
        self._throttle = headers

    # -- serving -----------------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        auth = request.headers.get("Authorization")
        if not auth:
            return _err(401, "Authorization header required", "OAUTH_017")
        if auth not in (self.personal_token, f"Bearer {self.oauth_token}"):
            return _err(401, "Oauth token not found", "OAUTH_019")
        with self._lock:
            throttle, self._throttle = self._throttle, None
        if throttle is not None:
            return json_response({"err": "Rate limit reached", "ECODE": "APP_002"}, 429, throttle)
        limited = self._rate_limit()
        if isinstance(limited, Response):
            return limited
        response = self._route(request)
        response.headers.update(limited)
        return response

    def _rate_limit(self) -> Response | dict[str, str]:
        if self.rate_limit is None:
            return {}
        now = self.clock()
        with self._lock:
            if self._window_reset is None or now >= self._window_reset:
                self._window_reset = int(now) + self.rate_window_seconds
                self._window_count = 0
            self._window_count += 1
            remaining = self.rate_limit - self._window_count
            headers = {"X-RateLimit-Limit": str(self.rate_limit),
                       "X-RateLimit-Remaining": str(max(0, remaining)),
                       "X-RateLimit-Reset": str(self._window_reset)}  # fmt: skip
        if remaining < 0:
            return json_response({"err": "Rate limit reached", "ECODE": "APP_002"}, 429, headers)
        return headers

    def _route(self, request: Request) -> Response:
        routes: list[tuple[str, Callable[..., Response]]] = [
            (r"/api/v2/team", lambda _: json_response({"teams": list(self.teams.values())})),
            (r"/api/v2/team/([^/]+)/space", self._spaces),
            (r"/api/v2/space/([^/]+)/folder", self._folders),
            (r"/api/v2/space/([^/]+)/list", lambda _, s: self._lists(space=s)),
            (r"/api/v2/folder/([^/]+)/list", lambda _, f: self._lists(folder=f)),
            (r"/api/v2/list/([^/]+)/task", self._tasks),
            (r"/api/v2/task/([^/]+)", self._task),
            *self._comments_routes(),
            *self._docs_routes(),
            *self._attachments_routes(),
            *self._webhooks_routes(),
        ]
        for pattern, handler in routes:
            if match := re.fullmatch(pattern, request.path):
                return handler(request, *match.groups())
        return _err(404, f"Route not found: {request.path}", "APP_001")

    def _spaces(self, _: Request, team: str) -> Response:
        if team not in self.teams:
            return _err(401, "Team not authorized", "OAUTH_027")
        return json_response({"spaces": [s for s in self.spaces.values() if s["team_id"] == team]})

    def _folders(self, _: Request, space: str) -> Response:
        folders = [
            {**f, "lists": [v for v in self.lists.values() if v["folder"] == f["id"]]}
            for f in self.folders.values()
            if f["space"] == space
        ]
        return json_response({"folders": folders})

    def _lists(self, *, space: str | None = None, folder: str | None = None) -> Response:
        if folder is not None:
            found = [lst for lst in self.lists.values() if lst["folder"] == folder]
        else:
            found = [v for v in self.lists.values() if v["space"] == space and not v["folder"]]
        return json_response({"lists": found})

    def _tasks(self, request: Request, list_id: str) -> Response:
        if list_id not in self.lists:
            return _err(401, "Team not authorized", "OAUTH_027")
        timl, archived = _flag(request, "include_timl"), _flag(request, "archived")
        closed, subtasks = _flag(request, "include_closed"), _flag(request, "subtasks")
        since = int(request.args.get("date_updated_gt", "-1"))
        found = [
            task
            for tid, task in self.tasks.items()
            if (task.get("list", {}).get("id") == list_id
                or (timl and list_id in self.extra_lists.get(tid, ())))
            and bool(task.get("archived")) == archived
            and (closed or task.get("status", {}).get("type") != "closed")
            and (subtasks or not task.get("parent"))
            and _int(task.get("date_updated")) > since
        ]  # fmt: skip
        if request.args.get("order_by") == "updated":
            found.sort(key=lambda t: _int(t.get("date_updated")), reverse=True)
        page = int(request.args.get("page", "0"))
        sizes = self.task_page_sizes or [TASKS_PER_PAGE]
        start = sum(sizes[i % len(sizes)] for i in range(page))
        end = start + sizes[page % len(sizes)]
        served = [self._served(request, t) for t in found[start:end]]
        return json_response({"tasks": served, "last_page": end >= len(found)})

    def _served(self, request: Request, task: dict[str, Any]) -> dict[str, Any]:
        task = copy.deepcopy(task)
        home = task.get("list") or {}
        if home.get("id") in self.lists:  # the list's current name
            home["name"] = self.lists[home["id"]]["name"]
        if not _flag(request, "include_markdown_description"):
            task.pop("markdown_description", None)
        return task

    def _missing_task(self, task_id: str) -> Response | None:
        if task_id in self.deleted_tasks:
            return _err(404, "Task not found, deleted", "ITEM_013")
        if task_id not in self.tasks:
            return _err(401, "Team not authorized", "OAUTH_027")
        return None

    def _task(self, request: Request, task_id: str) -> Response:
        """GET /task/{id}: the task wherever it lives now, archived ones too, with its
        `attachments` array."""
        if (missing := self._missing_task(task_id)) is not None:
            return missing
        task = self._served(request, self.tasks[task_id])
        return json_response({**task, "attachments": self.task_attachments(task_id)})


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
