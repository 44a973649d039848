"""Wiring of the core from settings + registry: the one place that builds store, embedder,
cache and retriever — what both sides use. Dagster resources, the MCP service and the CLI all
use it; the write side adds its chunker and snapshots (`knowledge_platform.ingest.runtime`)."""

from __future__ import annotations

import datetime as dt
import functools

from knowledge_platform.config.registry import Registry, load_registry
from knowledge_platform.config.registry_watch import RegistryWatch
from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.embeddings.cache import EmbeddingCache
from knowledge_platform.embeddings.factory import make_embedder
from knowledge_platform.serve.clock import local_today
from knowledge_platform.serve.retrieval import Retriever
from knowledge_platform.settings import Settings
from knowledge_platform.sparse import SparseEncoder
from knowledge_platform.store.base import VectorStore
from knowledge_platform.store.factory import make_store


def build_embedder(
    settings: Settings, registry: Registry, *, threads: int | None = None
) -> Embedder:
    cfg = registry.embedding
    return make_embedder(
        cfg.provider,
        model=cfg.model,
        cache_dir=settings.models_dir,
        api_key=cfg.resolve_secret("api_key", owner="embedding", what="OpenAI API key")
        if cfg.provider == "openai"
        else None,
        base_url=cfg.base_url,
        timeout_s=cfg.timeout_seconds,
        max_retries=cfg.max_retries,
        batch_size=cfg.batch_size,
        threads=threads,
    )


def build_store(settings: Settings, registry: Registry) -> VectorStore:
    cfg = registry.store
    if cfg.engine == "qdrant":
        url = cfg.resolve_secret("url", owner="store engine 'qdrant'", what="server URL")
        api_key = cfg.resolve_optional_secret("api_key", owner="store", what="Qdrant API key")
        return make_store(
            "qdrant", path=None, url=url, api_key=api_key, lock_dir=settings.home_dir / "locks"
        )
    return make_store("edge", path=settings.shards_dir, url=None, api_key=None)


class Runtime:
    def __init__(
        self,
        settings: Settings,
        registry: Registry | None = None,
        *,
        embed_threads: int | None = None,
        follow: bool = False,
    ) -> None:
        """`embed_threads`: CPU threads each local embedding call may use (None: all, which
        suits ingest batches); a service running many short calls at once wants 1.
        `follow`: re-read the registry file whenever it changes (a long-running service);
        the embedder and store (and an IngestRuntime's chunker) keep the settings the process
        started with."""
        self.settings = settings
        self.watch = RegistryWatch(settings.config) if follow and registry is None else None
        self._registry = registry or (
            self.watch.current() if self.watch else load_registry(settings.config)
        )
        self.embed_threads = embed_threads

    @property
    def registry(self) -> Registry:
        """The registry; when following the file, the version of its last check."""
        return self.watch.registry if self.watch else self._registry

    def check_registry(self) -> Registry:
        """The registry, re-read first if it follows the file and the file changed."""
        return self.watch.current() if self.watch else self.registry

    @registry.setter
    def registry(self, registry: Registry) -> None:
        """A fixed registry from now on (tests, one-off variants)."""
        self.watch = None
        self._registry = registry

    @functools.cached_property
    def embedder(self) -> Embedder:
        return build_embedder(self.settings, self._registry, threads=self.embed_threads)

    @functools.cached_property
    def store(self) -> VectorStore:
        return build_store(self.settings, self._registry)

    @functools.cached_property
    def cache(self) -> EmbeddingCache:
        return EmbeddingCache(self.settings.cache_dir)

    @functools.cached_property
    def sparse(self) -> SparseEncoder:
        return SparseEncoder()

    @functools.cached_property
    def retriever(self) -> Retriever:
        return Retriever(self.store, self.embedder, self.sparse)

    def today(self) -> dt.date:
        """The service's today: KP_NOW or the clock, in the registry's timezone."""
        return local_today(self.registry.timezone, self.settings.now)

    def close(self) -> None:
        for part in ("store", "embedder", "cache"):
            if part in self.__dict__:
                self.__dict__[part].close()
