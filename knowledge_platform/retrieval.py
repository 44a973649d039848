"""Query-time retrieval: one scope's collection, hybrid dense + sparse.

Two ways to fuse the two lists (both keep the store API):

- `blend` (default): the store's dense and sparse top-`depth` lists, each min-max normalised
  over its own list, summed with weights (`dense_weight` for dense, the rest for sparse); a
  chunk missing from a list scores that list's minimum there. Scores carry how far ahead a hit
  is, which rank fusion throws away. Weight and depth tuned on BEIR SciFact's train split
  (bench/quality.py).
- `rrf`: the store's own reciprocal-rank fusion of the two prefetches, in one query.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.models import Hit, SparseVector
from knowledge_platform.sparse import SparseEncoder
from knowledge_platform.store.base import SearchFilter, SearchMode, VectorStore

FusionMethod = Literal["blend", "rrf"]


@dataclass(frozen=True)
class Fusion:
    method: FusionMethod = "blend"
    #: blend: weight of the normalised dense score; the sparse one gets 1 - dense_weight.
    dense_weight: float = 0.5
    #: blend: chunks fetched from each of the dense and sparse searches (at least `limit`).
    depth: int = 100


DEFAULT_FUSION = Fusion()


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
        fusion = fusion or self.fusion
        dense = self.embedder.embed_query(query).tolist() if mode != "sparse" else None
        sparse = self.sparse.encode_query(query) if mode != "dense" else None
        if sparse is not None and not sparse.indices and mode == "hybrid":
            sparse, mode = None, "dense"  # nothing but stopwords: dense alone
        if mode == "hybrid" and fusion.method == "blend" and dense is not None and sparse:
            return self._blend(scope, dense, sparse, limit, flt, fusion)
        return self.store.search(
            scope, dense, sparse, limit=limit, flt=flt, mode=mode, prefetch=max(prefetch, limit)
        )

    def _blend(
        self,
        scope: str,
        dense: Sequence[float],
        sparse: SparseVector,
        limit: int,
        flt: SearchFilter | None,
        fusion: Fusion,
    ) -> list[Hit]:
        depth = max(fusion.depth, limit)
        by_dense = self.store.search(scope, dense, None, limit=depth, flt=flt, mode="dense")
        by_sparse = self.store.search(scope, None, sparse, limit=depth, flt=flt, mode="sparse")
        return blend(by_dense, by_sparse, fusion.dense_weight)[:limit]


def blend(dense: Sequence[Hit], sparse: Sequence[Hit], dense_weight: float) -> list[Hit]:
    """Hits of both lists by weighted sum of min-max normalised scores (best first)."""
    chunks = {h.chunk.id: h.chunk for h in (*dense, *sparse)}
    d, s = _normalised(dense), _normalised(sparse)
    scores = {
        cid: dense_weight * d.get(cid, 0.0) + (1 - dense_weight) * s.get(cid, 0.0)
        for cid in chunks
    }
    ranked = sorted(scores, key=lambda cid: -scores[cid])
    return [Hit(chunk=chunks[cid], score=scores[cid]) for cid in ranked]


def _normalised(hits: Sequence[Hit]) -> dict[str, float]:
    if not hits:
        return {}
    top = max(h.score for h in hits)
    low = min(h.score for h in hits)
    span = top - low
    return {h.chunk.id: (h.score - low) / span if span > 0 else 1.0 for h in hits}
