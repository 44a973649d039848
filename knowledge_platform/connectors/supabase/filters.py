"""PostgREST filters in the registry: which rows of a table belong to a scope.

A table's `filter` is a mapping `{column: "op.value"}` (a list of them for several conditions
on one column) or a raw query string `client_id=eq.{scope}&deleted_at=is.null`; `{scope}` is
replaced by the scope's id. Each condition is checked when the registry is read: a known
PostgREST operator (optionally `not.`-negated, with `(any)`/`(all)` or a full-text language),
a plain column name, `or`/`and` groups in parentheses. The keyset and id filters the
connector adds are built here too, quoting values PostgREST's grammar reserves."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

#: PostgREST's operators (docs: API > Tables and Views > Operators).
OPERATORS = frozenset(
    {
        "eq",
        "neq",
        "gt",
        "gte",
        "lt",
        "lte",
        "like",
        "ilike",
        "match",
        "imatch",
        "in",
        "is",
        "isdistinct",
        "fts",
        "plfts",
        "phfts",
        "wfts",
        "cs",
        "cd",
        "ov",
        "sl",
        "sr",
        "nxr",
        "nxl",
        "adj",
    }
)
_IS_VALUES = ("null", "not_null", "true", "false", "unknown")
_LOGIC = ("or", "and", "not.or", "not.and")
#: Query parameters PostgREST reads as something other than a filter.
_RESERVED = frozenset({"select", "order", "limit", "offset", "on_conflict", "columns"})
_COLUMN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:->>?[A-Za-z0-9_]+)*")
_OPERATOR = re.compile(r"(?P<op>[a-z]+)(?:\((?:any|all|[a-z_]+)\))?")
#: Characters PostgREST reserves inside filter values; a value holding one is double-quoted.
_NEEDS_QUOTES = re.compile(r'[,.:()"\\\s]')
#: An `in.(...)` list longer than this (characters) is split: the URL length Supabase's
#: gateway accepts is undocumented and users meet 414 "URI too long" at a few hundred ids.
IN_LIST_BUDGET = 2000
Filter = Mapping[str, str | Sequence[str]] | str


class FilterError(ValueError):
    """A filter PostgREST would refuse, said in one line."""


def _check_condition(column: str, expr: str) -> None:
    if column in _RESERVED or not _COLUMN.fullmatch(column):
        raise FilterError(f"{column!r} is not a column name PostgREST can filter on")
    rest = expr.removeprefix("not.")
    match = _OPERATOR.match(rest)
    if not match or rest[match.end() : match.end() + 1] != ".":
        raise FilterError(f"{column}={expr}: expected <operator>.<value>, e.g. eq.acme")
    op, value = match.group("op"), rest[match.end() + 1 :]
    if op not in OPERATORS:
        raise FilterError(
            f"{column}={expr}: unknown PostgREST operator {op!r} "
            f"(known: {', '.join(sorted(OPERATORS))})"
        )
    if op == "is" and value.lower() not in _IS_VALUES:
        raise FilterError(f"{column}={expr}: `is` takes {', '.join(_IS_VALUES)}")
    if op == "in" and not (value.startswith("(") and value.endswith(")")):
        raise FilterError(f"{column}={expr}: `in` takes a list in parentheses, in.(a,b)")


def _split(text: str) -> list[str]:
    """Comma-separated parts at the top level, quotes and parentheses kept whole."""
    parts, depth, quoted, start, escaped = [], 0, False, 0, False
    for i, char in enumerate(text):
        if escaped:
            escaped = False
        elif quoted and char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif not quoted and char in "()":
            depth += 1 if char == "(" else -1
            if depth < 0:
                raise FilterError(f"unbalanced parentheses in {text!r}")
        elif not quoted and depth == 0 and char == ",":
            parts.append(text[start:i])
            start = i + 1
    if quoted or depth:
        raise FilterError(f"unbalanced quotes or parentheses in {text!r}")
    return [*parts, text[start:]]


def _check_logic(key: str, value: str) -> None:
    if not (value.startswith("(") and value.endswith(")")) or value == "()":
        raise FilterError(f"{key}={value}: expected a list of conditions in parentheses")
    for item in _split(value[1:-1]):
        head = re.match(r"(?:not\.)?(?:and|or)(?=\()", item)
        if head:
            _check_logic(head.group(0), item[head.end() :])
            continue
        column, dot, expr = item.partition(".")
        if not dot:
            raise FilterError(f"{key}: {item!r} is not column.operator.value")
        _check_condition(column, expr)


def parse_filter(value: Filter) -> list[tuple[str, str]]:
    """The filter as validated query parameters (`{scope}` still in them)."""
    pairs: list[tuple[str, str]] = []
    if isinstance(value, str):
        for part in value.strip().lstrip("?").split("&"):
            key, eq, expr = part.partition("=")
            if not eq:
                raise FilterError(f"{part!r} is not column=operator.value")
            pairs.append((key.strip(), expr.strip()))
    else:
        for key, exprs in value.items():
            pairs += [(key, exprs)] if isinstance(exprs, str) else [(key, e) for e in exprs]
    if not pairs:
        raise FilterError("the filter is empty")
    for key, expr in pairs:
        if key in _LOGIC:
            _check_logic(key, expr)
        else:
            _check_condition(key, expr)
    return pairs


def for_scope(pairs: Sequence[tuple[str, str]], scope: str) -> list[tuple[str, str]]:
    return [(k, v.replace("{scope}", scope)) for k, v in pairs]


def quoted(value: object) -> str:
    """A value inside `in.(...)` or `or=(...)`: double-quoted when PostgREST reserves one of
    its characters (`,.:()"`, backslash, spaces), with `"` and backslash escaped."""
    text = str(value)
    if not _NEEDS_QUOTES.search(text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def in_lists(ids: Sequence[str], budget: int = IN_LIST_BUDGET) -> Iterator[list[str]]:
    """`ids` in groups whose `in.(...)` filter stays within `budget` characters."""
    group: list[str] = []
    size = 0
    for value in ids:
        item = len(quoted(value)) + 1
        if group and size + item > budget:
            yield group
            group, size = [], 0
        group.append(value)
        size += item
    if group:
        yield group


def in_filter(ids: Sequence[str]) -> str:
    return "in.(" + ",".join(quoted(i) for i in ids) + ")"


def after(columns: Sequence[str], values: Sequence[object]) -> tuple[str, str]:
    """Keyset continuation: rows strictly after `values` in `order=columns` (ascending) —
    `id=gt.<last>`, or for two columns `(a, b) > (x, y)` written as
    `or=(a.gt."x",and(a.eq."x",b.gt."y"))` (PostgREST has no row comparison; a plain
    filter takes its value verbatim, quotes are read only inside `or`/`and`)."""
    if len(columns) == 1:
        return columns[0], f"gt.{values[0]}"
    (a, b), (x, y) = columns, values
    return "or", f"({a}.gt.{quoted(x)},and({a}.eq.{quoted(x)},{b}.gt.{quoted(y)}))"
