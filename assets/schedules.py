"""Schedules per source (a schedule launches one job, and each source has its own): the weekly
full reindex, Sunday 02:00 America/New_York, of every scope configuring the source (deletions
are swept), and the incremental poll. Run keys make a tick idempotent."""

from collections.abc import Callable

from dagster import (
    DefaultScheduleStatus,
    RunRequest,
    ScheduleDefinition,
    ScheduleEvaluationContext,
    SkipReason,
    schedule,
)

from assets.factory import FULL_PULL_TAG
from assets.jobs import reindex_job
from knowledge_platform import run_tags
from knowledge_platform.connectors.spec import poll_cron
from knowledge_platform.dagster_names import scopes_partitions_name
from resources.platform import RegistryResource

WEEKLY_CRON = "0 2 * * 0"
TIMEZONE = "America/New_York"


def _requests(
    context: ScheduleEvaluationContext,
    registry: RegistryResource,
    source: str,
    make: Callable[[str, str], RunRequest],
) -> list[RunRequest]:
    """`make(tick, scope)` for each scope configuring `source` that is a partition of it
    (scopes the registry sensor has not added yet run from its backfill)."""
    partitions = set(context.instance.get_dynamic_partitions(scopes_partitions_name(source)))
    tick = (
        context.scheduled_execution_time.isoformat()
        if context.scheduled_execution_time
        else "manual"
    )
    scopes = registry.load_fresh().scopes_for(source)
    return [make(tick, scope) for scope in scopes if scope in partitions]


def build_weekly_reindex_schedule(source: str) -> ScheduleDefinition:
    """`<source>_weekly_reindex_schedule`: a full pull of every scope configuring `source`."""
    name = f"{source}_weekly_reindex_schedule"

    @schedule(
        name=name,
        cron_schedule=WEEKLY_CRON,
        execution_timezone=TIMEZONE,
        job=reindex_job(source),
        default_status=DefaultScheduleStatus.RUNNING,
        description=f"Weekly full reindex of {source} in every scope (Sunday 02:00 NY).",
    )
    def weekly_reindex_schedule(context: ScheduleEvaluationContext, registry: RegistryResource):
        requests = _requests(
            context,
            registry,
            source,
            lambda tick, scope: RunRequest(
                run_key=f"weekly:{tick}:{source}:{scope}",
                partition_key=scope,
                tags={FULL_PULL_TAG: "true", run_tags.TRIGGER: name},
            ),
        )
        return requests or SkipReason(f"no scope has {source} configured")

    return weekly_reindex_schedule


def build_poll_schedule(source: str, minutes: int) -> ScheduleDefinition:
    """`<source>_incremental_schedule`: an ordinary (incremental) run of every scope that has
    the source, every `minutes` — the sync contract's deadline for deletes and moves."""
    name = f"{source}_incremental_schedule"

    @schedule(
        name=name,
        cron_schedule=poll_cron(minutes),
        execution_timezone=TIMEZONE,
        job=reindex_job(source),
        default_status=DefaultScheduleStatus.RUNNING,
        description=f"Ordinary {source} run every {minutes} minutes: creates, edits, "
        "deletes and moves (see docs/sync-contract.md).",
    )
    def poll_schedule(context: ScheduleEvaluationContext, registry: RegistryResource):
        requests = _requests(
            context,
            registry,
            source,
            lambda tick, scope: RunRequest(
                run_key=f"{source}:{tick}:{scope}",
                partition_key=scope,
                tags={run_tags.TRIGGER: name},
            ),
        )
        return requests or SkipReason(f"no scope has {source} configured")

    return poll_schedule
