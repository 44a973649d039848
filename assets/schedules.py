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
from assets.partitions import scopes_partitions
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
        partitions = set(context.instance.get_dynamic_partitions(scopes_partitions.name))
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
                tags={FULL_PULL_TAG: "true", "kp/trigger": "weekly_reindex_schedule"},
            )
            for scope in reg.scopes
            if scope in partitions
            for source in reg.sources_for(scope)
            if source in known
        ]
        return requests or SkipReason("no source is configured for any scope")

    return weekly_reindex_schedule


def build_clickup_schedule(interval_minutes: int) -> ScheduleDefinition:
    @schedule(name="clickup_incremental_schedule", cron_schedule=f"*/{interval_minutes} * * * *",
              execution_timezone=TIMEZONE, job=reindex_job,
              default_status=DefaultScheduleStatus.RUNNING,
              description=f"Incremental ClickUp pull every {interval_minutes} minutes "
                          "(date_updated_gt with overlap); deletions wait for the weekly sweep.")
    def clickup_incremental_schedule(context: ScheduleEvaluationContext,
                                     registry: RegistryResource):
        reg = registry.load_fresh()
        partitions = set(context.instance.get_dynamic_partitions(scopes_partitions.name))
        tick = context.scheduled_execution_time.isoformat() if context.scheduled_execution_time \
            else "manual"
        requests = [
            RunRequest(run_key=f"clickup:{tick}:{scope}", partition_key=scope,
                       asset_selection=asset_keys("clickup"),
                       tags={"kp/trigger": "clickup_incremental_schedule"})
            for scope in reg.scopes
            if scope in partitions and "clickup" in reg.sources_for(scope)
        ]
        return requests or SkipReason("no scope has ClickUp configured")

    return clickup_incremental_schedule
