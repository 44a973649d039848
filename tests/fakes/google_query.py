"""Pieces of the Google fake that follow Google's formats: Drive `q`, A1 ranges, Slides JSON."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any

Predicate = Callable[[dict[str, Any]], bool]

_TOKEN = re.compile(r"\s*('(?:[^'\\]|\\.)*'|\(|\)|!=|>=|<=|=|>|<|[A-Za-z_]+)")


class QueryError(ValueError):
    """The `q` string uses syntax this fake (or Drive) does not understand."""


def parse_query(q: str) -> Predicate:
    """Drive search syntax subset: `'<id>' in parents`, `trashed=<bool>`, `mimeType[!]='<t>'`,
    `name='<n>'`, `modifiedTime <op> '<RFC 3339>'` (UTC unless it says), joined by and / or /
    not and parentheses. Evaluated on a file resource (all of its fields)."""
    tokens, pos = [], 0
    while pos < len(q.rstrip()):
        match = _TOKEN.match(q, pos)
        if not match:
            raise QueryError(f"Invalid Value: cannot parse q at {q[pos:]!r}")
        tokens.append(match.group(1))
        pos = match.end()
    parser = _Parser(tokens)
    predicate = parser.expr()
    if parser.pos != len(tokens):
        raise QueryError(f"Invalid Value: unexpected {tokens[parser.pos]!r} in q")
    return predicate


def _unquote(token: str) -> str:
    if not (token.startswith("'") and token.endswith("'")):
        raise QueryError(f"Invalid Value: expected a quoted string, got {token!r}")
    return re.sub(r"\\(.)", r"\1", token[1:-1])


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise QueryError("Invalid Value: q ended early")
        self.pos += 1
        return token

    def expr(self) -> Predicate:
        terms = [self.term()]
        while self.peek() == "or":
            self.take()
            terms.append(self.term())
        return lambda f: any(t(f) for t in terms)

    def term(self) -> Predicate:
        factors = [self.factor()]
        while self.peek() == "and":
            self.take()
            factors.append(self.factor())
        return lambda f: all(p(f) for p in factors)

    def factor(self) -> Predicate:
        token = self.take()
        if token == "not":
            inner = self.factor()
            return lambda f: not inner(f)
        if token == "(":
            inner = self.expr()
            if self.take() != ")":
                raise QueryError("Invalid Value: missing ')' in q")
            return inner
        if token.startswith("'"):
            value = _unquote(token)
            if self.take() != "in" or self.take() != "parents":
                raise QueryError("Invalid Value: only '<id>' in parents is supported")
            return lambda f: value in f.get("parents", [])
        field, op, raw = token, self.take(), self.take()
        if field == "modifiedTime":
            return _time_compare(op, _rfc3339(_unquote(raw)))
        if op not in ("=", "!="):
            raise QueryError(f"Invalid Value: operator {op!r} not supported")
        if field == "trashed":
            if raw not in ("true", "false"):
                raise QueryError("Invalid Value: trashed takes true or false")
            wanted: Any = raw == "true"
        elif field in ("mimeType", "name"):
            wanted = _unquote(raw)
        else:
            raise QueryError(f"Invalid Value: field {field!r} not supported")
        if op == "=":
            return lambda f: f.get(field, False) == wanted
        return lambda f: f.get(field, False) != wanted


def _rfc3339(value: str) -> dt.datetime:
    try:
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise QueryError(f"Invalid Value: bad time {value!r} in q") from None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)  # UTC by default


def _time_compare(op: str, wanted: dt.datetime) -> Predicate:
    ops: dict[str, Callable[[dt.datetime], bool]] = {
        "=": lambda t: t == wanted,
        "!=": lambda t: t != wanted,
        ">": lambda t: t > wanted,
        "<": lambda t: t < wanted,
        ">=": lambda t: t >= wanted,
        "<=": lambda t: t <= wanted,
    }
    if op not in ops:
        raise QueryError(f"Invalid Value: operator {op!r} not supported")
    return lambda f: ops[op](_rfc3339(f["modifiedTime"]))


_PARENTS = re.compile(r"'((?:[^'\\]|\\.)*)'\s+in\s+parents")


def parents_in(q: str) -> list[str]:
    """The folder ids a `q` names with `'<id>' in parents`, in order."""
    return [re.sub(r"\\(.)", r"\1", m.group(1)) for m in _PARENTS.finditer(q)]


#: A partial-response mask: field -> sub-mask, or None for the whole value.
Mask = dict[str, "Mask | None"]


def parse_fields(fields: str) -> Mask | None:
    """Google's `fields` syntax: `a,b(c,d),e/f`; `*` (or nothing) means everything."""
    mask, pos = _fields(fields.replace(" ", ""), 0)
    if pos != len(fields.replace(" ", "")):
        raise QueryError(f"Invalid field selection {fields}")
    return mask


