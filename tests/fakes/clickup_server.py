"""A fake ClickUp API (v2 tasks, v3 Docs) following the documented behaviour: both
Authorization forms, 100 tasks a page with `last_page`, comments 25 newest first paged by
start/start_id, the filters enforced (date_updated_gt, include_closed, subtasks, archived,
include_timl), 429 with X-RateLimit-* after `rate_limit` requests a window, and no tombstones."""

from __future__ import annotations

import copy
import itertools
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from werkzeug.wrappers import Request, Response

from tests.fakes.http_fake import FakeServer, json_response

TASKS_PER_PAGE = 100
COMMENTS_PER_PAGE = 25


def _err(status: int, err: str, code: str) -> Response:
    return json_response({"err": err, "ECODE": code}, status)


def _flag(request: Request, name: str) -> bool:
    return request.args.get(name, "false").lower() == "true"


class ClickUpFake(FakeServer):
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
        self.comments: dict[str, list[dict[str, Any]]] = {}
        self.docs: dict[str, dict[str, Any]] = {}
        self.rate_limit: int | None = None
        self.rate_window_seconds = 60
        self._window_reset: int | None = None
        self._window_count = 0
        self._now_ms = 1_700_000_000_000
        self._ids = itertools.count(1)

    # -- mutations ---------------------------------------------------------------------------
    def tick(self) -> str:
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
        return tid

    def add_raw_task(self, list_id: str, raw: dict[str, Any]) -> None:
        """A task exactly as given (e.g. malformed) in a list."""
        self.tasks[raw.get("id", f"raw{next(self._ids)}")] = {**raw, "list": {"id": list_id}}

    def update_task(self, task_id: str, **changes: Any) -> None:
        task = self.tasks[task_id]
        if "description" in changes:
            text = changes.pop("description")
            task.update(description=text, markdown_description=text, text_content=text)
        if "status" in changes:
            task["status"] = {**task["status"], "status": changes.pop("status")}
        task.update(changes)
        task["date_updated"] = self.tick()

    def archive_task(self, task_id: str) -> None:
        self.update_task(task_id, archived=True)

    def delete_task(self, task_id: str) -> None:
        del self.tasks[task_id]

    def add_comment(self, task_id: str, text: str, user: str = "bob") -> str:
        cid = str(next(self._ids) + 1000)
        self.comments.setdefault(task_id, []).append({
            "id": cid, "comment": [{"text": text, "attributes": {}}], "comment_text": text,
            "user": {"id": 7, "username": user, "email": f"{user}@example.com"},
            "resolved": False, "assignee": None, "assigned_by": None, "reactions": [],
            "date": self.tick(),
        })  # fmt: skip
        return cid

    def add_doc(self, workspace: str, doc_id: str, name: str) -> None:
        now = self.tick()
        self.docs[doc_id] = {"id": doc_id, "name": name, "workspace_id": workspace,
                             "date_created": now, "date_updated": now, "deleted": False,
                             "archived": False, "pages": []}  # fmt: skip

    def add_page(self, doc_id: str, page_id: str, name: str, content: str,
                 parent: str | None = None) -> None:  # fmt: skip
        now = self.tick()
        page = {"id": page_id, "doc_id": doc_id, "parent_page_id": parent, "name": name,
                "sub_title": None, "content": content, "date_created": now, "date_updated": now,
                "archived": False, "deleted": False, "pages": []}  # fmt: skip
        home = self._find_page(doc_id, parent) if parent else self.docs[doc_id]
        home["pages"].append(page)

    def update_page(self, doc_id: str, page_id: str, content: str) -> None:
        self._find_page(doc_id, page_id).update(content=content, date_updated=self.tick())

    def delete_page(self, doc_id: str, page_id: str) -> None:
        def prune(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [{**p, "pages": prune(p["pages"])} for p in pages if p["id"] != page_id]

        self.docs[doc_id]["pages"] = prune(self.docs[doc_id]["pages"])

    def _find_page(self, doc_id: str, page_id: str) -> dict[str, Any]:
        stack = list(self.docs[doc_id]["pages"])
        while stack:
            page = stack.pop()
            if page["id"] == page_id:
                return page
            stack.extend(page["pages"])
        raise KeyError(page_id)

    # -- serving -----------------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        auth = request.headers.get("Authorization")
        if not auth:
            return _err(401, "Authorization header required", "OAUTH_017")
        if auth not in (self.personal_token, f"Bearer {self.oauth_token}"):
            return _err(401, "Oauth token not found", "OAUTH_019")
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
            (r"/api/v2/task/([^/]+)/comment", self._comments),
            (r"/api/v3/workspaces/([^/]+)/docs/([^/]+)", self._doc),
            (r"/api/v3/workspaces/([^/]+)/docs/([^/]+)/(pages)", self._doc),
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
        served = copy.deepcopy(found[page * TASKS_PER_PAGE : (page + 1) * TASKS_PER_PAGE])
        if not _flag(request, "include_markdown_description"):
            for task in served:
                task.pop("markdown_description", None)
        last = (page + 1) * TASKS_PER_PAGE >= len(found)
        return json_response({"tasks": served, "last_page": last})

    def _comments(self, request: Request, task_id: str) -> Response:
        if task_id not in self.tasks:
            return _err(404, "Task not found", "ITEM_015")
        ordered = sorted(self.comments.get(task_id, []),
                         key=lambda c: (int(c["date"]), int(c["id"])), reverse=True)  # fmt: skip
        start, start_id = request.args.get("start"), request.args.get("start_id")
        if start is not None and start_id is not None:
            mark = (int(start), int(start_id))
            ordered = [c for c in ordered if (int(c["date"]), int(c["id"])) < mark]
        return json_response({"comments": ordered[:COMMENTS_PER_PAGE]})

    def _doc(self, request: Request, workspace: str, doc_id: str, pages: str = "") -> Response:
        doc = self.docs.get(doc_id)
        if doc is None or doc["workspace_id"] != workspace:
            return _err(404, "Doc not found", "DOCS_404")
        if not pages:
            return json_response({k: v for k, v in doc.items() if k != "pages"})
        markdown = request.args.get("content_format", "text/md") == "text/md"

        def served(tree: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [
                {**p, "pages": served(p["pages"]),
                 "content": p["content"] if markdown else re.sub(r"(?m)^#+ ", "", p["content"])}
                for p in tree
            ]  # fmt: skip

        return json_response(served(doc["pages"]))


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
