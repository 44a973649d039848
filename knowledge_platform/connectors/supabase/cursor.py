"""What a Supabase pull leaves for the next: each table's high-water mark."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from knowledge_platform.connectors.cursor import BaseCursor


class TableMark(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    #: The newest `updated_column` value read (PostgREST's timestamp string); None: the table
    #: has no change column, or no row with a value yet (read whole next run).
    high_water: str | None = None


class SupabaseCursor(BaseCursor):
    #: Table name -> its mark; a table absent here is read whole next run.
    tables: dict[str, TableMark] = Field(default_factory=dict)
