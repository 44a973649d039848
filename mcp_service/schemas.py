"""Typed tool results (the structured content every tool returns). Every top-level field is
described: the published output schemas are built from these descriptions (catalogue.py)."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, Field, field_serializer, model_validator

from knowledge_platform.models import Kind, Lifecycle, Reference
from knowledge_platform.serve.decisions import Decision
from knowledge_platform.serve.question import InterpretedDates
from mcp_service.dagster_models import LaunchedRun
from mcp_service.snippets import snippet

_CURSOR = "cursor of the next page"


def _absent(value: object) -> bool:
    return value is None


class SearchHit(Reference):
    """A passage as a search shows it: its snippet and handles (doc_id, ordinal); the whole
    text is one get_document away. Fields that say nothing here are left out."""

    text: str = Field(exclude=True, description="the whole passage (not sent)")
    snippet: str = ""
    score: float
    headers: list[str] = Field(default_factory=list)
    ordinal: int = 0
    source_id: str = Field(exclude=True)
    version: str = Field(default="", exclude=True)
    confidentiality: str = Field(default="internal", exclude=True)
    url: str | None = Field(default=None, exclude_if=_absent)
    uri: str | None = Field(default=None, exclude_if=_absent)
    date: dt.date | None = Field(default=None, exclude_if=_absent)
    sha: str | None = Field(default=None, exclude=True)
    superseded_by: str | None = Field(default=None, exclude_if=_absent)

    @field_serializer("score")
    def _score(self, score: float) -> float:
        return round(score, 3)


_DATES = "date window applied, if any"


class SearchResult(BaseModel):
    query: str = Field(description="the query as searched")
    scope: str = Field(description="the scope searched")
    interpreted_dates: InterpretedDates | None = Field(default=None, description=_DATES)
    hits: list[SearchHit] = Field(
        description=(
            "ranked: title, doc_id, ordinal, source, kind, date, url/uri, score, headers, snippet, "
            "superseded_by"
        )
    )
    warnings: list[str] = Field(default_factory=list, description="notes on the results")

    @model_validator(mode="after")
    def _snippets(self) -> SearchResult:
        for hit in self.hits:
            if not hit.snippet:
                hit.snippet = snippet(hit.text, self.query)
        return self


class ContextBlock(Reference):
    """One document's sections around its best hit (whose page, slide or sheet it names)."""

    text: str = Field(description="Whole sections around the best hits, in document order")
    sections: list[list[str]] = Field(default_factory=list)
    ordinals: list[int] = Field(default_factory=list)
    tokens: int = 0
    score: float = 0.0


class ContextResult(BaseModel):
    topic: str = Field(description="the topic as searched")
    scope: str = Field(description="the scope searched")
    interpreted_dates: InterpretedDates | None = Field(default=None, description=_DATES)
    blocks: list[ContextBlock] = Field(
        description=(
            "per document: title, doc_id, url/uri, date, text (sections around the matches)"
        )
    )
    tokens: int = Field(description="tokens of text in all blocks")
    max_tokens: int = Field(description="the budget asked for")
    truncated: bool = Field(default=False, description="text was left out for the budget")
    warnings: list[str] = Field(default_factory=list, description="notes on the results")


class MemoryEntry(Reference):
    text: str
    truncated: bool = False


class MemoryList(BaseModel):
    scope: str = Field(description="the scope listed")
    date_from: dt.date = Field(description="first day of the window (UTC)")
    date_to: dt.date = Field(description="last day of the window (UTC)")
    entries: list[MemoryEntry] = Field(
        description=(
            "newest first: title, doc_id, date, text, truncated (get_document has the rest)"
        )
    )
    next_cursor: str | None = Field(default=None, description=_CURSOR)


class DocumentResult(Reference):
    page: int | None = Field(default=None, exclude=True)  # a whole document: no page,
    slide: int | None = Field(default=None, exclude=True)  # slide or sheet of its own
    sheet: int | None = Field(default=None, exclude=True)
    # The catalogue shows each field of a document: its shortest true description.
    sha: str | None = Field(default=None, description="git commit read")
    superseded_by: str | None = Field(
        default=None, exclude_if=_absent, description="doc_id of its replacement"
    )
    file_name: str | None = Field(
        default=None, exclude_if=_absent, description="file it was converted from"
    )
    mime_type: str | None = Field(default=None, exclude_if=_absent, description="its MIME type")
    stale: str | None = Field(
        default=None, exclude_if=_absent, description="why this is the last good version"
    )
    last_refreshed: dt.datetime | None = Field(
        default=None, exclude_if=_absent, description="when last read as current"
    )
    text: str = Field(description="this page of the text")
    chunks: int = Field(description="passages stored")
    sections: list[list[str]] = Field(default_factory=list, description="section header trails")
    next_cursor: str | None = Field(default=None, description=_CURSOR)


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
    scope: str = Field(description="the scope listed")
    prefix: str | None = Field(default=None, description="the path prefix filtered on")
    tag: str | None = Field(default=None, description="the tag filtered on")
    runbooks: list[RunbookEntry] = Field(
        description=(
            "by path: title, path, doc_id, url/uri, lifecycle, sha, updated, tags, superseded_by"
        )
    )
    warnings: list[str] = Field(default_factory=list, description="notes on the list")
    next_cursor: str | None = Field(default=None, description=_CURSOR)


class DecisionList(BaseModel):
    scope: str = Field(description="the scope listed")
    decisions: list[Decision] = Field(
        description=(
            "newest first: date, status, summary, title, citation, superseded_by, supersedes"
        )
    )
    next_cursor: str | None = Field(default=None, description=_CURSOR)


class ReindexResult(BaseModel):
    message: str = Field(description="how many runs were launched or failed")
    dagster_url: str = Field(description="the Dagster UI the runs are in")
    runs: list[LaunchedRun] = Field(description="one per source x scope: run_id or error")
