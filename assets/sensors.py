"""Sensors: the registry (scopes become partitions; a new source x scope gets a backfill),
one change sensor per source whose spec declares a cheap probe, and the automation condition
sensor that carries a materialized `<source>/raw` through to its collection."""

import json
from collections.abc import Iterable

from dagster import (
    AssetSelection,
    AutomationConditionSensorDefinition,
    DefaultSensorStatus,
    RunRequest,
    SensorDefinition,
    SensorEvaluationContext,
    SensorResult,
    sensor,
)

from assets.factory import FULL_PULL_TAG, asset_keys
from assets.jobs import reindex_job
from assets.partitions import SCOPES, scopes_partitions
from knowledge_platform import run_tags
from knowledge_platform.connectors.catalog import connector_class, spec
from knowledge_platform.errors import KnowledgePlatformError
from resources.platform import RegistryResource, SnapshotResource


def build_registry_sensor(sources: Iterable[str]) -> SensorDefinition:
    known = set(sources)

    @sensor(
        name="registry_sensor",
        job=reindex_job,
        minimum_interval_seconds=10,
        default_status=DefaultSensorStatus.RUNNING,
        description="Keeps the scopes partitions equal to the registry's scopes and backfills "
        "every source newly configured for a scope. A removed client keeps its "
        "partition and collection (read-only, unreachable through MCP).",
    )
    def registry_sensor(context: SensorEvaluationContext, registry: RegistryResource):
        reg = registry.load_fresh()
        existing = set(context.instance.get_dynamic_partitions(SCOPES))
        new_scopes = [s for s in reg.scopes if s not in existing]
        seen = set(json.loads(context.cursor)) if context.cursor else set()
        pairs = {
            f"{source}:{scope}"
            for scope in reg.scopes
            for source in reg.sources_for(scope)
            if source in known
        }
        requests = [
            RunRequest(
                run_key=f"onboard:{pair}",
                partition_key=pair.split(":", 1)[1],
                asset_selection=asset_keys(pair.split(":", 1)[0]),
                tags={FULL_PULL_TAG: "true", run_tags.TRIGGER: "registry_sensor"},
            )
            for pair in sorted(pairs - seen)
        ]
        removed = sorted(existing - set(reg.scopes))
        if removed:
            context.log.info(f"scopes no longer in the registry, kept read-only: {removed}")
        return SensorResult(
            run_requests=requests,
            dynamic_partitions_requests=(
                [scopes_partitions.build_add_request(new_scopes)] if new_scopes else []
            ),
            cursor=json.dumps(sorted(seen | pairs)),
        )

    return registry_sensor


def build_changes_sensor(source: str) -> SensorDefinition:
    """`<source>_changes_sensor`: every `probe_seconds`, ask each scope's connector for its cheap
    change token and run exactly the source x scope whose token moved since it was indexed."""
    source_spec = spec(source)
    key = source_spec.probe_key or ""
    name = f"{source}_changes_sensor"

    @sensor(
        name=name,
        job=reindex_job,
        minimum_interval_seconds=source_spec.probe_seconds or 60,
        default_status=DefaultSensorStatus.RUNNING,
        description=f"Probes {source}'s cheap change signal ({key}) per scope and re-indexes "
        "only the scopes that moved.",
    )
    def changes_sensor(
        context: SensorEvaluationContext, registry: RegistryResource, snapshots: SnapshotResource
    ):
        reg = registry.load_fresh()
        seen = json.loads(context.cursor) if context.cursor else {}
        current: dict[str, str] = {}
        requests: list[RunRequest] = []
        for scope in reg.scopes:
            if source not in reg.sources_for(scope):
                continue
            indexed = snapshots.get().read_cursor(source, scope)
            if indexed is None:
                continue  # never indexed: the registry sensor's backfill covers it
            try:
                connector = connector_class(source)(reg.source_settings(source, scope), scope)
                token = connector.probe(indexed)
            except KnowledgePlatformError as exc:
                context.log.warning(f"{source}:{scope}: probe failed, will retry: {exc}")
                if scope in seen:
                    current[scope] = seen[scope]
                continue
            if token is None:
                continue
            current[scope] = token
            if seen.get(scope, indexed.get(key)) != token:
                requests.append(
                    RunRequest(
                        run_key=f"changes:{source}:{scope}:{token}",
                        partition_key=scope,
                        asset_selection=asset_keys(source),
                        tags={run_tags.TRIGGER: name},
                    )
                )
        return SensorResult(run_requests=requests, cursor=json.dumps(current))

    return changes_sensor


def build_automation_sensor() -> AutomationConditionSensorDefinition:
    """Dagster's `default_automation_condition_sensor` (the name it gives the sensor it adds on
    its own), declared here so that it runs by default: it evaluates the downstream assets'
    `AutomationCondition.eager()`, so materializing `<source>/raw` alone updates the rest."""
    return AutomationConditionSensorDefinition(
        "default_automation_condition_sensor",
        target=AssetSelection.all(),
        default_status=DefaultSensorStatus.RUNNING,
        description="Evaluates every asset's automation condition: a new `<source>/raw` "
        "materialization brings its chunks, embeddings and collection up to date.",
    )
