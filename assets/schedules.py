"""The weekly reindex: Sunday 02:00 America/New_York, every configured source x scope, with a
full pull so deletions are swept. Run keys make a tick idempotent."""

from collections.abc import Iterable

from dagster import (
    DefaultScheduleStatus,
    RunRequest,
    ScheduleDefinition,
    ScheduleEvaluationContext,
    SkipReason,
    schedule,
)

from assets.factory import FULL_PULL_TAG, asset_keys
from assets.jobs import reindex_job
from assets.partitions import SCOPES
from knowledge_platform import run_tags
from knowledge_platform.connectors.spec import poll_cron
from resources.platform import RegistryResource

WEEKLY_CRON = "0 2 * * 0"
TIMEZONE = "America/New_York"


def build_weekly_reindex_schedule(sources: Iterable[str]) -> ScheduleDefinition:
    known = set(sources)

    @schedule(
        name="weekly_reindex_schedule",
        cron_schedule=WEEKLY_CRON,
        execution_timezone=TIMEZONE,
        job=reindex_job,
        default_status=DefaultScheduleStatus.RUNNING,
        description="Weekly full reindex of every source and scope (Sunday 02:00 NY).",
    )
    def weekly_reindex_schedule(context: ScheduleEvaluationContext, registry: RegistryResource):
        reg = registry.load_fresh()
        # Scopes the registry sensor has not turned into partitions yet run from its backfill.
        partitions = set(context.instance.get_dynamic_partitions(SCOPES))
        tick = (
            context.scheduled_execution_time.isoformat()
            if context.scheduled_execution_time
            else "manual"
        )
        requests = [
            RunRequest(
                run_key=f"weekly:{tick}:{source}:{scope}",
                partition_key=scope,
                asset_selection=asset_keys(source),
                tags={FULL_PULL_TAG: "true", run_tags.TRIGGER: "weekly_reindex_schedule"},
            )
            for scope in reg.scopes
            if scope in partitions
            for source in reg.sources_for(scope)
            if source in known
        ]
        return requests or SkipReason("no source is configured for any scope")

    return weekly_reindex_schedule


def build_poll_schedule(source: str, minutes: int) -> ScheduleDefinition:
    """`<source>_incremental_schedule`: an ordinary (incremental) run of every scope that has
    the source, every `minutes` — the sync contract's deadline for deletes and moves."""
    name = f"{source}_incremental_schedule"

    @schedule(
        name=name,
        cron_schedule=poll_cron(minutes),
        execution_timezone=TIMEZONE,
        job=reindex_job,
        default_status=DefaultScheduleStatus.RUNNING,
        description=f"Ordinary {source} run every {minutes} minutes: creates, edits, "
        "deletes and moves (see docs/sync-contract.md).",
    )
    def poll_schedule(context: ScheduleEvaluationContext, registry: RegistryResource):
        reg = registry.load_fresh()
        partitions = set(context.instance.get_dynamic_partitions(SCOPES))
        tick = (
            context.scheduled_execution_time.isoformat()
            if context.scheduled_execution_time
            else "manual"
        )
        requests = [
            RunRequest(
                run_key=f"{source}:{tick}:{scope}",
                partition_key=scope,
                asset_selection=asset_keys(source),
                tags={run_tags.TRIGGER: name},
            )
            for scope in reg.scopes
            if scope in partitions and source in reg.sources_for(scope)
        ]
        return requests or SkipReason(f"no scope has {source} configured")

    return poll_schedule
