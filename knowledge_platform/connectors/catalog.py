"""Source name -> its SourceSpec; connector classes are imported lazily, so one source's
dependencies never load another's."""

from __future__ import annotations

import importlib

from knowledge_platform.connectors.base import Connector
from knowledge_platform.connectors.spec import SourceSpec
from knowledge_platform.errors import ConfigError

SOURCE_NAMES = (
    "memory_files",
    "clickup",
    "google_drive",
    "supabase",
    "website",
    "git_docs",
    "beir",
)


def spec(source: str) -> SourceSpec:
    if source not in SOURCE_NAMES:
        known = ", ".join(SOURCE_NAMES)
        raise ConfigError(f"unknown source {source!r}; known sources: {known}")
    module = importlib.import_module(f"knowledge_platform.connectors.{source}.spec")
    return module.SPEC


def connector_class(source: str) -> type[Connector]:
    module_name, _, attr = spec(source).connector.partition(":")
    return getattr(importlib.import_module(module_name), attr)
