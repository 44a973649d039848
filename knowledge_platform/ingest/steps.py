"""The four steps of a source x scope as its assets run them, each from and to the snapshots
under KP_HOME: pull (with the sync state, the deletion guard and webhook hints), chunk
(reusing unchanged documents' chunks), embed (through the embedding cache) and publish (the
collection's reconcile). The Dagster assets call one step each; `run_steps` calls all four in
order for the tests and benchmarks that need a real index without Dagster, and for the hooks
sensor's hot path (hot_delta.py) — the same steps, not a second pipeline. Each step holds the
partition's lock (partition_lock.py). Nothing here knows Dagster."""

from __future__ import annotations

from dataclasses import dataclass

from knowledge_platform.config.registry import Registry
from knowledge_platform.connectors.base import Hint, PullResult
from knowledge_platform.connectors.catalog import connector_class, pinned
from knowledge_platform.connectors.cursor import load_cursor
from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.embeddings.cache import EmbeddingCache
from knowledge_platform.ingest.chunking import Chunker
from knowledge_platform.ingest.partition_lock import partition_lock
from knowledge_platform.ingest.pipeline import (
    Chunked,
    EmbedStats,
    ReconcileStats,
    embed_chunks,
    rechunk,
    reconcile,
)
from knowledge_platform.ingest.snapshots import SnapshotStore
from knowledge_platform.ingest.sync import Merged, pull_into_snapshot
from knowledge_platform.models import Document
from knowledge_platform.sparse import SparseEncoder
from knowledge_platform.store.base import VectorStore


@dataclass(frozen=True)
class PullOptions:
    #: Read everything again (the weekly full pull), not only what changed.
    full: bool = False
    #: Deletions past the guard allowed; a collection may be emptied.
    full_reconcile: bool = False
    #: Ids webhooks named: a connector that can read by id reads only those.
    hint: Hint | None = None
    #: Read only what `hint` names, or fail (NotHinted) without a listing: the hot path.
    hinted_only: bool = False
    #: Rebuild from exactly this version, for a source whose spec declares a pin.
    at: str | None = None


def pull_step(
    registry: Registry,
    snaps: SnapshotStore,
    source: str,
    scope: str,
    options: PullOptions | None = None,
) -> tuple[PullResult, Merged]:
    options = options or PullOptions()
    settings = registry.source_settings(source, scope)
    if options.at is not None:
        settings = pinned(source, settings, options.at)
    connector = connector_class(source)(settings, scope)
    with partition_lock(snaps.dir(source, scope)):
        return pull_into_snapshot(
            connector,
            snaps,
            full=options.full,
            guard=registry.deletion_guard,
            full_reconcile=options.full_reconcile,
            hint=options.hint,
            hinted_only=options.hinted_only,
        )


def chunk_step(
    snaps: SnapshotStore, source: str, scope: str, chunker: Chunker
) -> tuple[list[Document], Chunked]:
    with partition_lock(snaps.dir(source, scope)):
        docs = snaps.read_documents(source, scope) or []
        chunked = rechunk(docs, chunker, snaps.read_chunks_by_key(source, scope))
        snaps.write_chunks(source, scope, chunked.chunks, chunked.keys)
    return docs, chunked


def embed_step(
    snaps: SnapshotStore,
    source: str,
    scope: str,
    embedder: Embedder,
    cache: EmbeddingCache,
    sparse: SparseEncoder,
) -> EmbedStats:
    with partition_lock(snaps.dir(source, scope)):
        chunks = snaps.read_chunks(source, scope) or []
        hashes, dense, sparse_vectors, stats = embed_chunks(chunks, embedder, cache, sparse)
        snaps.write_embeddings(source, scope, hashes, dense, sparse_vectors, embedder.model_id)
    return stats


@dataclass(frozen=True)
class Published:
    stats: ReconcileStats
    model_id: str
    #: git sources: the commit the snapshot behind these chunks was pulled at.
    sha: str | None


def publish_step(
    store: VectorStore,
    snaps: SnapshotStore,
    source: str,
    scope: str,
    embedder: Embedder,
    *,
    full_reconcile: bool = False,
) -> Published:
    """The collection made equal to the chunks snapshot, with the embeddings snapshot's
    vectors (and its model: a snapshot embedded by another model publishes as that one)."""
    with partition_lock(snaps.dir(source, scope)):
        chunks = snaps.read_chunks(source, scope) or []
        stored_cursor = snaps.read_cursor(source, scope)
        loaded = snaps.read_embeddings(source, scope)
        model_id, vectors = loaded if loaded else ("", {})
        dim = next(iter(vectors.values()))[0].shape[0] if vectors else embedder.dim
        model_id = model_id or embedder.model_id
        emptied = snaps.read_sync(source, scope).emptied_by_source
        stats = reconcile(
            store,
            scope,
            source,
            chunks,
            vectors,
            model_id=model_id,
            dim=dim,
            allow_empty=full_reconcile or emptied,
        )
    cursor = load_cursor(connector_class(source).cursor_model, stored_cursor, f"{source}:{scope}")
    return Published(stats, model_id, cursor.revision() if cursor else None)


@dataclass(frozen=True)
class StepsRun:
    """What each of the four steps returned."""

    pulled: PullResult
    merged: Merged
    chunked: Chunked
    embed: EmbedStats
    published: Published

    @property
    def documents(self) -> list[Document]:
        return self.merged.documents

    @property
    def chunks(self) -> int:
        return len(self.chunked.chunks)

    @property
    def embedded(self) -> int:
        return self.embed.embedded


def run_steps(
    registry: Registry,
    snaps: SnapshotStore,
    store: VectorStore,
    embedder: Embedder,
    cache: EmbeddingCache,
    chunker: Chunker,
    source: str,
    scope: str,
    options: PullOptions | None = None,
) -> StepsRun:
    """The four steps in order, as one run of the source's assets does them."""
    options = options or PullOptions()
    pulled, merged = pull_step(registry, snaps, source, scope, options)
    _, chunked = chunk_step(snaps, source, scope, chunker)
    embedded = embed_step(snaps, source, scope, embedder, cache, SparseEncoder())
    published = publish_step(
        store, snaps, source, scope, embedder, full_reconcile=options.full_reconcile
    )
    return StepsRun(pulled, merged, chunked, embedded, published)
