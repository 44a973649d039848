"""Dagster resources, each the core object it is named for: `registry`, `snapshots`, `store`,
`embedder`, `query_log` (and `signals`, resources/signals.py). Each is built when a run (or a
sensor or schedule tick) starts and closed when it ends; a test swaps any of them in
`materialize(resources=...)`.

The wiring (which engine, which model) is the core's (`knowledge_platform.runtime`); a
resource only says where the files are: KP_HOME, the registry file and the model cache."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from dagster import ConfigurableResource, InitResourceContext
from pydantic import PrivateAttr

from knowledge_platform.config.registry import Registry, load_registry
from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.embeddings.cache import EmbeddingCache
from knowledge_platform.ingest.chunking import Chunker
from knowledge_platform.ingest.runtime import build_chunker
from knowledge_platform.ingest.snapshots import SnapshotStore
from knowledge_platform.runtime import build_embedder, build_store
from knowledge_platform.serve.querylog import QueryLog
from knowledge_platform.settings import Settings
from knowledge_platform.store.base import VectorStore
from resources.signals import SignalsResource


class _Located(ConfigurableResource):
    home: str
    config: str
    model_cache: str | None = None

    def settings(self) -> Settings:
        return Settings.model_validate(
            {"KP_HOME": self.home, "KP_CONFIG": self.config, "KP_MODEL_CACHE": self.model_cache}
        )

    def registry(self) -> Registry:
        return load_registry(Path(self.config))


T = TypeVar("T")


def _ready(value: T | None, name: str) -> T:
    if value is None:
        raise RuntimeError(f"the {name} resource is used before Dagster set it up")
    return value


class RegistryResource(_Located):
    _registry: Registry | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: InitResourceContext) -> None:
        self._registry = self.registry()

    def get(self) -> Registry:
        return _ready(self._registry, "registry")

    def load_fresh(self) -> Registry:
        """Re-read the file: sensors and schedules live in a long-running process."""
        return self.registry()


class SnapshotResource(_Located):
    _snapshots: SnapshotStore | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: InitResourceContext) -> None:
        self._snapshots = SnapshotStore(self.settings().data_dir)

    def get(self) -> SnapshotStore:
        return _ready(self._snapshots, "snapshots")


class StoreResource(_Located):
    _store: VectorStore | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: InitResourceContext) -> None:
        self._store = build_store(self.settings(), self.registry())

    def teardown_after_execution(self, context: InitResourceContext) -> None:
        if self._store is not None:
            self._store.close()

    def get(self) -> VectorStore:
        return _ready(self._store, "store")


class EmbedderResource(_Located):
    """The configured embedding model, the cache of its vectors, and a chunker sized to its
    input window."""

    _embedder: Embedder | None = PrivateAttr(default=None)
    _chunker: Chunker | None = PrivateAttr(default=None)
    _cache: EmbeddingCache | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: InitResourceContext) -> None:
        settings, registry = self.settings(), self.registry()
        self._embedder = build_embedder(settings, registry)
        self._chunker = build_chunker(registry, self._embedder)
        self._cache = EmbeddingCache(settings.cache_dir)

    def teardown_after_execution(self, context: InitResourceContext) -> None:
        for part in (self._embedder, self._cache):
            if part is not None:
                part.close()

    def get(self) -> Embedder:
        return _ready(self._embedder, "embedder")

    def chunker(self) -> Chunker:
        return _ready(self._chunker, "embedder")

    def cache(self) -> EmbeddingCache:
        return _ready(self._cache, "embedder")


class QueryLogResource(_Located):
    def get(self) -> QueryLog:
        return QueryLog(self.settings().query_log)


def platform_resources(settings: Settings) -> dict[str, ConfigurableResource]:
    home, config = str(settings.home_dir), str(settings.config.resolve())
    models = str(settings.models_dir)
    located: dict[str, ConfigurableResource] = {
        name: kind(home=home, config=config, model_cache=models)
        for name, kind in (
            ("registry", RegistryResource),
            ("snapshots", SnapshotResource),
            ("store", StoreResource),
            ("embedder", EmbedderResource),
            ("query_log", QueryLogResource),
        )
    }
    return {**located, "signals": SignalsResource()}
