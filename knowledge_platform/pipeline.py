"""The four steps of every source — pull, chunk, embed, reconcile — as plain functions.
Dagster assets, the CLI and the benchmarks all call these; nothing here knows Dagster."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from knowledge_platform.chunking import Chunker
from knowledge_platform.connectors.base import PullResult
from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.embeddings.cache import EmbeddingCache, embed_with_cache
from knowledge_platform.errors import DeletionGuardError, StoreError
from knowledge_platform.models import Chunk, Document, Point, SparseVector
from knowledge_platform.sparse import SparseEncoder
from knowledge_platform.store.base import VectorStore
from knowledge_platform.supersession import link_successors

#: Below this many deletions the share rule does not apply (editing a 3-file demo is normal).
GUARD_MIN_DELETIONS = 5


@dataclass
class MergeStats:
    documents: int
    changed: int
    deleted: int
    skipped: int


def merge_pull(
    previous: Sequence[Document] | None, result: PullResult
) -> tuple[list[Document], MergeStats]:
    """The new snapshot: a full pull replaces it; an incremental one patches the previous.
    Supersession links are resolved over the whole new snapshot (a new record can supersede
    an unchanged one, which then counts as changed)."""
    before = {d.source_id: d for d in previous or []}
    if result.full:
        after = {d.source_id: d for d in result.documents}
    else:
        after = dict(before)
        for source_id in result.deleted:
            after.pop(source_id, None)
        after.update({d.source_id: d for d in result.documents})
    docs = link_successors(sorted(after.values(), key=lambda d: d.source_id))
    changed = sum(1 for d in docs if before.get(d.source_id) != d)
    deleted = len(before.keys() - after.keys())
    return docs, MergeStats(len(docs), changed, deleted, len(result.skipped))


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


def plan_deletions(existing: int, stale: int, remaining: int, guard: float, full: bool, *,
                   step: str = "reconcile", unit: str = "points") -> None:
    """Raise DeletionGuardError if `step` would delete too much of a partition: all of it, or
    more than `guard` of its `existing` items (and more than GUARD_MIN_DELETIONS)."""
    if full or stale == 0:
        return
    if remaining == 0:
        raise DeletionGuardError(
            f"{step} would remove all {existing} {unit} (a source outage?); refusing to empty "
            "the collection. Re-run with a full reconcile if this is intended"
        )
    if stale > GUARD_MIN_DELETIONS and stale > guard * existing:
        raise DeletionGuardError(
            f"{step} would delete {stale} of {existing} {unit} ({stale / existing:.0%}), over "
            f"the {guard:.0%} guard; re-run with a full reconcile if this is intended"
        )


def reconcile(
    store: VectorStore,
    scope: str,
    source: str,
    chunks: Sequence[Chunk],
    vectors: dict[str, tuple[np.ndarray, SparseVector]],
    *,
    model_id: str,
    dim: int,
    guard: float = 0.3,
    full_reconcile: bool = False,
) -> ReconcileStats:
    """Make `source`'s points in `scope` equal `chunks`: upsert new and changed first, then
    delete the stale — inside one write session, so a failure publishes nothing. Touches
    only points whose payload `source` is this source."""
    stats = ReconcileStats()
    with store.writer(scope, model_id, dim) as writer:
        current = writer.point_hashes(source)
        wanted = {c.id: c for c in chunks}
        stale = [pid for pid in current if pid not in wanted]
        plan_deletions(len(current), len(stale), len(wanted), guard, full_reconcile)
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
