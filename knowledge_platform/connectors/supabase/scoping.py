"""Which rows of a Supabase project a scope may read. One project usually holds every client's
rows, read with one service key, so nothing is implicit:

- every scope, `internal` included, lists its tables, and each table gives a `filter` (the
  scope's rows) or says `shared: true` (its rows belong to no client);
- `shared` is checked twice. When the registry is read: no scope filters that table (a filter
  says its rows belong to scopes). On every run: no row it gives holds a client id of the
  registry in any column it returns (`clients.id = 'acme'`, `notes.client = 'hot'`); a table
  that does is refused for the scope (`ClientRows`): its rows leave the scope and the run says
  which row named which client.

A per-scope JWT (row-level security) does not replace the filter: the registry alone says
which rows a scope reads, whatever a policy says today."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from knowledge_platform.connectors.supabase.api import TableError


class TableRule(Protocol):
    """What these rules read of a table's settings (settings.TableSettings)."""

    @property
    def name(self) -> str: ...
    @property
    def id_column(self) -> str: ...
    @property
    def filter(self) -> object: ...
    @property
    def shared(self) -> bool: ...


class ProjectTables(Protocol):
    """What these rules read of a scope's Supabase settings (settings.SupabaseSettings)."""

    @property
    def url(self) -> str: ...
    @property
    def tables(self) -> Sequence[TableRule]: ...


NO_TABLES = (
    "tables: list the tables this scope reads, each with a filter that picks the "
    "scope's rows (e.g. {name: memory, filter: {client_id: eq.{scope}}}; "
    "client_id: is.null in internal) or shared: true when no row of it belongs to a "
    "client; there is no default list"
)


class ClientRows(TableError):
    """A `shared` table gave a row that names a client: the table is refused for the scope."""


def check_tables(tables: Sequence[TableRule], scope: str) -> None:
    """Every table of `scope` says which of its rows the scope reads; ValueError otherwise."""
    for i, table in enumerate(tables):
        if table.filter is not None and table.shared:
            raise ValueError(f"tables.{i} ({table.name}): give a filter or shared: true, not both")
        if table.filter is None and not table.shared:
            example = "is.null" if scope == "internal" else "eq.{scope}"
            raise ValueError(
                f"tables.{i} ({table.name}): say which of its rows are {scope}'s: give a "
                f"filter (e.g. filter: {{client_id: {example}}}) or, if no row of it belongs "
                "to a client, shared: true"
            )


def check_shared(by_scope: Mapping[str, ProjectTables]) -> None:
    """A table one scope filters is shared by no other scope of the same project."""
    filtered: dict[tuple[str, str], str] = {}
    for scope, cfg in by_scope.items():
        for table in cfg.tables:
            if table.filter is not None:
                filtered.setdefault((_project(cfg.url), table.name), scope)
    for scope, cfg in by_scope.items():
        for i, table in enumerate(cfg.tables):
            other = filtered.get((_project(cfg.url), table.name))
            if table.shared and other is not None:
                where = scope if scope == "internal" else f"clients.{scope}"
                raise ValueError(
                    f"{where}.sources.supabase.tables.{i} ({table.name}) is shared: true, but "
                    f"{other} filters it, so its rows belong to scopes and none may read all "
                    "of them; give it a filter here too (e.g. filter: {client_id: eq.{scope}})"
                )


def refuse_client_rows(
    rows: Iterable[dict[str, Any]], table: TableRule, client_ids: Sequence[str]
) -> None:
    """Raises ClientRows when `table` is shared and a row holds one of `client_ids` (compared
    without case) as the whole value of a column."""
    if not table.shared or not client_ids:
        return
    wanted = {c.casefold(): c for c in client_ids}
    for row in rows:
        for column, value in row.items():
            if isinstance(value, str) and value.strip().casefold() in wanted:
                client = wanted[value.strip().casefold()]
                raise ClientRows(
                    f"supabase: table {table.name} is shared: true, but row "
                    f"{row.get(table.id_column)!r} names client {client!r} in {column}; "
                    "shared means no row belongs to a client: give the table a filter (e.g. "
                    f"filter: {{{column}: eq.{{scope}}}}) or leave it out of this scope"
                )


def _project(url: str) -> str:
    return url.rstrip("/").lower()
