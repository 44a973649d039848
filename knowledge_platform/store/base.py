"""The logical vector-store API. Two engines implement it: Qdrant Edge (embedded) and a
Qdrant server through qdrant-client. One collection per scope; every call names its scope."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal, TypeVar
from uuid import UUID

from pydantic import BaseModel, Field

from knowledge_platform.errors import StoreError
from knowledge_platform.models import Chunk, Hit, Point, SparseVector

DENSE = "dense"
SPARSE = "sparse"
SearchMode = Literal["hybrid", "dense", "sparse"]
#: The payload field reconcile compares: text + provenance, see Chunk.fingerprint.
HASH_FIELD = "fingerprint"
#: Reciprocal-rank-fusion constant: the Qdrant server's default, so both engines rank alike.
RRF_K = 2

_SCOPE_RE = re.compile(r"^[a-z][a-z0-9_]{0,62}$")

#: Payload fields with a payload index (server) / used in filters.
FILTER_FIELDS = (
    "source",
    "kind",
    "lifecycle",
    "doc_id",
    "scope",
    "date",
    "confidentiality",
    "marks",
    "time_kind",
    "names",
)


def collection_name(scope: str) -> str:
    """`internal` -> `internal`; a client id -> `client_<id>`. Rejects anything else."""
    if not _SCOPE_RE.fullmatch(scope):
        raise StoreError(f"invalid scope {scope!r}: use lowercase letters, digits and '_'")
    return "internal" if scope == "internal" else f"client_{scope}"


class SearchFilter(BaseModel):
    """Conditions every hit must meet; all evaluated inside the store query."""

    sources: list[str] | None = None
    kinds: list[str] | None = None
    lifecycles: list[str] | None = Field(default_factory=lambda: ["stable"])
    doc_ids: list[str] | None = None
    date_from: date | None = None
    date_to: date | None = None
    confidentiality: list[str] | None = None
    #: any of these chunk marks (dating.marks), e.g. ["change"]
    marks: list[str] | None = None
    #: any of these document name keys (doc_names.question_keys)
    names: list[str] | None = None
    #: with dates: also standing texts in force in the window (time_kind "standing", dated
    #: on or before `date_to`, or undated), not only texts dated inside it
    in_force: bool = False
    #: only texts with a date (any date): a statement of change without one can make no
    #: other text old (currency.may_supersede), so its search skips them
    dated: bool = False


#: SearchFilter attribute -> the payload field it matches (any of the listed values).
KEYWORD_FILTERS = {
    "sources": "source",
    "kinds": "kind",
    "lifecycles": "lifecycle",
    "doc_ids": "doc_id",
    "confidentiality": "confidentiality",
    "marks": "marks",
    "names": "names",
}


def matches_nothing(flt: SearchFilter) -> bool:
    """True if a keyword condition allows no value at all (an empty list)."""
    return any(getattr(flt, attr) == [] for attr in KEYWORD_FILTERS)


#: Before any date a text is given: the lower bound of "has a date".
EVER = date(1, 1, 1)


def date_range(flt: SearchFilter) -> tuple[date | None, date | None] | None:
    """The filter's dates as [from, the day after `date_to`), or None without dates.
    `date.max` has no next day: no upper bound then."""
    if not (flt.date_from or flt.date_to):
        return None
    upper = flt.date_to + timedelta(days=1) if flt.date_to and flt.date_to < date.max else None
    return flt.date_from, upper


@dataclass(frozen=True)
class VectorQuery:
    """One search of a batch: a dense and/or a sparse query vector, `limit` deep. Hybrid
    fuses `prefetch`-deep dense and sparse results with RRF. `flt`: this search's own filter,
    in place of the batch's (several searches under different filters, one store call)."""

    dense: Sequence[float] | None = None
    sparse: SparseVector | None = None
    limit: int = 5
    mode: SearchMode = "hybrid"
    prefetch: int = 50
    flt: SearchFilter | None = None


F = TypeVar("F")  # an engine's filter type


