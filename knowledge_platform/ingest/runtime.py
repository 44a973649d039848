"""The write side's wiring: the shared Runtime plus what only indexing needs — the chunker
(sized to the embedder's window) and the snapshots under KP_HOME."""

from __future__ import annotations

import functools

from knowledge_platform.config.registry import Registry
from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.ingest.chunking import Chunker
from knowledge_platform.ingest.snapshots import SnapshotStore
from knowledge_platform.ingest.tokens import counter_for
from knowledge_platform.runtime import Runtime


def build_chunker(registry: Registry, embedder: Embedder) -> Chunker:
    """Chunks sized to `embedder`'s window, counted in its provider's tokens."""
    return Chunker(
        counter_for(registry.embedding.provider),
        embedder.window_tokens,
        timezone=registry.timezone,
    )


class IngestRuntime(Runtime):
    """A Runtime that also indexes: tests, benchmarks and the hooks sensor's hot path."""

    @functools.cached_property
    def chunker(self) -> Chunker:
        return build_chunker(self._registry, self.embedder)

    @functools.cached_property
    def snapshots(self) -> SnapshotStore:
        return SnapshotStore(self.settings.data_dir)
