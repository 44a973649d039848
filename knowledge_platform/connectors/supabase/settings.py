"""Supabase's registry settings: the project, its key and the tables to read, each with the
PostgREST filter that picks the scope's rows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from knowledge_platform.connectors.base import SourceSettings
from knowledge_platform.connectors.http import HttpSettings
from knowledge_platform.connectors.supabase.filters import FilterError, for_scope, parse_filter
from knowledge_platform.connectors.supabase.scoping import NO_TABLES, check_shared, check_tables
from knowledge_platform.models import Kind
from knowledge_platform.secrets.fields import EnvName, VaultRef


class TableSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    id_column: str = "id"
    #: None: the table has no change column; every pull reads it whole.
    updated_column: str | None = "updated_at"
    #: `str.format` templates over the row (`{title}\n\n{body}`); None renders every column.
    title_template: str | None = None
    text_template: str | None = None
    kind: Kind = "row"
    #: Column giving the document date; defaults to `updated_column`.
    date_column: str | None = None
    select: str = "*"
    #: The scope's rows: `{column: "op.value"}` or a raw `client_id=eq.{scope}` (the scope's
    #: id replaces `{scope}`); see filters.py. Every table gives one, or says `shared`.
    filter: dict[str, str | list[str]] | str | None = None
    #: The table's rows belong to no client (a reference table): every scope listing it reads
    #: all of them. Checked: no scope may filter it, and no row it gives may name a client of
    #: the registry (scoping.py).
    shared: bool = False
    #: A soft-delete column: rows where it is set are deleted (tombstones in the change feed).
    soft_delete_column: str | None = None

    @field_validator("filter")
    @classmethod
    def _valid_filter(cls, value: Any) -> Any:
        if value is not None:
            try:
                parse_filter(value)
            except FilterError as exc:
                raise ValueError(f"filter: {exc}") from None
        return value

    def conditions(self, scope: str, *, live: bool = True) -> list[tuple[str, str]]:
        """The query parameters that pick the scope's rows; `live` adds the soft-delete test
        (`<column>=is.null`), left out when reading changes so a deletion shows."""
        pairs = for_scope(parse_filter(self.filter), scope) if self.filter is not None else []
        if live and self.soft_delete_column:
            pairs.append((self.soft_delete_column, "is.null"))
        return pairs

    def columns(self) -> str:
        """`select`, with the id and change columns added when a list is given."""
        if self.select.strip() == "*":
            return "*"
        cols = [c.strip() for c in self.select.split(",") if c.strip()]
        needed = [self.id_column, *(c for c in (self.updated_column, self.soft_delete_column) if c)]
        return ",".join([*cols, *(c for c in needed if c not in cols)])


class SupabaseSettings(HttpSettings):
    #: Project URL (`https://<ref>.supabase.co`); the REST API is at `/rest/v1`.
    url: str
    #: The service key (a legacy service_role JWT or an sb_secret_ key).
    key_env: EnvName | None = "SUPABASE_SERVICE_KEY"
    key_ref: VaultRef | None = None
    #: Or: a Management API token, with which each run fetches the project's service key
    #: (`GET /v1/projects/{project_ref}/api-keys`) instead of keeping one in the environment.
    management_token_env: EnvName | None = None
    management_token_ref: VaultRef | None = None
    #: The project ref; derived from `url` when it is `https://<ref>.supabase.co`.
    project_ref: str | None = None
    #: A user JWT for this scope, sent as `Authorization: Bearer` beside `key` (then the anon
    #: or publishable key) so the project's row-level security picks the scope's rows.
    jwt_env: EnvName | None = None
    jwt_ref: VaultRef | None = None
    #: Which key to fetch: `service_role` (legacy JWT) or a secret key's name.
    service_key_name: str = "service_role"
    management_url: str = "https://api.supabase.com"
    #: The tables this scope reads; no default (a default list once read every client's rows
    #: into `internal`). Each gives a `filter` or says `shared: true` (scoping.py).
    tables: list[TableSettings]
    #: Rows asked for per request; the server may return fewer (db-max-rows).
    page_size: int = Field(default=1000, ge=1, le=10_000)
    overlap_seconds: int = Field(default=60, ge=0)
    #: Sweep ids on incremental pulls to report deletions (ids only: cheap).
    sweep_deletions: bool = True

    @model_validator(mode="before")
    @classmethod
    def _tables_listed(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("tables"):
            raise ValueError(NO_TABLES)
        return data

    @model_validator(mode="after")
    def _unique_tables(self) -> SupabaseSettings:
        names = [t.name for t in self.tables]
        if len(names) != len(set(names)):
            raise ValueError(f"tables are listed twice: {sorted(names)}")
        return self

    @model_validator(mode="after")
    def _scope_rows_only(self, info: ValidationInfo) -> SupabaseSettings:
        """Every table says which rows are the scope's (the registry passes the scope as
        validation context; the connector checks again). A `shared` table's rows must name
        none of the registry's `client_ids` (checked as they are read)."""
        context = info.context if isinstance(info.context, dict) else {}
        if context.get("scope"):
            self.check_scope(context["scope"])
        return self

    def check_scope(self, scope: str) -> None:
        check_tables(self.tables, scope)

    @classmethod
    def check_scopes(cls, by_scope: Mapping[str, SourceSettings]) -> None:
        check_shared(cls.mine(by_scope))
