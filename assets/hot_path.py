"""hooks_sensor's hot path, the Dagster side: a small hinted delta is applied inside the sensor
tick (knowledge_platform.ingest.hot_delta, with one IngestRuntime kept per code-server process) and
recorded as the four assets' materializations of its partition, and the collection checks'
evaluations, returned in the tick's `SensorResult(asset_events=...)` — the same metadata and
data versions a run records (records.py, checks.py), without a run. The daemon stores them as
runless events: get_index_status, the freshness policies and the UI read them as they read a
run's.

It declines (None: the sensor requests an ordinary run, as without it) when any run of the
partition that touches the source is queued or in flight (a run never races it), when the
delta does not qualify (hot_delta.refusal), or when applying it fails: the queue rows are then
covered by the run."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass

from dagster import (
    AssetCheckEvaluation,
    AssetKey,
    AssetMaterialization,
    DagsterInstance,
    DagsterRunStatus,
    DataVersion,
    MetadataValue,
    RunsFilter,
    SensorEvaluationContext,
)
from dagster._core.definitions.data_version import (  # Dagster's own names for these tags
    CODE_VERSION_TAG,
    DATA_VERSION_IS_USER_PROVIDED_TAG,
    DATA_VERSION_TAG,
    NULL_EVENT_POINTER,
    compute_logical_data_version,
    get_input_data_version_tag,
    get_input_event_pointer_tag,
)

from assets.checks import evaluate_checks
from assets.factory import STEPS
from assets.records import (
    Metadata,
    chunks_metadata,
    chunks_version,
    collection_metadata,
    embeddings_metadata,
    raw_metadata,
    raw_version,
)
from knowledge_platform import run_tags
from knowledge_platform.config.registry import Registry
from knowledge_platform.hooks.coalesce import PlannedRun
from knowledge_platform.ingest.hot_delta import NotHot, apply_hint
from knowledge_platform.ingest.runtime import IngestRuntime
from knowledge_platform.ingest.steps import StepsRun
from knowledge_platform.settings import Settings

AssetEvent = AssetMaterialization | AssetCheckEvaluation
#: Dagster's tag naming a run's partition.
PARTITION_TAG = "dagster/partition"
IN_FLIGHT = [
    DagsterRunStatus.QUEUED,
    DagsterRunStatus.NOT_STARTED,
    DagsterRunStatus.STARTING,
    DagsterRunStatus.STARTED,
    DagsterRunStatus.CANCELING,
]

_lock = threading.Lock()
_runtimes: dict[str, IngestRuntime] = {}


def _runtime(settings: Settings, registry: Registry) -> IngestRuntime:
    """This process's IngestRuntime for these settings (built on first use, model and store kept
    across ticks); a new one when the registry's embedding or store settings changed."""
    key = json.dumps(
        [
            str(settings.home_dir),
            str(settings.config),
            registry.embedding.model_dump(mode="json"),
            registry.store.model_dump(mode="json"),
        ],
        sort_keys=True,
    )
    with _lock:
        runtime = _runtimes.get(key)
        if runtime is None:
            for stale in _runtimes.values():
                stale.close()
            _runtimes.clear()
            runtime = _runtimes[key] = IngestRuntime(settings, registry)
        runtime.registry = registry
        return runtime


def run_in_flight(instance: DagsterInstance, source: str, scope: str) -> str | None:
    """The id of a queued or running run of `scope` that touches `source`'s assets."""
    runs = instance.get_runs(
        filters=RunsFilter(statuses=IN_FLIGHT, tags={PARTITION_TAG: scope}), limit=100
    )
    for run in runs:
        if run.asset_selection is None or any(k.path[0] == source for k in run.asset_selection):
            return run.run_id
    return None


def _tags(
    version: DataVersion, code: str, parent: tuple[AssetKey, DataVersion] | None, *, given: bool
) -> dict[str, str]:
    tags = {DATA_VERSION_TAG: version.value, CODE_VERSION_TAG: code}
    if given:
        tags[DATA_VERSION_IS_USER_PROVIDED_TAG] = "true"
    if parent is not None:
        tags[get_input_data_version_tag(parent[0])] = parent[1].value
        tags[get_input_event_pointer_tag(parent[0])] = NULL_EVENT_POINTER
    return tags


