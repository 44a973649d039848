"""The connector interface: a source pulls documents for one scope, fully or incrementally."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from knowledge_platform.models import Confidentiality, Document


class Skipped(BaseModel):
    """An item the connector could not turn into a document, and why."""

    source_id: str
    reason: str


class PullResult(BaseModel):
    """What one pull found.

    `full=True`: `documents` is the complete current set of the source for the scope; anything
    absent from it is gone. `full=False`: `documents` are new or changed ones only and
    `deleted` names the source ids known to be gone; everything else is unchanged.
    `cursor` is opaque state the next pull receives back (page tokens, high-water marks).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    documents: list[Document]
    full: bool
    deleted: list[str] = Field(default_factory=list)
    skipped: list[Skipped] = Field(default_factory=list)
    cursor: dict[str, Any] = Field(default_factory=dict)
    #: Requests made to the source, for metadata and tests of incremental behaviour.
    requests: int = 0


class SourceSettings(BaseModel):
    """Base of every connector's registry settings; unknown keys are an error."""

    model_config = ConfigDict(extra="forbid")

    #: Confidentiality of this source's documents unless a document says otherwise (front
    #: matter in memory files and git docs): who may read them, see access.VISIBLE.
    confidentiality: Confidentiality = "internal"


class Connector(ABC):
    #: The source name: asset key prefix, payload `source`, registry key.
    name: ClassVar[str]
    settings_model: ClassVar[type[SourceSettings]]

    def __init__(self, settings: SourceSettings, scope: str) -> None:
        self.settings = settings
        self.scope = scope

    @abstractmethod
    def pull(self, cursor: dict[str, Any] | None, *, full: bool = False) -> PullResult:
        """Pull the scope's documents. `cursor` is the previous pull's, or None the first time;
        `full=True` asks for a complete listing (the weekly sweep) whatever the cursor says.
        Raises SourceError on an outage; never returns a partial listing as `full`."""

    def probe(self, cursor: dict[str, Any] | None) -> str | None:
        """A cheap token of the source's current state (a commit sha, a change-feed token)
        that differs as soon as a pull would find something new. None: this source has no
        cheap probe and is polled by schedules instead."""
        return None
