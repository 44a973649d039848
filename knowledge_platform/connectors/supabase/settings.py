"""Supabase's registry settings: the project, its key and the tables to read."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from knowledge_platform.connectors.http import HttpSettings
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

    def columns(self) -> str:
        """`select`, with the id and change columns added when a list is given."""
        if self.select.strip() == "*":
            return "*"
        cols = [c.strip() for c in self.select.split(",") if c.strip()]
        needed = [self.id_column, *([self.updated_column] if self.updated_column else [])]
        return ",".join([*cols, *(c for c in needed if c not in cols)])


def _default_tables() -> list[TableSettings]:
    return [
        TableSettings(name="memory", kind="memory"),
        TableSettings(name="standing_rules"),
        TableSettings(name="clients"),
        TableSettings(name="tests"),
    ]


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
    #: Which key to fetch: `service_role` (legacy JWT) or a secret key's name.
    service_key_name: str = "service_role"
    management_url: str = "https://api.supabase.com"
    tables: list[TableSettings] = Field(default_factory=_default_tables)
    #: Rows asked for per request; the server may return fewer (db-max-rows).
    page_size: int = Field(default=1000, ge=1, le=10_000)
    overlap_seconds: int = Field(default=60, ge=0)
    #: Sweep ids on incremental pulls to report deletions (ids only: cheap).
    sweep_deletions: bool = True

    @model_validator(mode="after")
    def _unique_tables(self) -> SupabaseSettings:
        names = [t.name for t in self.tables]
        if len(names) != len(set(names)):
            raise ValueError(f"tables are listed twice: {sorted(names)}")
        return self
