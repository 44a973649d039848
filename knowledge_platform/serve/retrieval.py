"""Query-time retrieval: one scope's collection, hybrid dense + sparse.

Two ways to fuse the dense and the sparse results (the store API is the same for both):

- `blend` (default): the store's dense and sparse searches, each `prefetch` deep, in one
  batch (so both come from one published version); every score is divided by the top
  score of its own list, and a chunk missing from a list gets that list's lowest scaled
  score there when the list is full (it ranked below all of them), 0 when the list is
  shorter than asked (it holds every match: a chunk not in a sparse list has none of the
  query's terms; the one chunk with a rare identifier is not levelled with the rest).
  The fused score is `dense_weight * dense + (1 - dense_weight) * sparse`, in 0..1. Unlike
  rank fusion it keeps how far ahead of the others a hit is. Weight tuned on BEIR SciFact's
  train split (bench/quality.py, local MiniLM): nDCG@10 0.740 train / 0.734 test, against
  0.733 / 0.715 for the store's RRF and 0.734 / 0.725 for min-max normalised scores.
- `rrf`: the store's own reciprocal-rank fusion of the two prefetches, in one query.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Literal

from cachetools import LRUCache, cached
from cachetools.keys import hashkey

from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.errors import QueryError
from knowledge_platform.models import Chunk, Hit, SparseVector
from knowledge_platform.sparse import SparseEncoder
from knowledge_platform.store.base import (
    PointKey,
    Scored,
    SearchFilter,
    SearchMode,
    VectorQuery,
    VectorStore,
)

FusionMethod = Literal["blend", "rrf"]


@dataclass(frozen=True)
class Fusion:
    method: FusionMethod = "blend"
    #: blend: weight of the scaled dense score; the sparse one gets 1 - dense_weight.
    dense_weight: float = 0.65


DEFAULT_FUSION = Fusion()
#: Query embeddings kept per Retriever (384 floats each: ~3.5 MB as Python lists).
QUERY_CACHE = 1024
#: What a word of the same meaning as the query's (glossary.synonyms) weighs in its sparse
#: side, against 1.0 for the query's own words.
WORDS_WEIGHT = 0.5


def require_text(text: str, what: str = "query") -> str:
    """The one rule for a search text, in `kp search` and every MCP tool: surrounding
    whitespace dropped, and nothing left is refused."""
    text = text.strip()
    if not text:
        raise QueryError(f"{what} is blank; say what to look for")
    return text


class Retriever:
    def __init__(
        self,
        store: VectorStore,
        embedder: Embedder,
        sparse: SparseEncoder,
        fusion: Fusion = DEFAULT_FUSION,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.sparse = sparse
        self.fusion = fusion
        #: Query embeddings by text: the model is most of a search's CPU, and agents repeat
        #: queries (bench/mcp_throughput.py measures both a repeating and a fresh load).
        self._queries: LRUCache[str, tuple[float, ...]] = LRUCache(maxsize=QUERY_CACHE)
        self.dense_query = cached(self._queries, lock=threading.Lock())(self._dense_query)

    def _dense_query(self, query: str) -> tuple[float, ...]:
        return tuple(self.embedder.embed_query(query).tolist())  # shared: immutable

    def embedded(self, query: str) -> bool:
        """Whether `query`'s embedding is at hand: its search needs no model call."""
        return hashkey(require_text(query)) in self._queries

    def search(
        self,
        scope: str,
        query: str,
        *,
        limit: int = 5,
        flt: SearchFilter | None = None,
        mode: SearchMode = "hybrid",
        prefetch: int = 50,
        fusion: Fusion | None = None,
    ) -> list[Hit]:
        """Top `limit` chunks. Hybrid fuses `prefetch`-deep dense and sparse results (at
        least `limit` deep) with `fusion` (the retriever's default when None)."""
        query = require_text(query)
        fusion = fusion or self.fusion
        depth = max(prefetch, limit)
        dense = self.dense_query(query) if mode != "sparse" else None
        sparse = self.sparse.encode_query(query) if mode != "dense" else None
        if sparse is not None and not sparse.indices and mode == "hybrid":
            sparse, mode = None, "dense"  # nothing but stopwords: dense alone
        if mode == "hybrid" and fusion.method == "blend" and dense is not None and sparse:
            return self._blend(scope, dense, sparse, limit, depth, flt, fusion.dense_weight)
        return self.store.search(
            scope, dense, sparse, limit=limit, flt=flt, mode=mode, prefetch=depth
        )

    def search_each(
        self,
        scope: str,
        query: str,
        searches: Sequence[tuple[int, SearchFilter | None]],
        *,
        prefetch: int = 50,
        words: str = "",
    ) -> list[list[Hit]]:
        """`search(scope, query, limit=limit, flt=flt)` for each (limit, flt), hybrid with the
        default fusion; where that is the blend, all of them from one store call (one
        published version, one payload read). `words`: more words for the sparse side only,
        at WORDS_WEIGHT (other words for the query's, which would move its meaning); the
        blend's one call only: another fusion, or a single search, searches the query alone."""
        query = require_text(query)
        sparse = self.sparse.encode_query(query, words, WORDS_WEIGHT) if len(searches) > 1 else None
        if self.fusion.method != "blend" or sparse is None or not sparse.indices:
            return [
                self.search(scope, query, limit=limit, flt=flt, prefetch=prefetch)
                for limit, flt in searches
            ]
        dense = self.dense_query(query)
        depths = [max(prefetch, limit) for limit, _ in searches]
        queries = [
            q
            for (_, flt), depth in zip(searches, depths, strict=True)
            for q in (
                VectorQuery(dense=dense, limit=depth, mode="dense", flt=flt or SearchFilter()),
                VectorQuery(sparse=sparse, limit=depth, mode="sparse", flt=flt or SearchFilter()),
            )
        ]
        order: list[tuple[PointKey, int]] = []  # each ranked id and the search it answers

        def fuse(lists: list[list[Scored]]) -> list[Scored]:
            ranked: list[Scored] = []
            for k, ((limit, _), depth) in enumerate(zip(searches, depths, strict=True)):
                found = blend_scores(
                    lists[2 * k], lists[2 * k + 1], self.fusion.dense_weight, depth
                )[:limit]
                ranked += found
                order.extend((cid, k) for cid, _ in found)
            return ranked

        return _split(self.store.search_fused(scope, queries, fuse), order, len(searches))

    def _blend(
        self,
        scope: str,
        dense: Sequence[float],
        sparse: SparseVector,
        limit: int,
        depth: int,
        flt: SearchFilter | None,
        dense_weight: float,
    ) -> list[Hit]:
        def fuse(lists: list[list[Scored]]) -> list[Scored]:
            return blend_scores(lists[0], lists[1], dense_weight, depth)[:limit]

        return self.store.search_fused(
            scope,
            [  # both lists from one published version
                VectorQuery(dense=dense, limit=depth, mode="dense"),
                VectorQuery(sparse=sparse, limit=depth, mode="sparse"),
            ],
            fuse,
            flt=flt,
        )


