"""Query-time retrieval: one scope's collection, hybrid dense + sparse fused with RRF."""

from __future__ import annotations

from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.models import Hit
from knowledge_platform.sparse import SparseEncoder
from knowledge_platform.store.base import SearchFilter, SearchMode, VectorStore


class Retriever:
    def __init__(self, store: VectorStore, embedder: Embedder, sparse: SparseEncoder) -> None:
        self.store = store
        self.embedder = embedder
        self.sparse = sparse

    def search(
        self,
        scope: str,
        query: str,
        *,
        limit: int = 5,
        flt: SearchFilter | None = None,
        mode: SearchMode = "hybrid",
        prefetch: int = 50,
    ) -> list[Hit]:
        dense = self.embedder.embed_query(query).tolist() if mode != "sparse" else None
        sparse = self.sparse.encode_query(query) if mode != "dense" else None
        if sparse is not None and not sparse.indices and mode == "hybrid":
            sparse, mode = None, "dense"  # nothing but stopwords: dense alone
        return self.store.search(
            scope, dense, sparse, limit=limit, flt=flt, mode=mode, prefetch=max(prefetch, limit)
        )
