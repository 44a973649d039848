"""Dagster resources over the core's Runtime: `registry`, `store`, `embedder`, `snapshots`.

They share one Runtime per process (keyed by KP_HOME and registry path), so a run builds
the embedding model and opens the store once however many assets it executes."""

from __future__ import annotations

import functools
from pathlib import Path

from dagster import ConfigurableResource

from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.registry import Registry, load_registry
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from knowledge_platform.snapshots import SnapshotStore
from knowledge_platform.store.base import VectorStore


@functools.cache
def _runtime(home: str, config: str, model_cache: str | None) -> Runtime:
    settings = Settings.model_validate(
        {"KP_HOME": home, "KP_CONFIG": config, "KP_MODEL_CACHE": model_cache}
    )
    return Runtime(settings)


class _PlatformResource(ConfigurableResource):
    home: str
    config: str
    model_cache: str | None = None

    @property
    def runtime(self) -> Runtime:
        return _runtime(str(Path(self.home).resolve()), str(Path(self.config).resolve()),
                        self.model_cache)


class RegistryResource(_PlatformResource):
    def get(self) -> Registry:
        return self.runtime.registry

    def load_fresh(self) -> Registry:
        """Re-read the file: sensors and schedules live in a long-running process."""
        return load_registry(Path(self.config))


class StoreResource(_PlatformResource):
    def get(self) -> VectorStore:
        return self.runtime.store


class EmbedderResource(_PlatformResource):
    def get(self) -> Embedder:
        return self.runtime.embedder


class SnapshotResource(_PlatformResource):
    def get(self) -> SnapshotStore:
        return self.runtime.snapshots


def platform_resources(settings: Settings) -> dict[str, _PlatformResource]:
    common = {
        "home": str(settings.home_dir),
        "config": str(settings.config.resolve()),
        "model_cache": str(settings.models_dir),
    }
    return {
        "registry": RegistryResource(**common),
        "store": StoreResource(**common),
        "embedder": EmbedderResource(**common),
        "snapshots": SnapshotResource(**common),
    }
