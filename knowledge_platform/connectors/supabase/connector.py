"""Supabase (PostgREST): one document per row of each configured table, restricted to the
scope's rows by the table's filter (or by row-level security under a per-scope JWT).

Per table, a full pull lists the scope's rows by keyset (`updated_at, id`, then the rows
whose `updated_at` is NULL, by id); absence from it is inferred. An ordinary run reads rows
with `updated_at >= high water - overlap` (soft-deleted ones included, as tombstones), then
sweeps the scope's ids (`select=id`), fetches ids it does not know (rows written below the
high-water mark, ids that failed last time) and looks up by id the known ones the sweep no
longer shows: an id the lookup's counted answer lacks is gone from the scope — deleted,
soft-deleted or moved to another client — and reported as a confirmed deletion. A truncated
sweep therefore deletes nothing. What the index holds (`known`) is the id list; the cursor
keeps only each table's high-water mark. A table that fails is skipped with its rows kept; a
404 PGRST205 (table not found) keeps them too, as a vanished container the deletion guard
holds; only when every table fails, or the key is refused, does the pull fail. A `shared`
table whose rows name a client is refused for the scope (scoping.py). See
docs/sync-contract.md."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from knowledge_platform.connectors.base import NOTHING_KNOWN, Known, PullResult, Skipped
from knowledge_platform.connectors.http import HttpClient, HttpConnector
from knowledge_platform.connectors.supabase.api import AccessRefused, Table, TableError
from knowledge_platform.connectors.supabase.cursor import SupabaseCursor, TableMark
from knowledge_platform.connectors.supabase.keys import fetch_service_key, project_ref_from_url
from knowledge_platform.connectors.supabase.rows import parse_timestamp, row_document
from knowledge_platform.connectors.supabase.scoping import ClientRows, refuse_client_rows
from knowledge_platform.connectors.supabase.settings import SupabaseSettings, TableSettings
from knowledge_platform.errors import ConfigError, SourceError
from knowledge_platform.models import Document


class _Pull:
    """What one pull gathered across tables."""

    def __init__(self) -> None:
        self.documents: list[Document] = []
        self.skipped: list[Skipped] = []
        self.deleted: set[str] = set()
        self.missing: set[str] = set()
        self.state: dict[str, TableMark] = {}

    def drop(self, table: str) -> None:
        """Forget what this pull read of `table` (it failed or was refused part way)."""
        self.documents = [d for d in self.documents if d.source_id.partition(":")[0] != table]
        self.deleted = {s for s in self.deleted if s.partition(":")[0] != table}
        self.missing = {s for s in self.missing if s.partition(":")[0] != table}

    def render(
        self, rows: list[dict[str, Any]], table: TableSettings, scope: str, cfg: SupabaseSettings
    ) -> None:
        refuse_client_rows(rows, table, cfg.client_ids)
        for row in rows:
            result = row_document(row, table, scope, cfg.url, cfg.confidentiality)
            if isinstance(result, Skipped):
                self.skipped.append(result)
            else:
                self.documents.append(result)


class SupabaseConnector(HttpConnector[SupabaseCursor]):
    name = "supabase"
    settings_model = SupabaseSettings
    cursor_model = SupabaseCursor
    settings: SupabaseSettings

    def __init__(self, settings: SupabaseSettings, scope: str, **kwargs: Any) -> None:
        super().__init__(settings, scope, **kwargs)
        try:
            self.cfg.check_scope(scope)
        except ValueError as exc:
            raise ConfigError(f"supabase for scope {scope!r}: {exc}") from None

    @property
    def cfg(self) -> SupabaseSettings:
        return self.settings

    def pull(
        self, cursor: SupabaseCursor | None, *, full: bool = False, known: Known = NOTHING_KNOWN
    ) -> PullResult[SupabaseCursor]:
        cfg = self.cfg
        full = full or cursor is None
        before = dict(cursor.tables) if cursor is not None else {}
        out = _Pull()
        failures: list[SourceError] = []
        with self._client() as http:
            for table in cfg.tables:
                ids = _known_ids(known.documents, table.name)
                covers = sorted(f"{table.name}:{i}" for i in ids)
                try:
                    prev = None if full else before.get(table.name, TableMark())
                    self._pull_table(http, table, prev, ids, known.retry, out)
                except AccessRefused:
                    raise
                except ClientRows as exc:  # the registry's own rule: its rows leave the scope
                    out.drop(table.name)
                    out.state.pop(table.name, None)  # read whole once the registry is fixed
                    out.skipped.append(
                        Skipped(
                            source_id=f"table {table.name}",
                            reason=str(exc).removeprefix("supabase: "),
                            covers=covers,
                            refused=True,
                        )
                    )
                except SourceError as exc:
                    failures.append(exc)
                    # 404 PGRST205 is also PostgREST's answer while its schema cache is stale
                    # after a migration: the table's absence is inferred, never confirmed.
                    out.skipped.append(
                        Skipped(
                            source_id=f"table {table.name}",
                            reason=str(exc).removeprefix("supabase: "),
                            covers=covers,
                            vanished=isinstance(exc, TableError) and exc.gone,
                        )
                    )
                    out.state.pop(table.name, None)  # read it again from where it was
                    if table.name in before:
                        out.state[table.name] = before[table.name]
            requests = http.requests
        if cfg.tables and len(failures) == len(cfg.tables):
            raise failures[0]  # every table failed: an outage of the source, change nothing
        if not full:  # tables no longer configured: their rows leave the scope
            names = {t.name for t in cfg.tables}
            out.deleted.update(s for s in known.documents if s.partition(":")[0] not in names)
        return PullResult(
            documents=out.documents,
            full=full,
            deleted=sorted(out.deleted),
            missing=sorted(out.missing - out.deleted),
            skipped=out.skipped,
            cursor=SupabaseCursor(tables=out.state),
            requests=requests,
        )

    # -- one table ---------------------------------------------------------------------------
    def _reader(self, http: HttpClient, table: TableSettings, *, live: bool = True) -> Table:
        return Table(
            http,
            self.cfg.url,
            table.name,
            table.id_column,
            table.conditions(self.scope, live=live),
            auth_hint=self._auth_hint(),
            page_size=self.cfg.page_size,
        )

    def _pull_table(
        self,
        http: HttpClient,
        table: TableSettings,
        prev: TableMark | None,
        known_ids: set[str],
        retry: frozenset[str],
        out: _Pull,
    ) -> None:
        """`prev` None: a full pull (absence is inferred by the merge). Otherwise an ordinary
        run: the changes and the id sweep, or the whole table when it has no change column
        or no high-water mark yet (newly configured), then the reconciliation by id."""
        mark = prev.high_water if prev else None
        since = parse_timestamp(mark)
        tombs: set[str] = set()
        listed: set[str] | None
        if since is None or table.updated_column is None:
            rows, high_water = self._whole(http, table)
            listed = {str(r[table.id_column]) for r in rows}
        else:
            rows, tombs, high_water = self._changes(http, table, since, str(mark))
            listed = self._sweep(http, table) if self.cfg.sweep_deletions else None
        out.state[table.name] = TableMark(
            high_water=high_water if isinstance(high_water, str) else None
        )
        out.render(rows, table, self.scope, self.cfg)
        if prev is not None:
            self._reconcile(http, table, rows, tombs, listed, known_ids, retry, out)

    def _whole(
        self, http: HttpClient, table: TableSettings
    ) -> tuple[list[dict[str, Any]], str | None]:
        reader, idc, uc = self._reader(http, table), table.id_column, table.updated_column
        if uc is None:
            return list(reader.walk(table.columns(), [], [idc])), None
        rows = list(reader.walk(table.columns(), [(uc, "not.is.null")], [uc, idc]))
        high_water = rows[-1][uc] if rows else None
        rows += reader.walk(table.columns(), [(uc, "is.null")], [idc])
        return rows, high_water

    def _changes(
        self, http: HttpClient, table: TableSettings, since: dt.datetime, mark: str
    ) -> tuple[list[dict[str, Any]], set[str], str]:
        """Rows changed since the high-water mark (less the overlap), live and soft-deleted;
        returns the live rows, the soft-deleted ids and the new high-water mark."""
        uc, idc = table.updated_column or "", table.id_column
        start = since - dt.timedelta(seconds=self.cfg.overlap_seconds)
        reader = self._reader(http, table, live=False)
        rows = list(reader.walk(table.columns(), [(uc, f"gte.{start.isoformat()}")], [uc, idc]))
        high_water = rows[-1][uc] if rows else mark
        soft = table.soft_delete_column
        tombs = {str(r[idc]) for r in rows if soft and r.get(soft) is not None}
        return [r for r in rows if str(r[idc]) not in tombs], tombs, high_water

    def _sweep(self, http: HttpClient, table: TableSettings) -> set[str]:
        idc = table.id_column
        return {str(r[idc]) for r in self._reader(http, table).walk(idc, [], [idc])}

    def _reconcile(
        self,
        http: HttpClient,
        table: TableSettings,
        rows: list[dict[str, Any]],
        tombs: set[str],
        listed: set[str] | None,
        known_ids: set[str],
        retry: frozenset[str],
        out: _Pull,
    ) -> None:
        """Fetch what the listing shows that the index lacks (and last run's failures); look
        up by id what the index holds that the listing no longer shows."""
        name, idc = table.name, table.id_column
        read = {str(r[idc]) for r in rows}
        again = {s.partition(":")[2] for s in retry if s.partition(":")[0] == name}
        lookup = again - read - tombs
        if listed is not None:
            lookup |= (listed - known_ids - read) | (known_ids - listed - tombs)
        out.deleted.update(f"{name}:{i}" for i in tombs)
        if not lookup:
            return
        found, complete = self._reader(http, table).by_ids(table.columns(), sorted(lookup))
        out.render([r for r in found if str(r.get(idc)) not in read], table, self.scope, self.cfg)
        gone = {f"{name}:{i}" for i in (lookup & known_ids) - {str(r.get(idc)) for r in found}}
        emptied = listed is not None and not listed and bool(known_ids)
        # Confirmed only by a counted answer, and never for a table that now lists nothing at
        # all (a revoked policy or a wrong JWT looks exactly like that): those are inferred.
        (out.deleted if complete and not emptied else out.missing).update(gone)

    # -- credentials ---------------------------------------------------------------------------
    def _client(self) -> HttpClient:
        cfg = self.cfg
        key = self._project_key()
        headers = {"apikey": key, "Accept": "application/json"}
        if cfg.jwt_env or cfg.jwt_ref:  # row-level security reads this JWT's claims
            jwt = cfg.resolve_secret("jwt", owner="supabase", what="Supabase user JWT")
            headers["Authorization"] = f"Bearer {jwt}"
        elif not key.startswith("sb_"):  # legacy JWT keys; new sb_ keys go in apikey only
            headers["Authorization"] = f"Bearer {key}"
        return HttpClient.from_settings(
            "supabase",
            cfg,
            headers=headers,
            auth_hint=self._auth_hint(),
            sleep=self._sleep,
            clock=self._clock,
            transport=self._transport,
        )

    def _uses_management_api(self) -> bool:
        return bool(self.cfg.management_token_ref or self.cfg.management_token_env)

    def _auth_hint(self) -> str:
        cfg = self.cfg
        if self._uses_management_api():
            return (
                "check the service key fetched with the management token in "
                f"{cfg.secret('management_token')}"
            )
        if cfg.jwt_env or cfg.jwt_ref:
            return (
                f"check the key in {cfg.secret('key')} and the JWT in {cfg.secret('jwt')} "
                "(expired? signed with this project's JWT secret?)"
            )
        return f"check the service key in {cfg.secret('key')}"

    def _project_key(self) -> str:
        """The key: fetched per run through the Management API when a management token is
        configured, else read from the key's variable or reference."""
        cfg = self.cfg
        if not self._uses_management_api():
            return cfg.resolve_secret("key", owner="supabase", what="Supabase service key")
        ref = cfg.project_ref or project_ref_from_url(cfg.url)
        if not ref:
            raise ConfigError(
                "supabase: name project_ref (the url is not "
                "https://<ref>.supabase.co) to fetch the key with the management "
                "token"
            )
        token = cfg.resolve_secret(
            "management_token", owner="supabase", what="Supabase management token"
        )
        return fetch_service_key(
            ref,
            token,
            key_name=cfg.service_key_name,
            base_url=cfg.management_url,
            timeout=cfg.timeout_seconds,
            max_retries=cfg.max_retries,
            sleep=self._sleep,
            clock=self._clock,
            transport=self._transport,
        )


def _known_ids(documents: Iterable[str], table: str) -> set[str]:
    prefix = f"{table}:"
    return {s[len(prefix) :] for s in documents if s.startswith(prefix)}
