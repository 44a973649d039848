"""Typed tool results (the structured content every tool returns)."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, Field

from knowledge_platform.decisions import Decision
from knowledge_platform.models import Kind, Lifecycle, Reference
from knowledge_platform.serve.question import InterpretedDates
from mcp_service.dagster_models import LaunchedRun


class SearchHit(Reference):
    text: str
    score: float
    headers: list[str] = Field(default_factory=list)
    ordinal: int = 0


_DATES = ("the date window applied (from the question's words or date_from/date_to); "
          "absent when none")


class SearchResult(BaseModel):
    query: str
    scope: str
    interpreted_dates: InterpretedDates | None = Field(default=None, description=_DATES)
    hits: list[SearchHit]
    warnings: list[str] = Field(default_factory=list)


class ContextBlock(Reference):
    """One document's sections around its best hit (whose page, slide or sheet it names)."""

    text: str = Field(description="Whole sections around the best hits, in document order")
    sections: list[list[str]] = Field(default_factory=list)
    ordinals: list[int] = Field(default_factory=list)
    tokens: int = 0
    score: float = 0.0


class ContextResult(BaseModel):
    topic: str
    scope: str
    interpreted_dates: InterpretedDates | None = Field(default=None, description=_DATES)
    blocks: list[ContextBlock]
    tokens: int
    max_tokens: int
    truncated: bool = Field(default=False,
                            description="True if relevant text was left out for the budget")
    warnings: list[str] = Field(default_factory=list)


class MemoryEntry(Reference):
    text: str
    truncated: bool = False


class MemoryList(BaseModel):
    scope: str
    date_from: dt.date
    date_to: dt.date
    entries: list[MemoryEntry]


class DocumentResult(Reference):
    text: str
    chunks: int
    sections: list[list[str]] = Field(default_factory=list)


class RunbookEntry(BaseModel):
    title: str
    path: str
    doc_id: str
    uri: str | None = None
    url: str | None = None
    kind: Kind
    lifecycle: Lifecycle
    confidentiality: str = "internal"
    sha: str | None = Field(default=None, description="Last commit that changed the file")
    updated: dt.date | None = Field(default=None, description="Date of that commit")
    tags: list[str] = Field(default_factory=list)
    superseded_by: str | None = None


class RunbookList(BaseModel):
    scope: str
    prefix: str | None = None
    tag: str | None = None
    runbooks: list[RunbookEntry]
    warnings: list[str] = Field(default_factory=list)


class DecisionList(BaseModel):
    scope: str
    decisions: list[Decision]


class ReindexResult(BaseModel):
    message: str
    dagster_url: str
    runs: list[LaunchedRun]
