"""Reading one table through PostgREST: keyset pages to the API's own end signal, rows by id,
and id lookups whose `Content-Range` total confirms what is absent; errors sorted into "this
table is gone", "this table failed" and "the whole source refuses us".

- Keyset paging: `order=<cols>.asc` plus the continuation after the last row
  (`id=gt.<last>`, or `or=(updated_at.gt."t",and(updated_at.eq."t",id.gt."i"))` so equal
  timestamps across a page boundary lose nothing). Only an empty page ends a walk:
  `db-max-rows` (1000 on Supabase) silently shortens every page, so a short one proves
  nothing. No offsets are sent, so 416 PGRST103 cannot come from paging.
- Confirmation: `id=in.(...)` with the scope's filters and `Prefer: count=exact`; an id it
  does not return is gone from the scope only when the total in `Content-Range` matches the
  rows received (a proxy's empty `[]` or a cut-off answer confirms nothing).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from knowledge_platform.connectors.http import HttpClient, describe_body
from knowledge_platform.connectors.supabase.filters import after, in_filter, in_lists
from knowledge_platform.errors import SourceError

#: Statuses answered by PostgREST (or Supabase's gateway) that say something about the table
#: or the credentials rather than a passing failure; 5xx and 429 are retried by HttpClient.
_ANSWERS = (400, 401, 403, 404, 406, 414, 416)
_GONE_CODES = ("PGRST205", "42P01")
_TOTAL = re.compile(r"(?:\d+-\d+|\*)/(\d+|\*)")

Params = list[tuple[str, str]]


class TableError(SourceError):
    """One table could not be read; `gone` when PostgREST says it does not exist."""

    def __init__(self, message: str, *, gone: bool = False) -> None:
        super().__init__(message)
        self.gone = gone


class AccessRefused(SourceError):
    """The key or JWT was refused: the whole source is out, not one table."""


@dataclass
class Table:
    """One configured table of one scope, read through `http`."""

    http: HttpClient
    base_url: str
    name: str
    id_column: str
    #: The scope's filters (and the soft-delete test where asked for).
    scope_filters: Params
    auth_hint: str = ""
    page_size: int = 1000

    @property
    def url(self) -> str:
        return f"{self.base_url.rstrip('/')}/rest/v1/{self.name}"

    def _get(self, params: Params, headers: dict[str, str] | None = None) -> httpx.Response:
        response = self.http.get(self.url, params=params, headers=headers, allow=_ANSWERS)
        if response.status_code < 300:
            return response
        where = f"GET /rest/v1/{self.name}"
        body = describe_body(response)
        message = f"supabase: {where} failed with HTTP {response.status_code}: {body}"
        code = _code(response)
        if response.status_code in (401, 403) and code != "42501":
            raise AccessRefused(f"{message}; {self.auth_hint}" if self.auth_hint else message)
        raise TableError(message, gone=response.status_code == 404 and code in _GONE_CODES)

    def _rows(self, response: httpx.Response) -> list[dict[str, Any]]:
        where = f"GET /rest/v1/{self.name}"
        try:
            page = response.json()
        except ValueError:
            body = describe_body(response, limit=80) or "empty body"
            raise TableError(
                f"supabase: {where} returned malformed JSON (HTTP {response.status_code}): {body}"
            ) from None
        if not isinstance(page, list) or not all(isinstance(r, dict) for r in page):
            raise TableError(f"supabase: {where} answered {type(page).__name__}, not rows")
        return page

    def walk(self, select: str, filters: Params, order: Sequence[str]) -> Iterator[dict[str, Any]]:
        """Every row matching `filters` (and the scope's), ascending by `order` (the id last),
        page after page until an empty page."""
        where = f"GET /rest/v1/{self.name}"
        last: list[Any] | None = None
        while True:
            params = [
                ("select", select),
                *self.scope_filters,
                *filters,
                ("order", ",".join(f"{c}.asc" for c in order)),
                ("limit", str(self.page_size)),
            ]
            if last is not None:
                params.append(after(order, last))
            page = self._rows(self._get(params))
            if not page:
                return
            tail = [page[-1].get(c) for c in order]
            if any(v is None for v in tail):
                raise TableError(f"supabase: {where}: rows lack {', '.join(order)} values")
            if tail == last:
                raise TableError(f"supabase: {where}: keyset paging made no progress at {tail}")
            yield from page
            last = tail

    def by_ids(self, select: str, ids: Sequence[str]) -> tuple[list[dict[str, Any]], bool]:
        """The scope's rows with these ids, and whether the answer is confirmed complete (each
        group's `Content-Range` total equals the rows received): then an id it lacks is gone
        from the scope — deleted, soft-deleted or moved to another scope."""
        rows: list[dict[str, Any]] = []
        confirmed = True
        for group in in_lists(ids):
            found, total = self._counted(select, [(self.id_column, in_filter(group))])
            confirmed = confirmed and total == len(found)
            rows += found
        return rows, confirmed

    def _counted(self, select: str, filters: Params) -> tuple[list[dict[str, Any]], int | None]:
        """The rows by id pages, and the total the first page's `Content-Range` gave
        (`Prefer: count=exact`); paging stops at that total or an empty page."""
        found: list[dict[str, Any]] = []
        total: int | None = None
        last: Any = None
        while total is None or len(found) < total:
            params = [
                ("select", select),
                *self.scope_filters,
                *filters,
                ("order", f"{self.id_column}.asc"),
                ("limit", str(self.page_size)),
            ]
            if last is not None:
                params.append(after([self.id_column], [last]))
            response = self._get(params, {"Prefer": "count=exact"} if last is None else None)
            page = self._rows(response)
            if last is None:
                total = _total(response)
            if not page or page[-1].get(self.id_column) in (None, last):
                break
            found += page
            last = page[-1][self.id_column]
            if total is None:
                break  # no count to page towards: the answer cannot confirm anything
        return found, total


def _code(response: httpx.Response) -> str | None:
    try:
        data = response.json()
    except ValueError:
        return None
    return str(data.get("code")) if isinstance(data, dict) and data.get("code") else None


def _total(response: httpx.Response) -> int | None:
    match = _TOTAL.fullmatch(response.headers.get("Content-Range", "").strip())
    return int(match.group(1)) if match and match.group(1) != "*" else None
