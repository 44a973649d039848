"""A fake Supabase REST API (PostgREST), from PostgREST's API reference and Supabase's docs:

- Auth: an `apikey` header (or url param) naming a project key, each with its role (a legacy
  `anon`/`service_role` JWT key, or an `sb_publishable_`/`sb_secret_` key). `Authorization:
  Bearer` is either the same legacy key or a user JWT signed with the project's JWT secret
  (HS256), whose `role` and other claims row-level security reads; a bad one is 401 PGRST301,
  an expired one 401 PGRST303. The new `sb_` keys are not JWTs: as a bearer they are refused.
- Grants and row-level security: a revoked table answers 42501 (401 for `anon`, else 403);
  with RLS on, only rows a policy admits (given the JWT claims) are visible, except to
  `service_role`, which bypasses RLS.
- Reading: `select`, filters and `or`/`and` (tests/fakes/postgrest_query.py), `order`,
  `limit`/`offset` and the `Range` header (intersected), `db-max-rows` capping every page
  silently, `Content-Range: lower-upper/total|*` (`*/total` when empty), `Prefer: count=exact|
  planned|estimated` giving the total with 206 for a partial answer, 416 PGRST103 for an offset
  beyond the total or a Range whose lower bound exceeds its upper one. HEAD answers the same
  headers without a body.
- Errors in PostgREST's shape `{code, details, hint, message}`: PGRST205 404 for an unknown
  table (with a "Perhaps you meant" hint), 42703 for an unknown column, PGRST100 for syntax.
- A URL longer than `max_url` answers 414 "URI too long" as Supabase's gateway does (the limit
  itself is not documented; users report it with a few hundred ids in an `in.(...)` filter).
- No rate-limit headers are documented; tests inject 429/503 with `inject`.

Clock: every insert/update stamps `updated_at` one second later; with `frozen`, all writes
between two requests share one timestamp (one transaction's `now()`: equal timestamps)."""

from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Callable
from typing import Any

import jwt
from werkzeug.wrappers import Request, Response

from tests.fakes.http_fake import FakeServer, json_response
from tests.fakes.postgrest_query import QueryError, Schema, column_type, parse_filters, sort

Policy = Callable[[dict[str, Any], dict[str, Any]], bool]
_RESERVED = {"select", "order", "limit", "offset", "apikey", "columns", "on_conflict"}
JWT_SECRET = "super-secret-jwt-token-with-at-least-32-characters-long"


