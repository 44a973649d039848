"""A Supabase row -> a Document, through the table's templates; a row the templates cannot
render becomes a Skipped with the reason."""

from __future__ import annotations

import datetime as dt
import json
import string
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from knowledge_platform.connectors.base import Skipped
from knowledge_platform.frontmatter import parse_date
from knowledge_platform.models import Confidentiality, Document, content_hash

if TYPE_CHECKING:
    from knowledge_platform.connectors.supabase.settings import TableSettings

_TITLE_COLUMNS = ("title", "name", "subject", "key", "slug")


class _RowFormatter(string.Formatter):
    """`str.format` over a row where SQL NULL renders as nothing (unless a format spec asks
    for something a NULL cannot give, which is an error like any other)."""

    def format_field(self, value: Any, format_spec: str) -> Any:
        if value is None and not format_spec:
            return ""
        return super().format_field(value, format_spec)


_FORMATTER = _RowFormatter()


def parse_timestamp(value: Any) -> dt.datetime | None:
    """A PostgREST timestamp(tz) string -> aware datetime (naive ones are taken as UTC)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        stamp = dt.datetime.fromisoformat(value.replace(" ", "T", 1))
    except ValueError:
        return None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=dt.UTC)


def _render(template: str, row: dict[str, Any], which: str) -> str:
    try:
        return _FORMATTER.vformat(template, (), row).strip()
    except KeyError as exc:
        raise ValueError(f"{which} {template!r} names column {exc} that the row lacks") from None
    except (ValueError, TypeError, IndexError, AttributeError) as exc:
        raise ValueError(f"{which} {template!r} failed: {exc}") from None


def _cell(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def default_text(row: dict[str, Any], hidden: set[str]) -> str:
    """Every non-empty column as a markdown list, for tables without a text template."""
    lines = [
        f"- **{col}**: {_cell(value)}"
        for col, value in row.items()
        if col not in hidden and value not in (None, "", [], {})
    ]
    return "\n".join(lines)


def default_title(row: dict[str, Any], table: str, row_id: Any) -> str:
    for col in _TITLE_COLUMNS:
        value = row.get(col)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return f"{table} {row_id}"


def row_document(
    row: Any,
    table: TableSettings,
    scope: str,
    url: str,
    confidentiality: Confidentiality = "internal",
) -> Document | Skipped:
    if not isinstance(row, dict) or row.get(table.id_column) is None:
        return Skipped(source_id=f"{table.name}:?", reason=f"row has no {table.id_column!r}")
    row_id = row[table.id_column]
    sid = f"{table.name}:{row_id}"
    try:
        if table.title_template:
            title = _render(table.title_template, row, "title_template")
        else:
            title = default_title(row, table.name, row_id)
        if table.text_template:
            text = _render(table.text_template, row, "text_template")
        else:
            text = default_text(row, {table.id_column, table.updated_column or ""})
    except ValueError as exc:
        return Skipped(source_id=sid, reason=str(exc))
    if not text:
        return Skipped(source_id=sid, reason="the row renders to an empty text")
    updated = row.get(table.updated_column) if table.updated_column else None
    date_value = row.get(table.date_column or table.updated_column or "")
    return Document(
        source="supabase",
        source_id=sid,
        scope=scope,
        title=title or f"{table.name} {row_id}",
        text=text,
        kind=table.kind,
        uri=f"{url.rstrip('/')}/rest/v1/{table.name}?{table.id_column}=eq.{quote(str(row_id))}",
        date=parse_date(date_value),
        version=str(updated) if updated else content_hash(title + "\n" + text)[:16],
        confidentiality=confidentiality,
        extra={"table": table.name, "row_id": row_id},
    )
