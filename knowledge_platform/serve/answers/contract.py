"""The answer contract `knowledge_ask` returns in every mode.

`extractive`: sentences quoted from the sources, no language model. `llm`: a chat model's
synthesis over the same numbered sources. `not_found`: nothing retrieved answers the
question well enough; the nearest sources are listed as citations. Citations are numbered
in the order the answer first uses them. Where sources give different values for the same
thing, `conflicts` shows every claim with its citation, and a `conflict` warning says so.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field

from knowledge_platform.models import Reference
from knowledge_platform.serve.question import InterpretedDates

EXTRACTIVE_LABEL = "Extractive answer (quoted from the sources, no language model):"
NOT_FOUND = "Not found in the knowledge base."
Mode = Literal["extractive", "llm", "not_found"]


class Citation(Reference):
    number: int


class Claim(BaseModel):
    """One source's side of a conflict."""

    citation: int = Field(description="number of the citation that makes this claim")
    value: str = Field(description="the value as the source writes it")
    text: str = Field(default="", description="the sentence the value comes from")
    title: str
    source: str
    date: dt.date | None = None


class Conflict(BaseModel):
    kind: str = Field(
        description="what differs: code, date, time, weekday, duration, "
        "frequency, percent, money, number, name, or model"
    )
    claims: list[Claim]
    newer: int | None = Field(
        default=None,
        description="citation number of the most recently dated claim, when the dates differ",
    )


class Answer(BaseModel):
    answer: str = Field(description="the answer, citing sources as [n]")
    citations: list[Citation] = Field(
        default_factory=list, description=("number, title, doc_id, url/uri, source, date")
    )
    confidence: float = Field(ge=0.0, le=1.0, description="0-1: how well the sources answer")
    warnings: list[str] = Field(default_factory=list, description="notes on the answer")
    mode: Mode = Field(description="how it was made: quoted, synthesised, or not found")
    conflicts: list[Conflict] = Field(
        default_factory=list, description="sources that disagree: kind, claims, newer"
    )
    interpreted_dates: InterpretedDates | None = Field(
        default=None, description=("date window applied, if any")
    )
    retrieval_date: dt.datetime = Field(description="when the sources were read (UTC)")


def now_utc() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)
