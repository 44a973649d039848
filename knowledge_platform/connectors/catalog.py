"""Source name -> connector class, imported lazily so one source's deps never load another's."""

from __future__ import annotations

import importlib

from knowledge_platform.connectors.base import Connector
from knowledge_platform.errors import ConfigError

_CATALOG = {
    "memory_files": "knowledge_platform.connectors.memory_files:MemoryFilesConnector",
    "clickup": "knowledge_platform.connectors.clickup:ClickUpConnector",
    "google_drive": "knowledge_platform.connectors.google_drive:GoogleDriveConnector",
    "supabase": "knowledge_platform.connectors.supabase:SupabaseConnector",
    "website": "knowledge_platform.connectors.website:WebsiteConnector",
    "git_docs": "knowledge_platform.connectors.git_docs:GitDocsConnector",
    "beir": "knowledge_platform.connectors.beir:BeirConnector",
}

SOURCE_NAMES = tuple(_CATALOG)


def connector_class(source: str) -> type[Connector]:
    try:
        target = _CATALOG[source]
    except KeyError:
        known = ", ".join(SOURCE_NAMES)
        raise ConfigError(f"unknown source {source!r}; known sources: {known}") from None
    module_name, _, attr = target.partition(":")
    return getattr(importlib.import_module(module_name), attr)
