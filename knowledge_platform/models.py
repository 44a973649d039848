"""Documents, chunks and search hits: the provenance contract every layer shares."""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid
from typing import Any, Literal, Self, get_args

from pydantic import BaseModel, ConfigDict, Field

Kind = Literal[
    "memory", "task", "doc", "sheet", "slide", "row", "page", "runbook", "decision", "attachment"
]
Lifecycle = Literal["stable", "draft", "deprecated"]
LIFECYCLES: tuple[Lifecycle, ...] = get_args(Lifecycle)
Trust = Literal["internal", "client", "public"]
#: How long a text stays true: an event as of its date (a log entry), a standing text until
#: changed (a rule, a roster, a runbook). See dating.py.
TimeKind = Literal["event", "standing"]
#: Who may read a document, least to most guarded (see access.VISIBLE).
Confidentiality = Literal["public", "internal", "restricted"]
CONFIDENTIALITY_LEVELS: tuple[Confidentiality, ...] = ("public", "internal", "restricted")

#: Keys of `extra` a Reference shows: a converted file's name and MIME type, the page, slide or
#: sheet a chunk is on (chunking._located), why a document was kept at its last good version
#: and when that version was last read (sync.merge_pull).
FILE_NAME, MIME_TYPE = "file_name", "mime_type"
UNITS = ("page", "slide", "sheet")
STALE, LAST_REFRESHED = "stale", "last_refreshed"
#: Key of `extra` naming a single mail's writer (its "From:" line, chunking.mail_writer): who
#: its first-person sentences are said by ("message me — I'm the Scribeway admin").
WRITER = "writer"

CHUNK_NAMESPACE = uuid.UUID("5f1c2b9e-8d0a-4c31-9a57-3e6f0b7d2c41")


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_id(scope: str, source: str, source_id: str, ordinal: int) -> str:
    """Deterministic chunk id (and Qdrant point id): re-runs overwrite, never duplicate."""
    return str(uuid.uuid5(CHUNK_NAMESPACE, f"{scope}|{source}|{source_id}|{ordinal}"))


def doc_id(source: str, source_id: str) -> str:
    return f"{source}:{source_id}"


class Provenance(BaseModel):
    """Where a text comes from. Documents and chunks store these fields, and every hit,
    citation and decision the platform returns carries them (see `Reference`): a field added
    here reaches all of them."""

    source: str = Field(description="e.g. clickup")
    source_id: str = Field(description="id in the source")
    scope: str = Field(description="internal or a client id")
    title: str = Field(description="document title")
    kind: Kind = Field(description="memory, task, doc, runbook, decision...")
    url: str | None = Field(default=None, description="link for people")
    uri: str | None = Field(default=None, description="where it is read from")
    date: dt.date | None = Field(default=None, description="when it was said")
    time_kind: TimeKind = Field(
        default="standing", description=("event: true on its date; standing: until changed")
    )
    version: str = Field(default="", description="source version")
    lifecycle: Lifecycle = Field(default="stable", description="stable, draft or deprecated")
    confidentiality: str = Field(default="internal", description="public, internal or restricted")


class Record(Provenance):
    """What the pipeline keeps of a text: its provenance, the text, the trust tier and the
    source's own fields (`extra`: a converted file's name, MIME type and page, slide or sheet
    number; why a document is stale...)."""

    model_config = ConfigDict(frozen=True)

    text: str
    trust: Trust = "internal"
    extra: dict[str, Any] = Field(default_factory=dict)


class Document(Record):
    """One source document, as pulled; the unit of incremental work."""

    @property
    def doc_id(self) -> str:
        return doc_id(self.source, self.source_id)

    @property
    def content_hash(self) -> str:
        return content_hash(self.title + "\n" + self.text)


class Chunk(Record):
    """A piece of a document sized to the embedding model's window, with full provenance."""

    id: str
    doc_id: str
    headers: list[str]
    ordinal: int
    tokens: int = 0
    #: What the text says about time (dating.marks): "change" for a statement of change.
    marks: list[str] = Field(default_factory=list)
    #: The names its document answers to (doc_names.name_keys): title, number, path.
    names: list[str] = Field(default_factory=list)
    #: sha256 of embedding_text(): the embedding cache key.
    content_hash: str = ""
    #: sha256 of the text and every provenance field: a point whose fingerprint matches is
    #: unchanged; a differing one is rewritten (with its cached vector if only metadata moved).
    fingerprint: str = ""

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


def _absent(value: object) -> bool:
    return value is None


def _shown(description: str) -> Any:
    """An optional field left out of the JSON when absent: answers stay small."""
    return Field(default=None, exclude_if=_absent, description=description)


class Reference(Provenance):
    """A document as a hit, a citation or a decision names it: its provenance and doc id, the
    git commit and the successor, and, only where known, the converted file's name and MIME
    type, the page, slide or sheet the text is on, and why the document is stale."""

    doc_id: str = Field(description="handle for get_document")
    sha: str | None = Field(default=None, description="git commit the text was read at")
    superseded_by: str | None = Field(
        default=None, description=("doc_id of the document that supersedes this one")
    )
    file_name: str | None = _shown("file it was converted from")
    mime_type: str | None = _shown("the file's MIME type")
    page: int | None = _shown("PDF page (1-based)")
    slide: int | None = _shown("slide (1-based)")
    sheet: int | None = _shown("sheet (1-based)")
    stale: str | None = _shown("why this is the last good version")
    last_refreshed: dt.datetime | None = _shown("when last read as current")

    @classmethod
    def of(cls, chunk: Chunk, *, whole: bool = False, **fields: Any) -> Self:
        """`chunk`'s reference with the subclass's `fields`; `whole`: of its whole document
        (no page, slide or sheet)."""
        extra = chunk.extra
        found = {} if whole else {u: extra[u] for u in UNITS if u in extra}
        return cls(
            **{f: getattr(chunk, f) for f in Provenance.model_fields},
            doc_id=chunk.doc_id,
            sha=chunk.sha,
            superseded_by=chunk.successor,
            file_name=extra.get(FILE_NAME),
            mime_type=extra.get(MIME_TYPE),
            stale=extra.get(STALE),
            last_refreshed=extra.get(LAST_REFRESHED),
            **found,
            **fields,
        )


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
