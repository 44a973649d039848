"""Pick the vector-store engine: Qdrant Edge under a directory, or a Qdrant server."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from knowledge_platform.errors import StoreError
from knowledge_platform.store.base import VectorStore


def make_store(
    engine: Literal["edge", "qdrant"],
    *,
    path: Path | None,
    url: str | None,
    api_key: str | None,
    lock_dir: Path | None = None,
) -> VectorStore:
    """`edge` needs `path` (the shards directory, where each collection keeps its writer
    lock); `qdrant` needs `url` (`:memory:` runs qdrant-client's local mode, for tests) and
    takes its writers' locks under `lock_dir`."""
    if engine == "edge":
        if path is None:
            raise StoreError("the edge engine needs a shards directory; set the data path")
        from knowledge_platform.store.edge import EdgeStore

        return EdgeStore(Path(path))
    if engine == "qdrant":
        if not url:
            raise StoreError("the qdrant engine needs a server URL; set QDRANT_URL")
        from knowledge_platform.store.server import QdrantServerStore

        return QdrantServerStore(url=url, api_key=api_key, lock_dir=lock_dir)
    raise StoreError(f"unknown store engine {engine!r}; use 'edge' or 'qdrant'")
