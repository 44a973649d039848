"""Typed results of the Dagster client: what `get_index_status` / `trigger_reindex` return."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field

Pair = tuple[str, str]
PartitionFreshness = Literal["fresh", "warn", "stale", "never", "unknown"]


class RunInfo(BaseModel):
    run_id: str
    status: str
    source: str | None = None
    scope: str | None = None
    created: dt.datetime | None = None
    started: dt.datetime | None = None


class BlockedStep(BaseModel):
    """A step of an in-flight run waiting for a pool slot longer than its source's deadline."""

    run_id: str
    step: str
    pool: str
    since: dt.datetime = Field(description="When the step started waiting")
    held_by: list[str] = Field(
        default_factory=list, description="Runs holding the pool's slots meanwhile"
    )


class SourceStatus(BaseModel):
    source: str
    scope: str
    points: int | None = Field(default=None, description="This source's points in the store")
    last_materialization: dt.datetime | None = None
    run_id: str | None = Field(
        default=None,
        description="The run of the last materialization; none when the hooks sensor applied "
        "a webhook's small change itself (no run)",
    )
    data_version: str | None = None
    sha: str | None = Field(
        default=None,
        description=("git sources: the commit the last materialized collection was built from"),
    )
    metadata: dict[str, int | float | str | bool] = Field(default_factory=dict)
    latest_run_id: str | None = None
    latest_run_status: str | None = None
    freshness: str = Field(
        default="UNKNOWN", description="Dagster's freshnessStatus of the collection asset"
    )
    partition_freshness: PartitionFreshness = "unknown"
    failing_checks: list[str] = Field(
        default_factory=list, description="Checks whose latest evaluation failed"
    )
    errored_checks: list[str] = Field(
        default_factory=list, description="Checks that could not run (run failed)"
    )
    in_flight_runs: list[str] = Field(
        default_factory=list,
        description=("Runs of this source x scope queued or running now, the earliest first"),
    )
    indexing_since: dt.datetime | None = Field(
        default=None,
        description=(
            "Never materialized and a run is in flight: when the earliest of those runs was queued"
        ),
    )
    blocked: list[BlockedStep] = Field(
        default_factory=list,
        description=("In-flight runs waiting for a pool slot longer than the source's deadline"),
    )


class IndexStatus(BaseModel):
    status: Literal["ok", "degraded", "unavailable"] = Field(
        description="ok, degraded or unavailable"
    )
    health: str = Field(description="one line saying how the index is")
    dagster_url: str = Field(description="the Dagster UI the status comes from")
    checked_at: dt.datetime = Field(description="when Dagster was asked (UTC)")
    sources: list[SourceStatus] = Field(
        default_factory=list,
        description=("per source x scope: points, last materialization, freshness, failing checks"),
    )
    in_flight: list[RunInfo] = Field(default_factory=list, description="runs queued or running now")
    warnings: list[str] = Field(default_factory=list, description="what to look at")


class LaunchedRun(BaseModel):
    source: str
    scope: str
    run_id: str | None = None
    status: str | None = None
    error: str | None = None
