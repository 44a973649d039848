"""Memory files: local markdown, probed by a size + mtime fingerprint every 30 seconds."""

from __future__ import annotations

from knowledge_platform.connectors.spec import SourceSpec

SPEC = SourceSpec(
    name="memory_files",
    connector="knowledge_platform.connectors.memory_files.connector:MemoryFilesConnector",
    probe_seconds=30,
    deadline="30 seconds (the change probe) plus one run",
)
