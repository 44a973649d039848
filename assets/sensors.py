"""Sensors: the registry (each source's partition set kept equal to the scopes that configure
it; a new source x scope gets a backfill), one change sensor per source whose spec declares a
cheap probe, and the automation condition sensor that carries a materialized `<source>/raw`
through to its collection."""

import json
from collections.abc import Iterable
from dataclasses import dataclass

from dagster import (
    AddDynamicPartitionsRequest,
    AssetSelection,
    AutomationConditionSensorDefinition,
    DefaultSensorStatus,
    DeleteDynamicPartitionsRequest,
    RunRequest,
    SensorDefinition,
    SensorEvaluationContext,
    SensorResult,
    sensor,
)

from assets.factory import FULL_PULL_TAG
from assets.jobs import reindex_job
from assets.partitions import scopes_partitions
from knowledge_platform import run_tags
from knowledge_platform.config.registry import Registry
from knowledge_platform.connectors.catalog import connector_class, spec
from knowledge_platform.dagster_names import reindex_job_name, scopes_partitions_name
from knowledge_platform.errors import KnowledgePlatformError
from resources.platform import RegistryResource, SnapshotResource

PartitionsRequest = AddDynamicPartitionsRequest | DeleteDynamicPartitionsRequest


def _sync_partitions(
    context: SensorEvaluationContext, reg: Registry, source: str
) -> list[PartitionsRequest]:
    """The requests that make `source`'s partition set equal to the scopes configuring it."""
    wanted = set(reg.scopes_for(source))
    existing = set(context.instance.get_dynamic_partitions(scopes_partitions_name(source)))
    partitions = scopes_partitions(source)
    requests: list[PartitionsRequest] = []
    if added := sorted(wanted - existing):
        requests.append(partitions.build_add_request(added))
    if removed := sorted(existing - wanted):
        context.log.info(
            f"{source}: scopes no longer configuring it leave its partitions (their collections "
            f"are kept, read-only): {removed}"
        )
        requests.append(partitions.build_delete_request(removed))
    return requests


@dataclass(frozen=True)
class _RegistryCursor:
    pairs: set[str]
    generation: int = 0

    @classmethod
    def read(cls, cursor: str | None) -> "_RegistryCursor":
        value = json.loads(cursor) if cursor else {}
        if isinstance(value, list):  # before partitions per source: the pairs alone
            return cls(set(value))
        return cls(set(value.get("pairs", [])), int(value.get("generation", 0)))

    def dump(self) -> str:
        return json.dumps({"generation": self.generation, "pairs": sorted(self.pairs)})


def build_registry_sensor(sources: Iterable[str]) -> SensorDefinition:
    known = list(sources)

    @sensor(
        name="registry_sensor",
        jobs=[reindex_job(source) for source in known] or None,
        minimum_interval_seconds=10,
        default_status=DefaultSensorStatus.RUNNING,
        description="Keeps each source's partitions equal to the scopes whose registry entry "
        "configures it, and backfills every source newly configured for a scope. A scope that "
        "stops configuring a source leaves its partitions; its collection is kept (read-only, "
        "unreachable through MCP once the client is gone).",
    )
    def registry_sensor(context: SensorEvaluationContext, registry: RegistryResource):
        """Cursor: the `source:scope` pairs configured at the last tick and a generation that
        moves whenever they change. A pair configured since is backfilled (a full pull); one
        removed and configured again is backfilled again. The run key carries the generation,
        so a tick the daemon repeats (it died before saving the cursor) asks for the same
        runs, not new ones."""
        reg = registry.load_fresh()
        last = _RegistryCursor.read(context.cursor)
        pairs = {f"{source}:{scope}" for source in known for scope in reg.scopes_for(source)}
        generation = last.generation + (pairs != last.pairs)
        requests = []
        for pair in sorted(pairs - last.pairs):
            source, scope = pair.split(":", 1)
            requests.append(
                RunRequest(
                    run_key=f"onboard:{pair}:{generation}",
                    job_name=reindex_job_name(source),
                    partition_key=scope,
                    tags={FULL_PULL_TAG: "true", run_tags.TRIGGER: "registry_sensor"},
                )
            )
        return SensorResult(
            run_requests=requests,
            dynamic_partitions_requests=[
                r for source in known for r in _sync_partitions(context, reg, source)
            ],
            cursor=_RegistryCursor(pairs, generation).dump(),
        )

    return registry_sensor


def build_changes_sensor(source: str) -> SensorDefinition:
    """`<source>_changes_sensor`: every `probe_seconds`, ask each scope's connector for its cheap
    change token and run exactly the source x scope whose token moved since it was indexed."""
    source_spec = spec(source)
    name = f"{source}_changes_sensor"

    @sensor(
        name=name,
        job=reindex_job(source),
        minimum_interval_seconds=source_spec.probe_seconds or 60,
        default_status=DefaultSensorStatus.RUNNING,
        description=f"Probes {source}'s cheap change signal per scope and re-indexes only the "
        "scopes that moved.",
    )
    def changes_sensor(
        context: SensorEvaluationContext, registry: RegistryResource, snapshots: SnapshotResource
    ):
        reg = registry.load_fresh()
        seen = json.loads(context.cursor) if context.cursor else {}
        current: dict[str, str] = {}
        requests: list[RunRequest] = []
        # A scope the registry sensor has not made a partition yet runs from its backfill.
        partitions = set(context.instance.get_dynamic_partitions(scopes_partitions_name(source)))
        for scope in reg.scopes_for(source):
            if scope not in partitions:
                continue
            stored = snapshots.get().read_cursor(source, scope)
            if stored is None:
                continue  # never indexed: the registry sensor's backfill covers it
            try:
                connector = connector_class(source)(reg.source_settings(source, scope), scope)
                # None: a cursor of an older layout; one run (a full pull) rewrites it.
                indexed = connector.load_cursor(stored)
                token = connector.probe(indexed)
            except KnowledgePlatformError as exc:
                context.log.warning(f"{source}:{scope}: probe failed, will retry: {exc}")
                if scope in seen:
                    current[scope] = seen[scope]
                continue
            if token is None:
                continue
            current[scope] = token
            built = indexed.probe_token() if indexed is not None else None
            if seen.get(scope, built) != token:
                requests.append(
                    RunRequest(
                        run_key=f"changes:{source}:{scope}:{token}",
                        partition_key=scope,
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
