"""Memory files' registry settings."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from knowledge_platform.connectors.base import SourceSettings


class MemoryFilesSettings(SourceSettings):
    path: Path
    glob: str = "**/*.md"
    max_bytes: int = Field(default=32 * 1024 * 1024, gt=0)
