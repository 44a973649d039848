"""The four steps of every source — pull, chunk, embed, reconcile — as plain functions.
Dagster assets, the CLI and the benchmarks all call these; nothing here knows Dagster."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.embeddings.cache import EmbeddingCache, embed_with_cache
from knowledge_platform.errors import DeletionGuardError, StoreError
from knowledge_platform.ingest.chunking import Chunker
from knowledge_platform.ingest.sync import guard_excess
from knowledge_platform.models import Chunk, Document, Point, SparseVector
from knowledge_platform.sparse import SparseEncoder
from knowledge_platform.store.base import VectorStore


def chunk_documents(docs: Sequence[Document], chunker: Chunker) -> list[Chunk]:
    return [chunk for doc in docs for chunk in chunker.chunk(doc)]


@dataclass
class Chunked:
    chunks: list[Chunk]
    keys: dict[str, str]  # doc_id -> Chunker.doc_key, to store with the chunks
    reused: int  # documents whose previous chunks were kept


def rechunk(
    docs: Sequence[Document], chunker: Chunker, previous: Mapping[str, Sequence[Chunk]]
) -> Chunked:
    """Chunks of `docs`, keeping `previous` ones (by Chunker.doc_key) for each document whose
    key is unchanged — no tokenizing; a changed document or chunker setting re-chunks."""
    chunks: list[Chunk] = []
    keys: dict[str, str] = {}
    reused = 0
    for doc in docs:
        key = keys[doc.doc_id] = chunker.doc_key(doc)
        kept = previous.get(key)
        if kept:
            reused += 1
            chunks.extend(kept)
        else:
            chunks.extend(chunker.chunk(doc))
    return Chunked(chunks, keys, reused)


@dataclass
class EmbedStats:
    chunks: int
    embedded: int
    cached: int
    tokens: int


def embed_chunks(
    chunks: Sequence[Chunk],
    embedder: Embedder,
    cache: EmbeddingCache,
    sparse: SparseEncoder,
    batch: int = 256,
    progress: object = None,
) -> tuple[list[str], np.ndarray, list[SparseVector], EmbedStats]:
    """Dense (cached by model id + content hash) and sparse vectors for each distinct chunk
    text. Returns (content hashes, dense matrix, sparse vectors, stats), one row per hash."""
    unique: dict[str, str] = {}
    for c in chunks:
        unique.setdefault(c.content_hash, c.embedding_text())
    hashes = list(unique)
    parts: list[np.ndarray] = []
    embedded = cached = 0
    for start in range(0, len(hashes), batch):
        items = [(h, unique[h]) for h in hashes[start : start + batch]]
        vectors, n_embedded, n_cached = embed_with_cache(embedder, cache, items)
        parts.append(np.asarray(vectors, dtype=np.float32))
        embedded += n_embedded
        cached += n_cached
        if callable(progress):
            progress(len(items))
    dense = np.vstack(parts) if parts else np.zeros((0, embedder.dim), dtype=np.float32)
    sparse_vectors = [sparse.encode_document(unique[h]) for h in hashes]
    tokens = sum(c.tokens for c in chunks)
    return hashes, dense, sparse_vectors, EmbedStats(len(chunks), embedded, cached, tokens)


@dataclass
class ReconcileStats:
    added: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0
    points: int = 0
    deleted_ids: list[str] = field(default_factory=list, repr=False)


def reconcile(
    store: VectorStore,
    scope: str,
    source: str,
    chunks: Sequence[Chunk],
    vectors: dict[str, tuple[np.ndarray, SparseVector]],
    *,
    model_id: str,
    dim: int,
    allow_empty: bool = False,
) -> ReconcileStats:
    """Make `source`'s points in `scope` equal `chunks`: upsert new and changed first, then
    delete the stale — inside one write session, so a failure publishes nothing. Touches
    only points whose payload `source` is this source. The deletion guard works on documents
    (sync.merge_pull, where a short listing shows); here the last line of defence refuses to
    remove every point of the source unless `allow_empty` (a full reconcile, or the source
    confirmed every deletion)."""
    stats = ReconcileStats()
    with store.writer(scope, model_id, dim) as writer:
        current = writer.point_hashes(source)
        wanted = {c.id: c for c in chunks}
        stale = [pid for pid in current if pid not in wanted]
        if stale and not wanted and not allow_empty:
            raise DeletionGuardError(
                guard_excess(len(current), len(stale), 0, 1.0) or "refusing to empty"
            )
        points: list[Point] = []
        for cid, chunk in wanted.items():
            seen = current.get(cid)
            if seen == chunk.fingerprint:
                stats.unchanged += 1
                continue
            if chunk.content_hash not in vectors:
                raise StoreError(f"no embedding for chunk {cid}; re-run the embeddings step")
            dense, sparse = vectors[chunk.content_hash]
            points.append(
                Point(id=cid, dense=dense.tolist(), sparse=sparse, payload=chunk.payload())
            )
            if seen is None:
                stats.added += 1
            else:
                stats.updated += 1
            if len(points) >= 512:
                writer.upsert(points)
                points = []
        if points:
            writer.upsert(points)
        if stale:
            writer.delete(stale)
        stats.deleted = len(stale)
        stats.deleted_ids = stale
    stats.points = len(wanted)
    return stats
