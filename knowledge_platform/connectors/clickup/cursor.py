"""What a ClickUp pull leaves for the next: the run number, the lists the scope resolved to,
when each task's comment thread was last read, and the verdicts on attachments not indexed."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from knowledge_platform.connectors.cursor import BaseCursor


class AttachmentVerdict(BaseModel):
    """Why an attachment is not indexed: a type not read (`unsupported`, listed once), or a
    conversion that failed under the `files` settings of fingerprint `files` (said again
    without a download until those settings or the upload change)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    reason: str
    unsupported: bool = False
    files: str | None = None


class ClickUpCursor(BaseCursor):
    #: Runs so far: numbers `threads_read`.
    run: int = 0
    #: The list ids the last listing resolved the scope to; None before one (a hinted pull
    #: needs them to tell a task in the scope).
    lists: tuple[str, ...] | None = None
    #: Task id -> the run that last read its comment thread.
    threads_read: dict[str, int] = Field(default_factory=dict)
    #: Attachment source id -> why it is not indexed.
    attachments: dict[str, AttachmentVerdict] = Field(default_factory=dict)
