"""What a Google Drive pull leaves for the next: each change log's page token, the roots and
the folders another scope names it was listed for, the folder graph under the roots, and a
record of each file under them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge_platform.connectors.cursor import BaseCursor

#: The layout this version writes; a cursor of another one is read as none (a full pull).
LAYOUT = 2


class FileRecord(BaseModel):
    """What the cursor keeps of a file under the roots (tree.record)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    parents: list[str] = Field(default_factory=list)
    mime: str = ""
    name: str = ""
    #: Drive's `version` when it was read; None: it failed (any later change reads it again).
    version: str | None = None
    #: An upload's checksum.
    md5: str | None = None
    #: Why this version of an upload cannot be converted (encrypted, corrupt...): said again
    #: without a download until the file changes.
    verdict: str | None = None


class GoogleDriveCursor(BaseCursor):
    #: The layout: the one field without a default, as the cursors written before layout 2
    #: (one `page_token`, no `tokens`) have no `v` and must read as none, not as an empty
    #: change log. A first pull starts from no cursor (None), not from an empty one.
    v: Literal[2]
    #: All of `tokens` in one string: what the change probe compares (`probe_token`).
    page_token: str = ""
    #: Change log ("" for My Drive, else a shared drive id) -> its next page token.
    tokens: dict[str, str] = Field(default_factory=dict)
    #: The roots listed; another set of roots lists everything again.
    roots: list[str] = Field(default_factory=list)
    #: The folders under the roots that other scopes name (left to them).
    foreign: list[str] = Field(default_factory=list)
    #: Folder id -> its parent ids (the graph under the roots, and ancestors looked up).
    folders: dict[str, list[str]] = Field(default_factory=dict)
    #: File id -> what the last pull kept of it (tree.record).
    files: dict[str, FileRecord] = Field(default_factory=dict)

    def probe_token(self) -> str | None:
        return self.page_token