def pgrst_error(
    status: int,
    code: str,
    message: str,
    hint: str | None = None,
    details: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    body = {"code": code, "details": details, "hint": hint, "message": message}
    return json_response(body, status, headers)


class SupabaseFake(FakeServer):
    def __init__(
        self,
        *,
        key: str = "service-role-key",
        max_rows: int = 1000,
        jwt_secret: str = JWT_SECRET,
        max_url: int = 8000,
    ) -> None:
        super().__init__()
        self.key = key  # the service_role key
        self.keys: dict[str, str] = {}  # further project keys -> their role (e.g. anon)
        self.jwt_secret = jwt_secret
        self.max_rows = max_rows
        self.max_url = max_url
        self.tables: dict[str, dict[Any, dict[str, Any]]] = {}
        self.columns: dict[str, dict[str, str]] = {}  # declared column types per table
        self.policies: dict[str, Policy] = {}  # tables with row-level security on
        self.revoked: set[str] = set()
        self.frozen = False
        self._served = False  # a request was answered since the clock last moved
        self._now = dt.datetime(2024, 6, 1, 10, 0, tzinfo=dt.UTC)
        self._ids = itertools.count(1)

    # -- mutations ---------------------------------------------------------------------------
    def tick(self, seconds: int = 1) -> str:
        if not self.frozen or self._served:
            self._now += dt.timedelta(seconds=seconds)
            self._served = False
        return self._now.isoformat()

    def create_table(self, name: str, columns: dict[str, str] | None = None) -> None:
        """`columns`: name -> SQL type (timestamptz, bigint, numeric, boolean, text) for
        columns no row may hold yet (a `deleted_at` that is NULL everywhere)."""
        self.tables.setdefault(name, {})
        self.columns.setdefault(name, {}).update(columns or {})

    def drop_table(self, name: str) -> None:
        del self.tables[name]

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

    def enable_rls(self, table: str, policy: Policy) -> None:
        """Row-level security: `policy(row, jwt_claims)` says whether a row is visible."""
        self.policies[table] = policy

    def user_jwt(self, claims: dict[str, Any], secret: str | None = None) -> str:
        """A JWT signed with the project's secret, as Supabase Auth (or a custom signer) mints."""
        return jwt.encode(
            {"role": "authenticated", **claims}, secret or self.jwt_secret, algorithm="HS256"
        )

    # -- serving -----------------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        self._served = True
        if len(request.full_path) > self.max_url:
            return Response("URI too long\n", 414, content_type="text/plain")
        claims = self._claims(request)
        if isinstance(claims, Response):
            return claims
        match = re.fullmatch(r"/rest/v1/([A-Za-z0-9_]+)", request.path)
        if not match:
            return pgrst_error(
                404, "PGRST125", f"Invalid path specified in request URL {request.path}"
            )
        if request.method not in ("GET", "HEAD"):
            return pgrst_error(405, "PGRST117", f"Unsupported HTTP method: {request.method}")
        try:
            with self._lock:
                return self._select(match.group(1), request, claims)
        except QueryError as exc:
            return pgrst_error(exc.status, exc.code, exc.message, exc.hint, exc.details)

    def _claims(self, request: Request) -> dict[str, Any] | Response:
        """The JWT claims the request runs with, or PostgREST's / the gateway's 401."""
        key = request.headers.get("apikey") or request.args.get("apikey")
        if not key:
            return pgrst_error(
                401,
                "PGRST301",
                "No API key found in request",
                "No `apikey` request header or url param was found.",
            )
        roles = {self.key: "service_role", **self.keys}
        if key not in roles:
            return pgrst_error(
                401,
                "PGRST301",
                "Invalid API key",
                "Double check your Supabase `anon` or `service_role` API key.",
            )
        auth = request.headers.get("Authorization")
        if auth is None:
            return {"role": roles[key]}
        token = auth.removeprefix("Bearer ")
        if token == key and not key.startswith("sb_"):
            return {"role": roles[key]}  # a legacy JWT key as its own bearer
        if token.count(".") != 2:
            parts = token.count(".") + 1
            return pgrst_error(
                401,
                "PGRST301",
                f"Expected 3 parts in JWT; got {parts}",
                headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
            )
        try:
            return jwt.decode(
                token, self.jwt_secret, algorithms=["HS256"], options={"verify_aud": False}
            )
        except jwt.ExpiredSignatureError:
            return pgrst_error(401, "PGRST303", "JWT expired")
        except jwt.InvalidTokenError:
            return pgrst_error(401, "PGRST301", "JWSError JWSInvalidSignature")

    def _schema(self, name: str) -> Schema:
        rows = list(self.tables[name].values())
        names = {c for r in rows for c in r} | {"id", "updated_at"}
        types = {c: column_type([r.get(c) for r in rows]) for c in names}
        return Schema({**types, **self.columns.get(name, {})})

    def _select(self, name: str, request: Request, claims: dict[str, Any]) -> Response:
        if name not in self.tables:
            near = next((t for t in self.tables if t[:3] == name[:3]), None)
            hint = f"Perhaps you meant the table 'public.{near}'" if near else None
            message = f"Could not find the table 'public.{name}' in the schema cache"
            return pgrst_error(404, "PGRST205", message, hint)
        role = claims.get("role")
        if name in self.revoked:
            status = 401 if role == "anon" else 403
            return pgrst_error(
                status,
                "42501",
                f"permission denied for table {name}",
                f"Grant the required privileges to the current role with: "
                f"GRANT SELECT ON public.{name} TO {role};",
            )
        schema = self._schema(name)
        rows = list(self.tables[name].values())
        if name in self.policies and role != "service_role":
            rows = [r for r in rows if self.policies[name](r, claims)]
        keep = parse_filters(schema, name, list(request.args.items(multi=True)), _RESERVED)
        rows = [r for r in rows if keep(r)]
        sort(schema, name, rows, request.args.get("order", ""))
        lower, upper = self._range(request)
        total = len(rows) if _wants_count(request) else None
        if total is not None and lower > total:
            return pgrst_error(
                416,
                "PGRST103",
                "Requested range not satisfiable",
                details=f"An offset of {lower} was requested, but there are only {total} rows.",
                headers={"Content-Range": f"*/{total}"},
            )
        page = rows[lower : upper + 1]
        select = request.args.get("select", "*")
        if select != "*":
            wanted = [c.strip() for c in select.split(",")]
            for column in wanted:
                schema.check(name, column)
            page = [{c: r.get(c) for c in wanted} for r in page]
        last = lower + len(page) - 1
        span = f"{lower}-{last}" if page and total != 0 else "*"
        status = 206 if total is not None and len(page) < total else 200
        headers = {
            "Content-Range": f"{span}/{'*' if total is None else total}",
            "Range-Unit": "items",
        }
        response = json_response(page, status, headers)
        if request.method == "HEAD":
            response.set_data(b"")
        return response

    def _range(self, request: Request) -> tuple[int, int]:
        """[lower, upper] of the rows to answer: the Range header intersected with limit and
        offset, then capped at db-max-rows."""
        lower, upper = 0, 10**12
        header = request.headers.get("Range")
        if header and (m := re.fullmatch(r"(\d+)-(\d*)", header.strip())):
            lower = int(m.group(1))
            upper = int(m.group(2)) if m.group(2) else upper
            if upper < lower:
                raise QueryError(
                    416,
                    "PGRST103",
                    "Requested range not satisfiable",
                    "The lower boundary must be lower than or equal to the upper "
                    "boundary in the Range header.",
                )
        try:
            offset = int(request.args.get("offset", "0"))
            limit = request.args.get("limit")
            lower = max(lower, offset)
            if limit is not None:
                upper = min(upper, offset + int(limit) - 1)
        except ValueError as exc:
            raise QueryError(400, "PGRST100", f'"failed to parse limit or offset" ({exc})') from exc
        return lower, min(upper, lower + self.max_rows - 1)


def _wants_count(request: Request) -> bool:
    prefer = request.headers.get("Prefer", "")
    return any(
        p.strip() in ("count=exact", "count=planned", "count=estimated") for p in prefer.split(",")
    )
