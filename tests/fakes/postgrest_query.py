"""The PostgREST query grammar the Supabase fake enforces, from PostgREST's API reference
(tables_views.rst "Horizontal Filtering", "Logical operators", "Ordering"; url_grammar.rst):

- `column=op.value` with `eq neq gt gte lt lte like ilike in is`, each negatable with `not.`;
  `like`/`ilike` take `*` for `%`; `is` takes null, not_null, true, false, unknown;
  `in.(a,"b,c")` lists items, double-quoted when they hold reserved characters.
- `or=(...)` / `and=(...)` (and `not.or` / `not.and`), nesting `and(...)` / `or(...)`;
  values in them may be double-quoted (`updated_at.gt."2024-06-01T10:00:00+00:00"`).
- `order=col[.asc|.desc][.nullsfirst|.nullslast],...`; PostgreSQL's default puts NULLs last
  ascending and first descending.

Values are compared as the column's type: a value that does not parse as it is PostgreSQL's
400 (`22P02`, or `22007` for timestamps — e.g. an unencoded `+` that arrived as a space)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Predicate = Callable[[dict[str, Any]], bool]
OPERATORS = ("eq", "neq", "gt", "gte", "lt", "lte", "like", "ilike", "in", "is")
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "eq": lambda a, b: a == b,
    "neq": lambda a, b: a != b,
    "gt": lambda a, b: a > b,
    "gte": lambda a, b: a >= b,
    "lt": lambda a, b: a < b,
    "lte": lambda a, b: a <= b,
}
_TYPE_NAMES = {
    "timestamptz": "timestamp with time zone",
    "bigint": "bigint",
    "numeric": "numeric",
    "boolean": "boolean",
    "text": "text",
}


class QueryError(Exception):
    """A request PostgREST (or PostgreSQL) refuses: status and the error body's fields."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.details, self.hint = details, hint


def _parse_error(text: str, why: str) -> QueryError:
    return QueryError(400, "PGRST100", f'"failed to parse filter ({text})"', why)


def timestamp(value: str) -> dt.datetime | None:
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def column_type(values: list[Any]) -> str:
    """The SQL type a column's stored values stand for."""
    sample = next((v for v in values if v is not None), None)
    if isinstance(sample, bool):
        return "boolean"
    if isinstance(sample, int):
        return "bigint"
    if isinstance(sample, float):
        return "numeric"
    if isinstance(sample, str) and "T" in sample and timestamp(sample) is not None:
        return "timestamptz"
    return "text"


def typed(kind: str, raw: str) -> Any:
    """A query value as the column's type, or PostgreSQL's error for it."""
    try:
        if kind == "bigint":
            return int(raw)
        if kind == "numeric":
            return float(raw)
        if kind == "boolean":
            return {"true": True, "false": False}[raw.lower()]
    except (ValueError, KeyError):
        pass
    else:
        if kind != "timestamptz":
            return raw
        if (stamp := timestamp(raw)) is not None:
            return stamp
    code = "22007" if kind == "timestamptz" else "22P02"
    raise QueryError(400, code, f'invalid input syntax for type {_TYPE_NAMES[kind]}: "{raw}"')


def stored(kind: str, value: Any) -> Any:
    return timestamp(value) if kind == "timestamptz" and isinstance(value, str) else value


@dataclass
class Schema:
    """Column name -> SQL type of one table."""

    types: dict[str, str]

    def check(self, table: str, column: str) -> str:
        if column not in self.types:
            raise QueryError(400, "42703", f"column {table}.{column} does not exist")
        return self.types[column]


def _condition(
    schema: Schema, table: str, column: str, expr: str, nested: bool = False
) -> Predicate:
    """One `column=op.value`; a top-level value is taken verbatim, one inside `or`/`and`
    may be double-quoted."""
    negate = expr.startswith("not.")
    op, dot, raw = expr.removeprefix("not.").partition(".")
    if op not in OPERATORS or not dot:
        raise _parse_error(
            f"{column}.{expr}", f'unexpected "{op}" expecting operator ({", ".join(OPERATORS)})'
        )
    kind = schema.check(table, column)
    test = _test(kind, op, raw if not nested else _unquote(raw), f"{column}.{expr}")

    def predicate(row: dict[str, Any]) -> bool:
        return test(row.get(column)) != negate

    return predicate


