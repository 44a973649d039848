"""ClickUp: one document per task (v2 API) and one per Docs page (v3 API).

Full pull: every open and closed task and subtask of the selected lists -> `full=True`, so a
deleted or archived task is found by its absence. Incremental pull: the same listing filtered
by `date_updated_gt` (high-water mark minus an overlap), plus a pass with `archived=true` whose
tasks are reported deleted. Docs pages are cheap (one request per doc) and are diffed against
the versions kept in the cursor on every pull.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from knowledge_platform.connectors.base import NOTHING_KNOWN, Known, PullResult, Skipped
from knowledge_platform.connectors.clickup.docs import pull_docs
from knowledge_platform.connectors.clickup.render import (
    MalformedTask,
    check_task,
    description_of,
    is_decision,
    ms_to_date,
    summary_of,
    task_markdown,
)
from knowledge_platform.connectors.clickup.settings import ClickUpSettings
from knowledge_platform.connectors.http import (
    HttpClient,
    HttpConnector,
    ratelimit_reset_wait,
)
from knowledge_platform.errors import SourceError
from knowledge_platform.models import Document

TASKS_PER_PAGE = 100
COMMENTS_PER_PAGE = 25
_MAX_PAGES = 10_000


def auth_header(token: str, kind: str) -> str:
    if token.startswith("Bearer "):
        return token
    if kind == "oauth" or (kind == "auto" and not token.startswith("pk_")):
        return f"Bearer {token}"
    return token


def _items(data: Any, key: str, where: str) -> list[Any]:
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise SourceError(f"clickup: {where} answered without a {key!r} list")
    return items


class ClickUpConnector(HttpConnector):
    name = "clickup"
    settings_model = ClickUpSettings
    settings: ClickUpSettings

    @property
    def cfg(self) -> ClickUpSettings:
        return self.settings

    def pull(
        self, cursor: dict[str, Any] | None, *, full: bool = False, known: Known = NOTHING_KNOWN
    ) -> PullResult:
        cfg = self.cfg
        token = cfg.resolve_secret("token", owner="clickup", what="ClickUp API token")
        full = full or not cursor or "high_water_ms" not in cursor
        cursor = cursor or {}
        client = HttpClient.from_settings(
            "clickup",
            cfg,
            headers={"Authorization": auth_header(token, cfg.token_kind)},
            rate_limit_wait=ratelimit_reset_wait,
            auth_hint=f"check the ClickUp token in {cfg.secret('token')} "
            f"(token_kind={cfg.token_kind})",
            sleep=self._sleep,
            clock=self._clock,
            transport=self._transport,
        )
        with client as http:
            return self._pull(http, cursor, full)

    def _pull(self, http: HttpClient, cursor: dict[str, Any], full: bool) -> PullResult:
        cfg = self.cfg
        lists = self._resolve_lists(http)
        known_lists = set(cursor.get("lists") or [])
        since = None if full else int(cursor["high_water_ms"]) - cfg.overlap_seconds * 1000
        high_water = int(cursor.get("high_water_ms") or 0)
        tasks: dict[str, dict[str, Any]] = {}
        skipped: dict[str, Skipped] = {}
        for list_id in lists:
            # A list first seen on an incremental pull is read whole: its tasks are all new.
            list_since = since if list_id in known_lists else None
            for raw in self._list_tasks(http, list_id, list_since, archived=False):
                try:
                    tid, updated = check_task(raw)
                except MalformedTask as exc:
                    sid = str(raw.get("id") or "?") if isinstance(raw, dict) else "?"
                    skipped[sid] = Skipped(source_id=sid, reason=f"list {list_id}: {exc}")
                    continue
                tasks.setdefault(tid, raw)  # a task in several lists counts once
                high_water = max(high_water, updated)
        deleted: set[str] = set()
        if not full:
            for list_id in lists:
                if list_id not in known_lists:
                    continue
                for raw in self._list_tasks(http, list_id, since, archived=True):
                    if isinstance(raw, dict) and isinstance(raw.get("id"), str):
                        deleted.add(raw["id"])
                        tasks.pop(raw["id"], None)
                        high_water = max(high_water, _ms(raw.get("date_updated")))
        documents: list[Document] = []
        for tid, task in tasks.items():
            try:
                documents.append(self._task_document(http, task))
            except (TypeError, ValueError, KeyError, AttributeError) as exc:
                skipped[tid] = Skipped(source_id=tid, reason=f"cannot render task: {exc}")
        old_pages: dict[str, str] = cursor.get("doc_pages") or {}
        page_docs, page_versions, page_skipped = pull_docs(
            http, self.cfg, self.scope, old_pages, full
        )
        documents.extend(page_docs)
        if not full:
            deleted.update(sid for sid in old_pages if sid not in page_versions)
        return PullResult(
            documents=documents,
            full=full,
            deleted=sorted(deleted),
            skipped=[*skipped.values(), *page_skipped],
            cursor={"high_water_ms": high_water, "lists": lists, "doc_pages": page_versions},
            requests=http.requests,
        )

    # -- hierarchy and listings ---------------------------------------------------------------
    def _resolve_lists(self, http: HttpClient) -> list[str]:
        cfg, base = self.cfg, self.cfg.base_url
        lists = list(cfg.list_ids)
        for folder in cfg.folder_ids:
            lists += [lst["id"] for lst in self._get_items(http, f"/folder/{folder}/list", "lists")]
        spaces = list(cfg.space_ids)
        if not (cfg.list_ids or cfg.folder_ids or cfg.space_ids):
            teams = [cfg.team_id] if cfg.team_id else [
                t["id"] for t in _items(http.get_json(f"{base}/team"), "teams", "GET /team")
            ]  # fmt: skip
            for team in teams:
                spaces += [s["id"] for s in self._get_items(http, f"/team/{team}/space", "spaces")]
        for space in spaces:
            for folder in self._get_items(http, f"/space/{space}/folder", "folders"):
                lists += [lst["id"] for lst in folder.get("lists") or []]
            lists += [lst["id"] for lst in self._get_items(http, f"/space/{space}/list", "lists")]
        return list(dict.fromkeys(str(x) for x in lists))

    def _get_items(self, http: HttpClient, path: str, key: str) -> list[dict[str, Any]]:
        data = http.get_json(self.cfg.base_url + path, params={"archived": "false"})
        return [i for i in _items(data, key, f"GET {path}") if isinstance(i, dict) and "id" in i]

    def _list_tasks(
        self, http: HttpClient, list_id: str, since: int | None, *, archived: bool
    ) -> Iterator[Any]:
        params: dict[str, Any] = {
            "subtasks": "true",
            "include_closed": "true",
            "include_markdown_description": "true",
            "include_timl": "true",
            "order_by": "updated",
        }
        if since is not None:
            params["date_updated_gt"] = since
        if archived:
            params["archived"] = "true"
        path = f"/list/{list_id}/task"
        for page in range(_MAX_PAGES):
            data = http.get_json(self.cfg.base_url + path, params={**params, "page": page})
            tasks = _items(data, "tasks", f"GET {path}")
            yield from tasks
            if data.get("last_page") is True or len(tasks) < TASKS_PER_PAGE:
                return
        raise SourceError(f"clickup: GET {path} did not reach last_page in {_MAX_PAGES} pages")

    def _comments(self, http: HttpClient, task_id: str) -> list[dict[str, Any]]:
        """Newest first, 25 a page; the next page starts at the oldest one seen."""
        path = f"/task/{task_id}/comment"
        found: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while len(found) < self.cfg.max_comments:
            page = _items(http.get_json(self.cfg.base_url + path, params=params), "comments", path)
            found.extend(c for c in page if isinstance(c, dict))
            if len(page) < COMMENTS_PER_PAGE or not isinstance(page[-1], dict):
                break
            oldest = page[-1]
            if oldest.get("date") is None or oldest.get("id") is None:
                break
            params = {"start": oldest["date"], "start_id": oldest["id"]}
        return found[: self.cfg.max_comments]

    # -- documents ---------------------------------------------------------------------------
    def _task_document(self, http: HttpClient, task: dict[str, Any]) -> Document:
        comments = self._comments(http, task["id"]) if self.cfg.max_comments else []
        status = (task.get("status") or {}).get("status") or "unknown"
        extra: dict[str, Any] = {
            "chunking": "whole",
            "status": status,
            "list_id": (task.get("list") or {}).get("id"),
        }
        if task.get("parent"):
            extra["parent"] = task["parent"]
        kind: Literal["task", "decision"] = "task"
        if is_decision(task, self.cfg.decision_tags):
            kind = "decision"
            summary = summary_of(description_of(task), fallback=task["name"])
            extra["decision"] = {"status": status, "summary": summary}
        return Document(
            source=self.name,
            source_id=task["id"],
            scope=self.scope,
            title=task["name"].strip(),
            text=task_markdown(task, comments),
            kind=kind,
            url=task.get("url") or f"{self.cfg.app_url}/t/{task['id']}",
            date=ms_to_date(task["date_updated"]),
            version=str(task["date_updated"]),
            confidentiality=self.cfg.confidentiality,
            extra=extra,
        )


def _ms(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