def query_filters(
    queries: Sequence[VectorQuery], flt: SearchFilter, convert: Callable[[SearchFilter], F]
) -> list[tuple[F, bool]]:
    """Each query's filter (its own, else `flt`) in the engine's form, each distinct filter
    converted once, and whether it matches nothing (that query's result is empty)."""
    built: dict[int, tuple[F, bool]] = {}
    for q in queries:
        own = q.flt or flt
        if id(own) not in built:
            built[id(own)] = (convert(own), matches_nothing(own))
    return [built[id(q.flt or flt)] for q in queries]


#: A point (chunk) id as the engine gives it: Edge gives a UUID, kept as it is until a payload
#: is read (str() of the 200 ids of a paired search cost more than their blend); str() of it
#: is the chunk id.
PointKey = int | str | UUID
#: A point id and its score.
Scored = tuple[PointKey, float]
#: Ranks the (id, score) lists of a batch's queries into one list, best first.
Fuse = Callable[[list[list[Scored]]], list[Scored]]


class CollectionInfo(BaseModel):
    name: str
    model_id: str
    dim: int
    points: int
    version: str = ""


class CollectionWriter(ABC):
    """A write session on one collection. Engines apply it atomically where they can."""

    @abstractmethod
    def upsert(self, points: Sequence[Point]) -> None: ...

    @abstractmethod
    def delete(self, ids: Sequence[str]) -> None: ...

    @abstractmethod
    def point_hashes(self, source: str) -> dict[str, str]:
        """chunk id -> payload fingerprint of `source`'s points as this writer sees them."""


class VectorStore(ABC):
    def ready_in_process(self, scope: str) -> bool:
        """Whether a search of `scope` now is CPU work in this process alone: nothing to
        open first and no network to wait on. A server's store never is."""
        return False

    @abstractmethod
    def info(self, scope: str) -> CollectionInfo | None:
        """The published collection of `scope`, or None if it does not exist yet."""

    @abstractmethod
    def writer(
        self, scope: str, model_id: str, dim: int
    ) -> AbstractContextManager[CollectionWriter]:
        """Exclusive write session (one per collection at a time, across processes).

        Creates the collection on first use. Raises ModelMismatchError if it records another
        model id or dimension. Publishes on a clean exit; on an exception nothing published.
        """

    @abstractmethod
    def point_hashes(self, scope: str, source: str) -> dict[str, str]:
        """chunk id -> payload fingerprint for `source`'s points in the published collection."""

    def search(
        self,
        scope: str,
        dense: Sequence[float] | None,
        sparse: SparseVector | None,
        *,
        limit: int,
        flt: SearchFilter | None = None,
        mode: SearchMode = "hybrid",
        prefetch: int = 50,
    ) -> list[Hit]:
        """Top `limit` chunks; hybrid fuses dense and sparse prefetches with RRF."""
        query = VectorQuery(dense, sparse, limit=limit, mode=mode, prefetch=prefetch)
        return self.search_batch(scope, [query], flt=flt)[0]

    @abstractmethod
    def search_batch(
        self, scope: str, queries: Sequence[VectorQuery], *, flt: SearchFilter | None = None
    ) -> list[list[Hit]]:
        """The hits of each query, in order, all from one published version of the
        collection (a publish between them cannot mix two editions in one answer)."""

    @abstractmethod
    def search_fused(
        self,
        scope: str,
        queries: Sequence[VectorQuery],
        fuse: Fuse,
        *,
        flt: SearchFilter | None = None,
    ) -> list[Hit]:
        """The queries' (id, score) lists ranked by `fuse`, then the payloads of the ranked
        ids alone. Turning payloads into chunks costs more than the searches themselves, and
        a blend of two 50-deep lists keeps 10 (bench/mcp_throughput.py). Edge reads all of it
        from one published version; on a server a point deleted in between is left out."""

    @abstractmethod
    def scroll(self, scope: str, flt: SearchFilter | None = None) -> Iterator[Chunk]:
        """Every chunk matching `flt` (payload only), in no particular order."""

    @abstractmethod
    def count(self, scope: str, source: str | None = None) -> int: ...

    @abstractmethod
    def exists(self, scope: str, flt: SearchFilter) -> bool:
        """Whether any chunk matches `flt`: one indexed look-up, however many match (an
        exact count of a common value reads them all)."""

    def close(self) -> None:  # noqa: B027 - engines without resources need nothing here
        """Release files and connections."""