def _fields(text: str, pos: int) -> tuple[Mask | None, int]:
    mask: Mask = {}
    while pos < len(text) and text[pos] != ")":
        match = re.compile(r"[A-Za-z_*][A-Za-z0-9_/]*").match(text, pos)
        if not match:
            raise QueryError(f"Invalid field selection {text}")
        path, pos = match.group(0).split("/"), match.end()
        sub: Mask | None = None
        if pos < len(text) and text[pos] == "(":
            sub, pos = _fields(text, pos + 1)
            if pos >= len(text) or text[pos] != ")":
                raise QueryError(f"Invalid field selection {text}")
            pos += 1
        if path == ["*"]:
            return None, _skip_rest(text, pos)
        node = mask
        for name in path[:-1]:
            child = node.setdefault(name, {})
            if child is None:
                break
            node = child
        else:
            node[path[-1]] = sub
        if pos < len(text) and text[pos] == ",":
            pos += 1
    return mask, pos


def _skip_rest(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] != ")":
        pos += 1
    return pos


def apply_fields(data: Any, mask: Mask | None) -> Any:
    """Keep only the masked fields of `data` (lists mask each element)."""
    if mask is None:
        return data
    if isinstance(data, list):
        return [apply_fields(item, mask) for item in data]
    if not isinstance(data, dict):
        return data
    return {k: apply_fields(data[k], sub) for k, sub in mask.items() if k in data}


_A1 = re.compile(r"^(?:[A-Z]+)?(\d+)?(?::(?:[A-Z]+)?(\d+)?)?$")


def parse_range(a1: str) -> tuple[str, int, int | None]:
    """`'Tab ''x'''!1:102`, `Tab!A1:C10` or `Tab` -> (tab, first row, last row or None)."""
    if a1.startswith("'"):
        end = a1.find("'!") if "'!" in a1 else len(a1) - 1
        title, rest = a1[1:end].replace("''", "'"), a1[end + 2 :]
    else:
        title, _, rest = a1.partition("!")
    if not rest:
        return title, 1, None
    match = _A1.match(rest)
    if not match:
        raise QueryError(f"Unable to parse range: {a1}")
    first = int(match.group(1)) if match.group(1) else 1
    last = int(match.group(2)) if match.group(2) else None
    return title, first, last


def _text(content: str) -> dict[str, Any]:
    elements: list[dict[str, Any]] = []
    index = 0
    for line in content.splitlines(keepends=True):
        line = line if line.endswith("\n") else line + "\n"
        end = index + len(line)
        elements.append({"startIndex": index, "endIndex": end, "paragraphMarker": {"style": {}}})
        elements.append({"startIndex": index, "endIndex": end, "textRun": {"content": line}})
        index = end
    return {"textElements": elements}


def _shape(object_id: str, content: str, placeholder: str | None = None) -> dict[str, Any]:
    shape: dict[str, Any] = {"shapeType": "TEXT_BOX", "text": _text(content)}
    if placeholder:
        shape["placeholder"] = {"type": placeholder}
    return {"objectId": object_id, "shape": shape}


def slide_json(index: int, spec: dict[str, Any]) -> dict[str, Any]:
    """A Slides API page from {title, body, notes, table, grouped}."""
    sid = f"slide{index}"
    elements: list[dict[str, Any]] = []
    if spec.get("title"):
        elements.append(_shape(f"{sid}_title", spec["title"], "TITLE"))
    if spec.get("body"):
        body = _shape(f"{sid}_body", spec["body"], "BODY")
        if spec.get("grouped"):
            body = {"objectId": f"{sid}_group", "elementGroup": {"children": [body]}}
        elements.append(body)
    if spec.get("table"):
        rows = spec["table"]
        elements.append(
            {
                "objectId": f"{sid}_table",
                "table": {
                    "rows": len(rows),
                    "columns": len(rows[0]),
                    "tableRows": [
                        {"tableCells": [{"text": _text(cell)} for cell in row]} for row in rows
                    ],
                },
            }
        )
    notes_id = f"{sid}_notes"
    notes_elements: list[dict[str, Any]] = [{"objectId": f"{sid}_thumb", "image": {}}]
    notes_elements.append(_shape(notes_id, spec.get("notes", ""), "BODY"))
    return {
        "objectId": sid,
        "pageType": "SLIDE",
        "pageElements": elements,
        "slideProperties": {
            "notesPage": {
                "objectId": f"{sid}_notespage",
                "pageType": "NOTES",
                "notesProperties": {"speakerNotesObjectId": notes_id},
                "pageElements": notes_elements,
            }
        },
    }
