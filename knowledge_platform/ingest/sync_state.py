"""What a source x scope's raw step leaves for the next run and for the checks, typed: the
ids to read again, deletions held by the guard, deletions the source confirmed, the problems of
the run, and when it pulled. Stored as `sync.json` beside the snapshots (snapshots.py); a
state written before a field existed reads with that field's default."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field


@dataclass(frozen=True)
class Problem:
    """One line of the run's report: a sub-resource, what went wrong, what the index did."""

    what: str
    reason: str
    #: "removed" (the source says it is gone), "kept" (last good version kept, stale),
    #: "not indexed" (failed before it was ever indexed), "held" (deletion held by the guard),
    #: "unsupported" (a type the platform does not index: listed, not a failure)
    action: str
    documents: int = 1

    def line(self) -> str:
        count = f" ({self.documents} documents)" if self.documents > 1 else ""
        action = {
            "kept": "kept the last good version",
            "held": "deletion held",
            "unsupported": "not indexed (type not read)",
        }.get(self.action, self.action)
        return f"{self.what}: {self.reason} -> {action}{count}"


class HeldDeletions(BaseModel):
    model_config = ConfigDict(frozen=True)

    #: Source ids whose inferred deletion the guard held back.
    ids: list[str] = Field(default_factory=list)
    reason: str | None = None


class SyncState(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    #: Source ids to fetch again next pull (they failed this time).
    retry: list[str] = Field(default_factory=list)
    held: HeldDeletions | None = None
    #: Source ids removed on the source's word this pull.
    confirmed: list[str] = Field(default_factory=list)
    #: The source confirmed every document gone: the collection may be emptied.
    emptied_by_source: bool = False
    problems: list[Problem] = Field(default_factory=list)
    #: When the pull that wrote this state started (ISO 8601, UTC).
    pulled_at: str | None = None
