"""ClickUp task and Docs page -> Document: status line, description, custom fields resolved to
option names, comments with their threaded replies. Pure functions over the API's JSON."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

from knowledge_platform.models import Document

if TYPE_CHECKING:
    from knowledge_platform.connectors.clickup.settings import ClickUpSettings

_HEADING = re.compile(r"^\s{0,3}#+\s*")


class MalformedTask(ValueError):
    """A task object lacks what a document needs (id, name, date_updated)."""


def ms_to_date(value: Any) -> dt.date | None:
    try:
        ms = int(value)
    except (TypeError, ValueError):
        return None
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC).date()


def check_task(task: Any) -> tuple[str, int]:
    """(id, date_updated ms) of a usable task; raises MalformedTask saying what is wrong."""
    if not isinstance(task, dict):
        raise MalformedTask("task is not a JSON object")
    tid = task.get("id")
    if not isinstance(tid, str) or not tid:
        raise MalformedTask("task has no id")
    if not isinstance(task.get("name"), str) or not task["name"].strip():
        raise MalformedTask("task has no name")
    try:
        updated = int(task.get("date_updated"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise MalformedTask(f"date_updated {task.get('date_updated')!r} is not unix ms") from None
    return tid, updated


def _options(field: dict[str, Any]) -> list[dict[str, Any]]:
    options = (field.get("type_config") or {}).get("options") or []
    return [o for o in options if isinstance(o, dict)]


def _option_name(option: dict[str, Any]) -> str:
    return str(option.get("name") or option.get("label") or option.get("id") or "")


def _resolve_option(field: dict[str, Any], value: Any) -> str:
    """drop_down value: an orderindex (int or numeric string) or an option id."""
    for option in _options(field):
        if option.get("id") == value:
            return _option_name(option)
        try:
            if value is not None and int(option.get("orderindex", -1)) == int(value):
                return _option_name(option)
        except (TypeError, ValueError):
            continue
    return str(value)


def field_value(field: dict[str, Any]) -> str | None:
    """A custom field's value as text, or None when unset or not worth showing."""
    if "value" not in field:
        return None
    value, kind = field["value"], field.get("type")
    if value is None or value == "" or value == []:
        return None
    if kind == "drop_down":
        return _resolve_option(field, value)
    if kind == "labels":
        ids = value if isinstance(value, list) else [value]
        names = {o.get("id"): _option_name(o) for o in _options(field)}
        return ", ".join(names.get(i, str(i)) for i in ids)
    if kind == "date":
        day = ms_to_date(value)
        return day.isoformat() if day else str(value)
    if kind == "checkbox":
        return "yes" if value in (True, "true", "1", 1) else "no"
    if kind in ("users", "tasks") and isinstance(value, list):
        return ", ".join(str(v.get("username") or v.get("name") or v.get("id")) for v in value)
    if kind == "location" and isinstance(value, dict):
        return str(value.get("formatted_address") or "") or None
    if kind == "progress" and isinstance(value, dict):
        return f"{value.get('percent_completed', 0)}%"
    if isinstance(value, str | int | float | bool):
        return str(value)
    return None


def _names(items: Any, key: str) -> list[str]:
    if not isinstance(items, list):
        return []
    return [str(i[key]) for i in items if isinstance(i, dict) and i.get(key)]


def _comment_line(comment: dict[str, Any]) -> str | None:
    text = str(comment.get("comment_text") or "").strip()
    if not text:
        return None
    user = (comment.get("user") or {}).get("username") or "someone"
    day = ms_to_date(comment.get("date"))
    when = f" ({day.isoformat()})" if day else ""
    return f"- **{user}**{when}: " + text.replace("\n", "\n  ")


def summary_of(description: str, fallback: str, limit: int = 300) -> str:
    for paragraph in re.split(r"\n\s*\n", description):
        text = " ".join(_HEADING.sub("", line) for line in paragraph.splitlines()).strip()
        if text:
            return text if len(text) <= limit else text[: limit - 1] + "…"
    return fallback


def task_markdown(task: dict[str, Any], comments: Iterable[dict[str, Any]]) -> str:
    """Status line, description, custom fields and comments (oldest first) as markdown."""
    status = (task.get("status") or {}).get("status") or "unknown"
    facts = [f"Status: {status}"]
    if (task.get("list") or {}).get("name"):
        facts.append(f"List: {task['list']['name']}")
    if tags := _names(task.get("tags"), "name"):
        facts.append("Tags: " + ", ".join(tags))
    if people := _names(task.get("assignees"), "username"):
        facts.append("Assignees: " + ", ".join(people))
    if (task.get("priority") or {}).get("priority"):
        facts.append(f"Priority: {task['priority']['priority']}")
    if due := ms_to_date(task.get("due_date")):
        facts.append(f"Due: {due.isoformat()}")
    if task.get("parent"):
        facts.append(f"Parent task: {task['parent']}")
    parts = [" · ".join(facts)]
    description = description_of(task)
    if description:
        parts.append(description)
    fields = [
        f"- {field.get('name') or field.get('id')}: {value}"
        for field in task.get("custom_fields") or []
        if isinstance(field, dict) and (value := field_value(field)) is not None
    ]
    if fields:
        parts.append("## Fields\n" + "\n".join(fields))
    lines = []
    for comment in reversed(list(comments)):
        if line := _comment_line(comment):
            lines.append(line)
        replies = comment.get("replies") or []
        lines += ["  " + line.replace("\n", "\n  ") for r in replies if (line := _comment_line(r))]
    if lines:
        parts.append("## Comments\n" + "\n".join(lines))
    return "\n\n".join(parts)


