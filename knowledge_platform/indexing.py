"""One pass of a source for one scope without Dagster: pull -> snapshot -> chunks ->
embeddings -> collection, with the same pipeline functions the assets call. For the
benchmarks and tests that need a real index quickly; runs are not recorded anywhere."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from knowledge_platform.connectors.catalog import connector_class
from knowledge_platform.models import Document
from knowledge_platform.pipeline import chunk_documents, embed_chunks, reconcile
from knowledge_platform.runtime import Runtime
from knowledge_platform.sync import merge_pull


@dataclass
class IndexPass:
    documents: list[Document]
    cursor: dict[str, Any] | None
    embedded: int


def index_source(runtime: Runtime, source: str, scope: str = "internal", *,
                 previous: list[Document] | None = None, cursor: dict[str, Any] | None = None,
                 **overrides: Any) -> IndexPass:
    """Index `source` into `scope` as its registry settings (with `overrides`) say; pass the
    previous pass's documents and cursor for an incremental pull."""
    settings = runtime.registry.source_settings(source, scope).model_copy(update=overrides)
    result = connector_class(source)(settings, scope).pull(cursor)
    docs = merge_pull(previous, result).documents
    chunks = chunk_documents(docs, runtime.chunker)
    hashes, dense, sparse, stats = embed_chunks(chunks, runtime.embedder, runtime.cache,
                                                runtime.sparse)
    vectors = {h: (dense[i], sparse[i]) for i, h in enumerate(hashes)}
    reconcile(runtime.store, scope, source, chunks, vectors, model_id=runtime.embedder.model_id,
              dim=runtime.embedder.dim)
    return IndexPass(docs, result.cursor, stats.embedded)


def index_scope(runtime: Runtime, scope: str = "internal") -> None:
    """Every source the registry configures for `scope`, fully."""
    for source in runtime.registry.sources_for(scope):
        index_source(runtime, source, scope)
