from __future__ import annotations

from knowledge_platform.connectors.memory_files.connector import MemoryFilesConnector
from knowledge_platform.connectors.memory_files.settings import MemoryFilesSettings
from knowledge_platform.secrets.fields import EnvName, VaultRef


class NotesSettings(MemoryFilesSettings):
    webhook_secret_env: EnvName | None = None
    webhook_secret_ref: VaultRef | None = None


class NotesConnector(MemoryFilesConnector):
    name = "notes_push"
    settings_model = NotesSettings
