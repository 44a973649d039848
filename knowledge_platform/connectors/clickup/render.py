"""ClickUp task and Docs page -> markdown: status line, description, custom fields resolved to
option names, key comments. Pure functions over the API's JSON."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any

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
    lines = [line for c in reversed(list(comments)) if (line := _comment_line(c))]
    if lines:
        parts.append("## Comments\n" + "\n".join(lines))
    return "\n\n".join(parts)


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
