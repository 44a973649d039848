from __future__ import annotations

from knowledge_platform.connectors.memory_files.connector import (
    MemoryFilesConnector,
    MemoryFilesCursor,
)
from knowledge_platform.connectors.memory_files.settings import MemoryFilesSettings
from knowledge_platform.secrets.fields import EnvName, VaultRef


class NotesSettings(MemoryFilesSettings):
    webhook_secret_env: EnvName | None = None
    webhook_secret_ref: VaultRef | None = None


class NotesConnector(MemoryFilesConnector):
    name = "notes_push"
    settings_model = NotesSettings
    #: What a pull leaves for the next, typed (connectors/cursor.py): the folder's
    #: fingerprint. `pull` receives it as a `MemoryFilesCursor` (None the first time, or when
    #: the stored one no longer validates: a full pull) and returns the next one; its
    #: `probe_token()` is the fingerprint. A source with more state declares its own `BaseCursor`
    #: subclass, every field with a default.
    cursor_model = MemoryFilesCursor
