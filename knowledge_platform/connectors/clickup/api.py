"""The ClickUp API calls the connector makes, over the one HTTP client: the hierarchy, task
listings paged to `last_page`, one task, a comment thread with its replies, the Docs v3
listing paged by `next_cursor`, a doc's metadata and its page tree. Statuses that say
"gone" (404) come back as None; everything else that fails raises SourceError."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx

from knowledge_platform.connectors.clickup.settings import ClickUpSettings
from knowledge_platform.connectors.http import HttpClient
from knowledge_platform.errors import SourceError

COMMENTS_PER_PAGE = 25
DOCS_PER_PAGE = 100
_MAX_PAGES = 10_000
#: Empty pages in a row that still say `last_page: false` before the listing is called broken.
_MAX_EMPTY_PAGES = 3
#: Docs v3 `parent_type` names by the doc object's numeric `parent.type`.
PARENT_TYPES = {4: "SPACE", 5: "FOLDER", 6: "LIST", 7: "EVERYTHING", 12: "WORKSPACE"}


class TaskGone(Exception):
    """The task answered 404 (deleted) while it was being read."""


def _json(response: httpx.Response, where: str) -> Any:
    try:
        return response.json()
    except ValueError:
        raise SourceError(
            f"clickup: {where} returned malformed JSON (HTTP {response.status_code})"
        ) from None


def items(data: Any, key: str, where: str) -> list[Any]:
    found = data.get(key) if isinstance(data, dict) else None
    if not isinstance(found, list):
        raise SourceError(f"clickup: {where} answered without a {key!r} list")
    return found


class ClickUpApi:
    def __init__(self, http: HttpClient, cfg: ClickUpSettings) -> None:
        self.http = http
        self.cfg = cfg

    @property
    def requests(self) -> int:
        return self.http.requests

    def _v2(self, path: str, params: dict[str, Any] | None = None) -> Any:
        return self.http.get_json(self.cfg.base_url + path, params=params)

    # -- hierarchy ---------------------------------------------------------------------------
    def teams(self) -> list[str]:
        return [str(t["id"]) for t in items(self._v2("/team"), "teams", "GET /team")
                if isinstance(t, dict) and "id" in t]  # fmt: skip

    def children(self, path: str, key: str) -> list[dict[str, Any]]:
        """Spaces, folders or lists under `path` (archived ones left out)."""
        data = self._v2(path, {"archived": "false"})
        return [i for i in items(data, key, f"GET {path}") if isinstance(i, dict) and "id" in i]

    # -- tasks -------------------------------------------------------------------------------
    def tasks(self, list_id: str) -> Iterator[Any]:
        """Every open and closed task and subtask of a list (also those that live in several
        lists); pages until `last_page` is true — a short page proves nothing."""
        params: dict[str, Any] = {"subtasks": "true", "include_closed": "true",
                                  "include_markdown_description": "true",
                                  "include_timl": "true", "order_by": "updated"}  # fmt: skip
        path = f"/list/{list_id}/task"
        empty = page = 0
        for page in range(_MAX_PAGES):
            data = self._v2(path, {**params, "page": page})
            tasks = items(data, "tasks", f"GET {path}")
            yield from tasks
            if data.get("last_page") is True or ("last_page" not in data and not tasks):
                return
            empty = 0 if tasks else empty + 1
            if empty >= _MAX_EMPTY_PAGES:
                break
        raise SourceError(f"clickup: GET {path} never reached last_page (page {page})")

    def task(self, task_id: str) -> tuple[int, dict[str, Any] | None]:
        """(HTTP status, task) for one task wherever it lives now; archived tasks too."""
        url = f"{self.cfg.base_url}/task/{task_id}"
        response = self.http.get(url, params={"include_markdown_description": "true"},
                                 allow=(401, 403, 404))  # fmt: skip
        if response.status_code != 200:
            return response.status_code, None
        data = _json(response, f"GET /task/{task_id}")
        return 200, data if isinstance(data, dict) else None

    def thread(self, task_id: str) -> list[dict[str, Any]]:
        """The newest `max_comments` comments (newest first, 25 a page, the next page from the
        oldest seen), each with its threaded `replies`. Raises TaskGone on a 404."""
        path = f"/task/{task_id}/comment"
        found: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while len(found) < self.cfg.max_comments:
            response = self.http.get(self.cfg.base_url + path, params=params, allow=(404,))
            if response.status_code == 404:
                raise TaskGone(task_id)
            page = items(_json(response, f"GET {path}"), "comments", f"GET {path}")
            found.extend(c for c in page if isinstance(c, dict))
            if len(page) < COMMENTS_PER_PAGE or not isinstance(page[-1], dict):
                break
            oldest = page[-1]
            if oldest.get("date") is None or oldest.get("id") is None:
                break
            params = {"start": oldest["date"], "start_id": oldest["id"]}
        found = found[: self.cfg.max_comments]
        for comment in found:
            if _count(comment.get("reply_count")) > 0 and comment.get("id") is not None:
                rpath = f"/comment/{comment['id']}/reply"
                replies = items(self._v2(rpath), "comments", f"GET {rpath}")
                comment["replies"] = [r for r in replies if isinstance(r, dict)]
        return found

    # -- docs (v3) ---------------------------------------------------------------------------
    def _docs_url(self, workspace: str, suffix: str = "") -> str:
        return f"{self.cfg.docs_base_url}/workspaces/{workspace}/docs{suffix}"

    def docs(self, workspace: str, parent_id: str, parent_type: str) -> Iterator[dict[str, Any]]:
        """Live docs whose parent is this space, folder or list; pages by `next_cursor` until
        it is absent or empty."""
        params: dict[str, Any] = {"parent_id": parent_id, "parent_type": parent_type,
                                  "deleted": "false", "archived": "false",
                                  "limit": DOCS_PER_PAGE}  # fmt: skip
        where = f"GET /workspaces/{workspace}/docs ({parent_type} {parent_id})"
        for _ in range(_MAX_PAGES):
            data = self.http.get_json(self._docs_url(workspace), params=params)
            yield from (d for d in items(data, "docs", where) if isinstance(d, dict) and "id" in d)
            cursor = data.get("next_cursor")
            if not cursor:
                return
            params = {**params, "cursor": cursor}
        raise SourceError(f"clickup: {where} never ended (no empty next_cursor)")

    def doc(self, workspace: str, doc_id: str) -> dict[str, Any] | None:
        """A doc's metadata (deleted and archived ones say so); None when it answers 404."""
        response = self.http.get(self._docs_url(workspace, f"/{doc_id}"), allow=(404,))
        if response.status_code == 404:
            return None
        data = _json(response, f"GET doc {doc_id}")
        if not isinstance(data, dict):
            raise SourceError(f"clickup: GET doc {doc_id} answered without an object")
        return data

    def pages(self, workspace: str, doc_id: str) -> list[Any] | None:
        """The doc's whole page tree as markdown; None when it answers 404. No
        max_page_depth: -1 has been seen to answer 500, and leaving it out gives the tree."""
        response = self.http.get(self._docs_url(workspace, f"/{doc_id}/pages"),
                                 params={"content_format": "text/md"}, allow=(404,))  # fmt: skip
        if response.status_code == 404:
            return None
        tree = _json(response, f"GET doc {doc_id} pages")
        if isinstance(tree, dict):
            tree = tree.get("pages")
        if not isinstance(tree, list):
            raise SourceError(f"clickup: GET doc {doc_id} pages answered without a page list")
        return tree


def _count(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
