"""A fake Supabase REST API (PostgREST): `select`, `order`, `limit`/`offset`, filters
(`eq neq gt gte lt lte is in`) enforced with column-typed comparison, a db-max-rows cap that
silently shortens pages, `apikey` auth, and PostgREST-shaped errors."""

from __future__ import annotations

import datetime as dt
import itertools
import re
from typing import Any

from werkzeug.wrappers import Request, Response

from tests.fakes.http_fake import FakeServer, json_response

_RESERVED = {"select", "order", "limit", "offset", "apikey"}
_OPS = {
    "eq": lambda a, b: a == b,
    "neq": lambda a, b: a != b,
    "gt": lambda a, b: a > b,
    "gte": lambda a, b: a >= b,
    "lt": lambda a, b: a < b,
    "lte": lambda a, b: a <= b,
}


def pgrst_error(status: int, code: str, message: str, hint: str | None = None) -> Response:
    body = {"code": code, "details": None, "hint": hint, "message": message}
    return json_response(body, status)


def _stamp(value: str) -> dt.datetime | None:
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def _coerce(sample: Any, raw: str) -> tuple[Any, Any] | None:
    """(key function, typed value) to compare a column holding `sample` with a query value."""
    if isinstance(sample, bool):
        return None
    if isinstance(sample, int | float):
        return (lambda v: v), float(raw)
    if isinstance(sample, str) and _stamp(sample) is not None and _stamp(raw) is not None:
        return _stamp, _stamp(raw)
    return (lambda v: str(v)), raw


class SupabaseFake(FakeServer):
    def __init__(self, *, key: str = "service-role-key", max_rows: int = 1000) -> None:
        super().__init__()
        self.key = key
        self.max_rows = max_rows
        self.tables: dict[str, dict[Any, dict[str, Any]]] = {}
        self._now = dt.datetime(2024, 6, 1, 10, 0, tzinfo=dt.UTC)
        self._ids = itertools.count(1)

    # -- mutations ---------------------------------------------------------------------------
    def tick(self, seconds: int = 1) -> str:
        self._now += dt.timedelta(seconds=seconds)
        return self._now.isoformat()

    def create_table(self, name: str) -> None:
        self.tables.setdefault(name, {})

    def insert(self, table: str, *rows: dict[str, Any]) -> list[Any]:
        ids = []
        for row in rows:
            rid = row.get("id", next(self._ids))
            self.tables[table][rid] = {"id": rid, "updated_at": self.tick(), **row}
            ids.append(rid)
        return ids

    def update(self, table: str, row_id: Any, **changes: Any) -> None:
        self.tables[table][row_id].update(changes, updated_at=self.tick())

    def delete(self, table: str, row_id: Any) -> None:
        del self.tables[table][row_id]

    # -- serving -----------------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        key = request.headers.get("apikey") or request.args.get("apikey")
        if not key:
            return pgrst_error(
                401,
                "PGRST301",
                "No API key found in request",
                "No `apikey` request header or url param was found.",
            )
        if key != self.key:
            return pgrst_error(
                401,
                "PGRST301",
                "Invalid API key",
                "Double check your Supabase `anon` or `service_role` API key.",
            )
        auth = request.headers.get("Authorization")
        if auth is not None and auth != f"Bearer {self.key}":
            return pgrst_error(401, "PGRST301", "JWSError JWSInvalidSignature")
        match = re.fullmatch(r"/rest/v1/([A-Za-z0-9_]+)", request.path)
        if not match:
            return pgrst_error(
                404, "PGRST125", f"Invalid path specified in request URL {request.path}"
            )
        if request.method != "GET":
            return pgrst_error(405, "PGRST117", f"Unsupported HTTP method: {request.method}")
        return self._select(match.group(1), request)

    def _select(self, name: str, request: Request) -> Response:
        if name not in self.tables:
            near = next((t for t in self.tables if t[:3] == name[:3]), None)
            hint = f"Perhaps you meant the table 'public.{near}'" if near else None
            message = f"Could not find the table 'public.{name}' in the schema cache"
            return pgrst_error(404, "PGRST205", message, hint)
        rows = list(self.tables[name].values())
        columns = {c for r in rows for c in r} | {"id", "updated_at"}
        for column in request.args:
            if column in _RESERVED:
                continue
            if column not in columns:
                return pgrst_error(400, "42703", f"column {name}.{column} does not exist")
            for expr in request.args.getlist(column):
                op, _, raw = expr.partition(".")
                if op == "is" and raw == "null":
                    rows = [r for r in rows if r.get(column) is None]
                    continue
                if op == "in":
                    if not (raw.startswith("(") and raw.endswith(")")):
                        return pgrst_error(400, "PGRST100", f'"failed to parse filter ({expr})"')
                    items = [_unquote(v) for v in _IN_ITEM.findall(raw[1:-1])]
                    rows = [r for r in rows if any(_test(r.get(column), "eq", v) for v in items)]
                    continue
                if op not in _OPS or not _:
                    return pgrst_error(400, "PGRST100", f'"failed to parse filter ({expr})"')
                try:
                    rows = [r for r in rows if _test(r.get(column), op, raw)]
                except ValueError:
                    return pgrst_error(400, "22P02", f'invalid input syntax: "{raw}"')
        for part in reversed(request.args.get("order", "").split(",")):
            if not part:
                continue
            column, _, direction = part.partition(".")
            if column not in columns:
                return pgrst_error(400, "42703", f"column {name}.{column} does not exist")
            present = [r for r in rows if r.get(column) is not None]
            present.sort(key=lambda r, c=column: r[c], reverse=direction.startswith("desc"))
            rows = present + [r for r in rows if r.get(column) is None]
        offset = int(request.args.get("offset", "0"))
        limit = int(request.args.get("limit", str(self.max_rows)))
        page = rows[offset : offset + min(limit, self.max_rows)]
        select = request.args.get("select", "*")
        if select != "*":
            wanted = [c.strip() for c in select.split(",")]
            if missing := [c for c in wanted if c not in columns]:
                return pgrst_error(400, "42703", f"column {name}.{missing[0]} does not exist")
            page = [{c: r.get(c) for c in wanted} for r in page]
        span = f"{offset}-{offset + len(page) - 1}/*" if page else "*/*"
        return json_response(page, 200, {"Content-Range": span})


_IN_ITEM = re.compile(r'"(?:[^"\\]|\\.)*"|[^,]+')


def _unquote(item: str) -> str:
    """One `in.(...)` item: bare, or double-quoted with backslash escapes."""
    item = item.strip()
    if len(item) >= 2 and item[0] == item[-1] == '"':
        return re.sub(r"\\(.)", r"\1", item[1:-1])
    return item


def _test(value: Any, op: str, raw: str) -> bool:
    if value is None:
        return False
    typed = _coerce(value, raw)
    if typed is None:
        return _OPS[op](str(value).lower(), raw.lower())
    key, wanted = typed
    return bool(_OPS[op](key(value), wanted))
