"""The Definitions, assembled in exactly one place from the registry named by KP_CONFIG."""

from __future__ import annotations

from dagster import Definitions, definitions, in_process_executor

from assets.analytics import analytics_job, analytics_weekly_schedule, query_report
from assets.checks import build_collection_checks
from assets.factory import build_source_assets
from assets.hooks import PUSH_SOURCES, build_hooks_sensor, build_renewal_sensor
from assets.jobs import reindex_job
from assets.reaper import build_reaper_sensor
from assets.schedules import build_poll_schedule, build_weekly_reindex_schedule
from assets.sensors import build_automation_sensor, build_changes_sensor, build_registry_sensor
from knowledge_platform.config.registry import load_registry
from knowledge_platform.connectors.catalog import spec
from knowledge_platform.settings import Settings
from resources.platform import platform_resources


def build_definitions(settings: Settings | None = None) -> Definitions:
    settings = settings or Settings()
    registry = load_registry(settings.config)
    sources = registry.sources
    sensors = [build_registry_sensor(sources), build_automation_sensor(), build_reaper_sensor()]
    sensors += [build_changes_sensor(s) for s in sources if spec(s).probe_seconds]
    if any(s in PUSH_SOURCES for s in sources):
        sensors.append(build_hooks_sensor(registry))
    if "google_drive" in sources:
        sensors.append(build_renewal_sensor())
    schedules = [*(build_weekly_reindex_schedule(s) for s in sources), analytics_weekly_schedule]
    schedules += [
        build_poll_schedule(s, minutes)
        for s in sources
        if (minutes := registry.poll_minutes_for(s))
    ]
    return Definitions(
        assets=[*(a for source in sources for a in build_source_assets(source)), query_report],
        asset_checks=[c for source in sources for c in build_collection_checks(source)],
        jobs=[*(reindex_job(s) for s in sources), analytics_job],
        schedules=schedules,
        sensors=sensors,
        resources=platform_resources(settings),
        # Steps are short and share one Runtime (model, store); a process per step would load
        # the model four times per run.
        executor=in_process_executor,
    )


@definitions
def defs() -> Definitions:
    return build_definitions()
