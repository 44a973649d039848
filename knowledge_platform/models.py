"""Documents, chunks and search hits: the provenance contract every layer shares."""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

Kind = Literal["memory", "task", "doc", "sheet", "slide", "row", "page", "runbook", "decision",
               "attachment"]
Lifecycle = Literal["stable", "draft", "deprecated"]
LIFECYCLES: tuple[Lifecycle, ...] = get_args(Lifecycle)
Trust = Literal["internal", "client", "public"]
#: Who may read a document, least to most guarded (see access.VISIBLE).
Confidentiality = Literal["public", "internal", "restricted"]
CONFIDENTIALITY_LEVELS: tuple[Confidentiality, ...] = ("public", "internal", "restricted")

CHUNK_NAMESPACE = uuid.UUID("5f1c2b9e-8d0a-4c31-9a57-3e6f0b7d2c41")


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_id(scope: str, source: str, source_id: str, ordinal: int) -> str:
    """Deterministic chunk id (and Qdrant point id): re-runs overwrite, never duplicate."""
    return str(uuid.uuid5(CHUNK_NAMESPACE, f"{scope}|{source}|{source_id}|{ordinal}"))


def doc_id(source: str, source_id: str) -> str:
    return f"{source}:{source_id}"


class Document(BaseModel):
    """One source document, as pulled; the unit of incremental work."""

    model_config = ConfigDict(frozen=True)

    source: str
    source_id: str
    scope: str
    title: str
    text: str
    kind: Kind
    url: str | None = None
    uri: str | None = None
    date: dt.date | None = None
    version: str = ""
    lifecycle: Lifecycle = "stable"
    trust: Trust = "internal"
    confidentiality: str = "internal"
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def doc_id(self) -> str:
        return doc_id(self.source, self.source_id)

    @property
    def content_hash(self) -> str:
        return content_hash(self.title + "\n" + self.text)


class Chunk(BaseModel):
    """A piece of a document sized to the embedding model's window, with full provenance."""

    model_config = ConfigDict(frozen=True)

    id: str
    doc_id: str
    source: str
    source_id: str
    scope: str
    title: str
    text: str
    headers: list[str]
    ordinal: int
    kind: Kind
    url: str | None = None
    uri: str | None = None
    date: dt.date | None = None
    version: str = ""
    lifecycle: Lifecycle = "stable"
    trust: Trust = "internal"
    confidentiality: str = "internal"
    tokens: int = 0
    #: sha256 of embedding_text(): the embedding cache key.
    content_hash: str = ""
    #: sha256 of the text and every provenance field: a point whose fingerprint matches is
    #: unchanged; a differing one is rewritten (with its cached vector if only metadata moved).
    fingerprint: str = ""
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def successor(self) -> str | None:
        """The doc id of the document that supersedes this one's (see supersession.py)."""
        value = self.extra.get("successor")
        return str(value) if value else None

    @property
    def sha(self) -> str | None:
        """The git commit this chunk's text was read at (git sources), else None."""
        value = self.extra.get("commit")
        return str(value) if value else None

    def embedding_text(self) -> str:
        """What the models read: the header trail gives a section its context."""
        trail = " > ".join(h for h in [self.title, *self.headers] if h)
        return f"{trail}\n{self.text}" if trail else self.text

    def payload(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", exclude={"id"})
        data["chunk_id"] = self.id
        return data

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> Chunk:
        data = dict(payload)
        data["id"] = data.pop("chunk_id")
        return cls.model_validate(data)


class SparseVector(BaseModel):
    model_config = ConfigDict(frozen=True)

    indices: list[int]
    values: list[float]


class Point(BaseModel):
    """What a store holds per chunk: id, both vectors and the chunk as payload."""

    id: str
    dense: list[float]
    sparse: SparseVector
    payload: dict[str, Any]


class Hit(BaseModel):
    chunk: Chunk
    score: float