def _test(kind: str, op: str, raw: str, text: str) -> Callable[[Any], bool]:
    if op == "is":
        word = raw.lower()
        if word in ("null", "unknown"):
            return lambda v: v is None
        if word == "not_null":
            return lambda v: v is not None
        if word in ("true", "false"):
            return lambda v: v is (word == "true")
        raise _parse_error(text, "is: expecting null, not_null, true, false or unknown")
    if op == "in":
        if not (raw.startswith("(") and raw.endswith(")")):
            raise _parse_error(text, 'in: expecting "("')
        wanted = {typed(kind, _unquote(item)) for item in _split(raw[1:-1])} if raw[1:-1] else set()
        return lambda v: v is not None and stored(kind, v) in wanted
    value = raw
    if op in ("like", "ilike"):
        flags = re.IGNORECASE if op == "ilike" else 0
        pattern = re.compile(".*".join(re.escape(p) for p in value.split("*")) + r"\Z", flags)
        return lambda v: v is not None and pattern.match(str(v)) is not None
    wanted = typed(kind, value)
    compare = _COMPARE[op]
    return lambda v: v is not None and compare(stored(kind, v), wanted)


def _unquote(item: str) -> str:
    if len(item) >= 2 and item[0] == item[-1] == '"':
        return re.sub(r"\\(.)", r"\1", item[1:-1])
    return item


def _split(text: str) -> list[str]:
    """Top-level comma-separated parts, keeping quoted strings and parentheses whole."""
    parts, depth, quoted, start, i = [], 0, False, 0, 0
    while i < len(text):
        char = text[i]
        if quoted and char == "\\":
            i += 1
        elif char == '"':
            quoted = not quoted
        elif not quoted and char == "(":
            depth += 1
        elif not quoted and char == ")":
            depth -= 1
        elif not quoted and depth == 0 and char == ",":
            parts.append(text[start:i])
            start = i + 1
        i += 1
    if quoted or depth:
        raise _parse_error(text, "unbalanced quotes or parentheses")
    parts.append(text[start:])
    return parts


def _logic(schema: Schema, table: str, key: str, value: str) -> Predicate:
    """`or` / `and` / `not.or` / `not.and` over a parenthesized list of conditions."""
    negate = key.startswith("not.")
    op = key.removeprefix("not.")
    if not (value.startswith("(") and value.endswith(")")):
        raise _parse_error(f"{key}={value}", 'expecting "("')
    parts: list[Predicate] = []
    for item in _split(value[1:-1]):
        head = re.match(r"(not\.)?(and|or)\(", item)
        if head:
            parts.append(_logic(schema, table, item[: head.end() - 1], item[head.end() - 1 :]))
            continue
        column, dot, expr = item.partition(".")
        if not dot:
            raise _parse_error(item, "expecting column.operator.value")
        parts.append(_condition(schema, table, column, expr, nested=True))
    combine = any if op == "or" else all

    def predicate(row: dict[str, Any]) -> bool:
        return combine(p(row) for p in parts) != negate

    return predicate


def parse_filters(
    schema: Schema, table: str, args: list[tuple[str, str]], reserved: set[str]
) -> Predicate:
    """Every filter of a request's query string, ANDed as PostgREST does."""
    parts: list[Predicate] = []
    for key, value in args:
        if key in reserved:
            continue
        if key in ("or", "and", "not.or", "not.and"):
            parts.append(_logic(schema, table, key, value))
        else:
            parts.append(_condition(schema, table, key, value))
    return lambda row: all(p(row) for p in parts)


def sort(schema: Schema, table: str, rows: list[dict[str, Any]], order: str) -> None:
    """Sort in place by `order` (stable, last key first)."""
    for part in reversed([p for p in order.split(",") if p]):
        column, *mods = part.split(".")
        kind = schema.check(table, column)
        descending = "desc" in mods
        nulls_first = "nullsfirst" in mods or (descending and "nullslast" not in mods)
        present = [r for r in rows if r.get(column) is not None]
        absent = [r for r in rows if r.get(column) is None]
        present.sort(key=lambda r, c=column: stored(kind, r[c]), reverse=descending)
        rows[:] = absent + present if nulls_first else present + absent