@dataclass(frozen=True)
class Applied:
    """A delta the hot path applied: its steps, and when (epoch seconds) and how long."""

    done: StepsRun
    started: float
    seconds: float


def materializations(
    source: str, scope: str, applied: Applied, runtime: IngestRuntime, plan: PlannedRun
) -> list[AssetMaterialization]:
    """The four assets' materializations of `scope`, as a run would record them: raw's and
    chunks' data versions are ours, embeddings' and collection's computed from their parent's
    as Dagster computes them in a run (the delta's queue ids standing in for the run id)."""
    code = f"hooks-{plan.first_id}-{plan.last_id}"
    done = applied.done
    hinted = sorted(plan.hint.ids | plan.hint.deleted) if plan.hint else []
    metadata: list[Metadata] = [
        raw_metadata(done.pulled, done.merged),
        chunks_metadata(done.documents, done.chunked),
        embeddings_metadata(done.embed, runtime.embedder),
        {
            **collection_metadata(done.published, runtime.store.count(scope)),
            # what a run says by its run record: what it applied, when, for how long
            "hint_ids": MetadataValue.json(hinted),
            "hot_path_started": MetadataValue.timestamp(applied.started),
            "hot_path_seconds": round(applied.seconds, 3),
        },
    ]
    given = [raw_version(done.documents), chunks_version(done.chunked), None, None]
    common = {
        run_tags.TRIGGER: "hooks_sensor",
        run_tags.HOT_DELTA: f"{plan.first_id}-{plan.last_id}",
        run_tags.HOOK_EVENTS: str(plan.events),
    }
    events: list[AssetMaterialization] = []
    parent: tuple[AssetKey, DataVersion] | None = None
    for step, meta, version in zip(STEPS, metadata, given, strict=True):
        key = AssetKey([source, step])
        value = version or compute_logical_data_version(
            code, {parent[0]: parent[1]} if parent else {}
        )
        tags = _tags(value, code, parent, given=version is not None)
        events.append(
            AssetMaterialization(
                asset_key=key, partition=scope, metadata=meta, tags={**tags, **common}
            )
        )
        parent = (key, value)
    return events


def check_evaluations(
    source: str, scope: str, runtime: IngestRuntime
) -> list[AssetCheckEvaluation]:
    key = AssetKey([source, "collection"])
    return [
        AssetCheckEvaluation(
            asset_key=key,
            check_name=c.name,
            passed=c.result.passed,
            metadata=c.result.metadata or {},
            severity=c.result.severity,
            description=c.result.description,
            blocking=c.blocking,
            partition=scope,
        )
        for c in evaluate_checks(
            source, scope, runtime.registry, runtime.store, runtime.snapshots, runtime.embedder
        )
    ]


def try_hot(
    context: SensorEvaluationContext,
    settings: Settings,
    registry: Registry,
    plan: PlannedRun,
) -> list[AssetEvent] | None:
    """The delta of `plan` applied now and its asset events, or None: request a run."""
    max_ids = registry.service.hooks.hot_path_max_ids
    if max_ids == 0:
        return None
    group = f"{plan.source}:{plan.scope}"
    if running := run_in_flight(context.instance, plan.source, plan.scope):
        context.log.info(f"{group}: run {running} in flight; its events go to a run")
        return None
    started = time.time()
    try:
        runtime = _runtime(settings, registry)
        done = apply_hint(runtime, plan.source, plan.scope, plan.hint, max_ids)
        applied = Applied(done, started, time.time() - started)
        events: list[AssetEvent] = [
            *materializations(plan.source, plan.scope, applied, runtime, plan)
        ]
        events += check_evaluations(plan.source, plan.scope, runtime)
    except NotHot as exc:
        context.log.info(f"{group}: not for the hot path ({exc}); a run")
        return None
    except Exception as exc:  # whatever went wrong, the run does it the ordinary way
        context.log.warning(
            f"{group}: the hot path failed ({type(exc).__name__}: {exc}); a run covers its events"
        )
        return None
    context.log.info(
        f"{group}: {plan.events} events applied in the sensor in "
        f"{applied.seconds:.1f} s ({done.embedded} chunks embedded)"
    )
    return events
