"""Supabase (PostgREST): one document per row of each configured table.

Rows are read with keyset pagination (`order=<id>.asc&<id>=gt.<last>&limit=N`) until a page
comes back empty: the server's max-rows cap (1000 on Supabase) silently shortens pages, so a
short page proves nothing. Incremental pulls add `<updated_column>=gte.<high water - overlap>`.
Deletions: PostgREST has no change feed, so every incremental pull also sweeps the ids
(`select=<id>`, same keyset paging, ids only) and reports ids that disappeared since the
cursor's id set; a full pull lists every row and the absent ones are gone by definition.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

from knowledge_platform.connectors.base import NOTHING_KNOWN, Known, PullResult, Skipped
from knowledge_platform.connectors.http import (
    HttpClient,
    HttpConnector,
)
from knowledge_platform.connectors.supabase.keys import fetch_service_key, project_ref_from_url
from knowledge_platform.connectors.supabase.rows import parse_timestamp, row_document
from knowledge_platform.connectors.supabase.settings import SupabaseSettings, TableSettings
from knowledge_platform.errors import ConfigError, SourceError
from knowledge_platform.models import Document

_IDS_PER_REQUEST = 100  # ids per `in.(...)` filter: well inside any URL length limit


class SupabaseConnector(HttpConnector):
    name = "supabase"
    settings_model = SupabaseSettings
    settings: SupabaseSettings

    @property
    def cfg(self) -> SupabaseSettings:
        return self.settings

    def pull(
        self, cursor: dict[str, Any] | None, *, full: bool = False, known: Known = NOTHING_KNOWN
    ) -> PullResult:
        cfg = self.cfg
        key = self._service_key()
        headers = {"apikey": key, "Accept": "application/json"}
        if not key.startswith("sb_"):  # legacy JWT keys; new sb_secret_ keys go in apikey only
            headers["Authorization"] = f"Bearer {key}"
        full = full or not cursor or "tables" not in cursor
        old: dict[str, Any] = {} if full else dict((cursor or {}).get("tables") or {})
        client = HttpClient.from_settings(
            "supabase",
            cfg,
            headers=headers,
            auth_hint=f"check the service key {self._key_source()}",
            sleep=self._sleep,
            clock=self._clock,
            transport=self._transport,
        )
        documents: list[Document] = []
        skipped: list[Skipped] = []
        deleted: list[str] = []
        state: dict[str, Any] = {}
        with client as http:
            for table in cfg.tables:
                docs, skips, gone, state[table.name] = self._pull_table(
                    http, table, old.pop(table.name, None)
                )
                documents += docs
                skipped += skips
                deleted += gone
            for name, table_state in old.items():  # tables no longer configured
                deleted += [f"{name}:{i}" for i in table_state.get("ids") or []]
            requests = http.requests
        return PullResult(
            documents=documents,
            full=full,
            deleted=sorted(deleted),
            skipped=skipped,
            cursor={"tables": state},
            requests=requests,
        )

    def _uses_management_api(self) -> bool:
        cfg = self.cfg
        return bool(cfg.management_token_ref or cfg.management_token_env)

    def _key_source(self) -> str:
        if self._uses_management_api():
            return f"fetched with the management token in {self.cfg.secret('management_token')}"
        return f"in {self.cfg.secret('key')}"

    def _service_key(self) -> str:
        """The service key: fetched per run through the Management API when a management
        token is configured, else read from the key's variable or reference."""
        cfg = self.cfg
        if not self._uses_management_api():
            return cfg.resolve_secret("key", owner="supabase", what="Supabase service key")
        ref = cfg.project_ref or project_ref_from_url(cfg.url)
        if not ref:
            raise ConfigError("supabase: name project_ref (the url is not "
                              "https://<ref>.supabase.co) to fetch the key with the management "
                              "token")
        token = cfg.resolve_secret("management_token", owner="supabase",
                                   what="Supabase management token")
        return fetch_service_key(ref, token, key_name=cfg.service_key_name,
                                 base_url=cfg.management_url, timeout=cfg.timeout_seconds,
                                 max_retries=cfg.max_retries, sleep=self._sleep,
                                 clock=self._clock, transport=self._transport)

    def _pull_table(
        self, http: HttpClient, table: TableSettings, prev: dict[str, Any] | None
    ) -> tuple[list[Document], list[Skipped], list[str], dict[str, Any]]:
        cfg = self.cfg
        whole = prev is None or table.updated_column is None or not prev.get("high_water")
        filters: list[tuple[str, str]] = []
        if not whole and prev is not None and table.updated_column:
            since = parse_timestamp(prev["high_water"])
            if since is None:
                whole = True
            else:
                since -= dt.timedelta(seconds=cfg.overlap_seconds)
                filters.append((table.updated_column, f"gte.{since.isoformat()}"))
        rows = list(self._keyset(http, table, table.columns(), filters))
        ids: set[str] | None = None
        if not whole and cfg.sweep_deletions:
            sweep = self._keyset(http, table, table.id_column, [])
            ids = {str(r[table.id_column]) for r in sweep}
            # Ids the sweep finds that neither the cursor nor this pull knows: rows written
            # with an updated_at below the high-water mark (a backfill, a restore). Fetch them.
            known = set(prev.get("ids") or []) if prev else set()
            known |= {str(r[table.id_column]) for r in rows if table.id_column in r}
            rows += self._by_ids(http, table, sorted(ids - known))
        documents: list[Document] = []
        skipped: list[Skipped] = []
        high_water = parse_timestamp(prev.get("high_water")) if prev else None
        for row in rows:
            result = row_document(row, table, self.scope, cfg.url, cfg.confidentiality)
            if isinstance(result, Skipped):
                skipped.append(result)
            else:
                documents.append(result)
            if table.updated_column and isinstance(row, dict):
                stamp = parse_timestamp(row.get(table.updated_column))
                if stamp is not None and (high_water is None or stamp > high_water):
                    high_water = stamp
        if whole:
            ids = {str(r[table.id_column]) for r in rows if table.id_column in r}
        old_ids = set(prev.get("ids") or []) if prev else set()
        if ids is None:  # no sweep: remember what we have seen, learn deletions on a full pull
            ids = old_ids | {str(r[table.id_column]) for r in rows if table.id_column in r}
            gone: list[str] = []
        else:
            gone = [f"{table.name}:{i}" for i in sorted(old_ids - ids)]
        stamp = high_water.isoformat() if high_water else None
        return documents, skipped, gone, {"high_water": stamp, "ids": sorted(ids)}

    def _by_ids(
        self, http: HttpClient, table: TableSettings, ids: list[str]
    ) -> list[dict[str, Any]]:
        """The rows with these ids (`id=in.(...)`, quoted, a hundred per request)."""
        rows: list[dict[str, Any]] = []
        for start in range(0, len(ids), _IDS_PER_REQUEST):
            part = ids[start : start + _IDS_PER_REQUEST]
            listed = ",".join('"' + i.replace("\\", "\\\\").replace('"', '\\"') + '"' for i in part)
            rows += self._keyset(
                http, table, table.columns(), [(table.id_column, f"in.({listed})")]
            )
        return rows

    def _keyset(
        self, http: HttpClient, table: TableSettings, select: str, filters: list[tuple[str, str]]
    ) -> Iterator[dict[str, Any]]:
        """Rows in id order, page after page, until an empty page (never `len < limit`)."""
        url = f"{self.cfg.url.rstrip('/')}/rest/v1/{table.name}"
        where = f"GET /rest/v1/{table.name}"
        idc = table.id_column
        last: Any = None
        while True:
            params = [("select", select), *filters, ("order", f"{idc}.asc")]
            params.append(("limit", str(self.cfg.page_size)))
            if last is not None:
                params.append((idc, f"gt.{last}"))
            page = http.get_json(url, params=params)
            if not isinstance(page, list):
                raise SourceError(f"supabase: {where} answered {type(page).__name__}, not rows")
            if not page:
                return
            tail = page[-1]
            if not isinstance(tail, dict) or tail.get(idc) is None:
                raise SourceError(f"supabase: {where}: rows lack the id column {idc!r}")
            if last is not None and str(tail[idc]) == str(last):
                raise SourceError(f"supabase: {where}: keyset paging made no progress at {last}")
            yield from (r for r in page if isinstance(r, dict))
            last = tail[idc]