def with_current_facts(known: Document, task: dict[str, Any]) -> Document | None:
    """The task's indexed document with the status line `task` renders now: a renamed list
    (or tag, or assignee) does not move the task's `date_updated`, so its document is
    re-rendered without reading its thread again. `known` itself when the line is unchanged;
    None when the rest of `known` is not what `task` renders (the task must be read)."""
    fresh = task_markdown(task, [])
    head, _, _ = fresh.partition("\n\n")
    old_head, _, _ = known.text.partition("\n\n")
    if head == old_head:
        return known
    tail, old_tail = fresh[len(head) :], known.text[len(old_head) :]
    comments = old_tail[len(tail) :]
    if not old_tail.startswith(tail) or (comments and not comments.startswith("\n\n## Comments\n")):
        return None
    return known.model_copy(update={"text": head + old_tail})


def description_of(task: dict[str, Any]) -> str:
    for key in ("markdown_description", "description", "text_content"):
        value = task.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def is_decision(task: dict[str, Any], decision_tags: Iterable[str]) -> bool:
    wanted = {t.lower() for t in decision_tags}
    return any(name.lower() in wanted for name in _names(task.get("tags"), "name"))


def flatten_pages(pages: Any) -> list[dict[str, Any]]:
    """Docs v3 page tree (nested `pages`) -> flat list, parents before children."""
    out: list[dict[str, Any]] = []
    stack = list(reversed(pages if isinstance(pages, list) else []))
    while stack:
        page = stack.pop()
        if not isinstance(page, dict):
            continue
        out.append(page)
        stack.extend(reversed(page.get("pages") or []))
    return out


def newest_comment_ms(comments: Iterable[dict[str, Any]]) -> int:
    """The date (unix ms) of the newest comment or reply in a thread, 0 without one."""
    dates = [0]
    for comment in comments:
        for item in [comment, *(comment.get("replies") or [])]:
            try:
                dates.append(int(item.get("date")))
            except (TypeError, ValueError):
                continue
    return max(dates)


def task_document(cfg: ClickUpSettings, scope: str, task: dict[str, Any],
                  comments: list[dict[str, Any]]) -> Document:  # fmt: skip
    status = (task.get("status") or {}).get("status") or "unknown"
    extra: dict[str, Any] = {
        "chunking": "whole",
        "status": status,
        "list_id": (task.get("list") or {}).get("id"),
    }
    if task.get("parent"):
        extra["parent"] = task["parent"]
    if newest := newest_comment_ms(comments):
        extra["comment_ms"] = newest
    kind: Literal["task", "decision"] = "task"
    if is_decision(task, cfg.decision_tags):
        kind = "decision"
        summary = summary_of(description_of(task), fallback=task["name"])
        extra["decision"] = {"status": status, "summary": summary}
    return Document(
        source="clickup",
        source_id=task["id"],
        scope=scope,
        title=task["name"].strip(),
        text=task_markdown(task, comments),
        kind=kind,
        url=task.get("url") or f"{cfg.app_url}/t/{task['id']}",
        date=ms_to_date(task["date_updated"]),
        version=str(task["date_updated"]),
        confidentiality=cfg.confidentiality,
        extra=extra,
    )


def page_title(doc_name: str, page_name: Any) -> str:
    """ "Doc / Page", or the doc's name alone when the page repeats it or has none."""
    page = str(page_name or "").strip()
    return doc_name if not page or page == doc_name else f"{doc_name} / {page}"


def page_document(cfg: ClickUpSettings, scope: str, workspace: str, doc_id: str,
                  doc_name: str, page: dict[str, Any]) -> Document:  # fmt: skip
    return Document(
        source="clickup",
        source_id=f"doc:{doc_id}:{page['id']}",
        scope=scope,
        title=page_title(doc_name, page.get("name")),
        text=str(page.get("content") or "").strip(),
        kind="doc",
        url=f"{cfg.app_url}/{workspace}/v/dc/{doc_id}/{page['id']}",
        date=ms_to_date(page.get("date_updated")),
        version=str(page.get("date_updated") or ""),
        confidentiality=cfg.confidentiality,
        extra={"doc_id": doc_id, "page_id": page["id"], "workspace": workspace},
    )