def blend(
    dense: Sequence[Hit], sparse: Sequence[Hit], dense_weight: float, depth: int | None = None
) -> list[Hit]:
    """`blend_scores` of two hit lists."""
    chunks: dict[PointKey, Chunk] = {h.chunk.id: h.chunk for h in (*dense, *sparse)}
    ranked = blend_scores(
        [(h.chunk.id, h.score) for h in dense],
        [(h.chunk.id, h.score) for h in sparse],
        dense_weight,
        depth,
    )
    return [Hit(chunk=chunks[cid], score=score) for cid, score in ranked]


def blend_scores(
    dense: Sequence[Scored], sparse: Sequence[Scored], dense_weight: float, depth: int | None = None
) -> list[Scored]:
    """The union of both result lists by weighted sum of top-scaled scores, best first.
    `depth`: how many each list was asked for (None: unknown, every list counts as full)."""
    d, d_floor = _scaled(dense, depth)
    s, s_floor = _scaled(sparse, depth)
    sparse_weight = 1 - dense_weight
    scores = {
        cid: dense_weight * d.get(cid, d_floor) + sparse_weight * s.get(cid, s_floor)
        for cid in {**d, **s}  # dense order, then sparse's others
    }
    return sorted(scores.items(), key=itemgetter(1), reverse=True)  # stable: ties keep order


def _scaled(hits: Sequence[Scored], depth: int | None) -> tuple[dict[PointKey, float], float]:
    """Scores divided by the list's top score (negative cosines count as 0), and the score of
    an absentee: the lowest of them when the list is full (it ranked below them), else 0
    (it did not match at all)."""
    if not hits:
        return {}, 0.0
    top = max(score for _, score in hits)
    unit = top if top > 0 else 1.0
    scaled = {cid: (0.0 if score < 0.0 else score) / unit for cid, score in hits}
    full = depth is None or len(hits) >= depth
    return scaled, min(scaled.values()) if full else 0.0


def _split(hits: list[Hit], order: list[tuple[PointKey, int]], n: int) -> list[list[Hit]]:
    """`hits` (the ranked ids of `order` in order, less any whose point went meanwhile) back
    into their `n` searches."""
    lists: list[list[Hit]] = [[] for _ in range(n)]
    at = 0
    for hit in hits:
        while str(order[at][0]) != hit.chunk.id:
            at += 1
        lists[order[at][1]].append(hit)
        at += 1
    return lists
