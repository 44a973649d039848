"""Sensors: the registry (scopes become partitions; a new source x scope gets a backfill),
memory-file changes (a fingerprint per scope; only changed scopes run) and cheap change
probes of git docs and Drive."""

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from dagster import (
    DefaultSensorStatus,
    RunRequest,
    SensorDefinition,
    SensorEvaluationContext,
    SensorResult,
    sensor,
)

from assets.factory import FULL_PULL_TAG, asset_keys
from assets.jobs import reindex_job
from assets.partitions import scopes_partitions
from knowledge_platform.connectors.catalog import connector_class
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
        existing = set(context.instance.get_dynamic_partitions(scopes_partitions.name))
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
                tags={FULL_PULL_TAG: "true", "kp/trigger": "registry_sensor"},
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


def memory_fingerprint(path: Path, glob: str) -> str:
    digest = hashlib.sha256()
    for file in sorted(path.glob(glob)):
        if file.is_file():
            stat = file.stat()
            digest.update(f"{file.relative_to(path)}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def build_memory_files_sensor() -> SensorDefinition:
    @sensor(
        name="memory_files_sensor",
        job=reindex_job,
        minimum_interval_seconds=30,
        default_status=DefaultSensorStatus.RUNNING,
        description="Re-indexes a scope's memory files when any file is added, changed or "
        "removed (size + mtime fingerprint per scope in the cursor).",
    )
    def memory_files_sensor(context: SensorEvaluationContext, registry: RegistryResource):
        reg = registry.load_fresh()
        previous = json.loads(context.cursor) if context.cursor else {}
        current: dict[str, str] = {}
        requests: list[RunRequest] = []
        for scope in reg.scopes:
            if "memory_files" not in reg.sources_for(scope):
                continue
            settings = reg.source_settings("memory_files", scope)
            path, glob = Path(settings.path), settings.glob  # type: ignore[attr-defined]
            current[scope] = memory_fingerprint(path, glob) if path.is_dir() else "missing"
            if scope in previous and previous[scope] != current[scope]:
                requests.append(
                    RunRequest(
                        run_key=f"memory:{scope}:{current[scope][:16]}",
                        partition_key=scope,
                        asset_selection=asset_keys("memory_files"),
                        tags={"kp/trigger": "memory_files_sensor"},
                    )
                )
        return SensorResult(run_requests=requests, cursor=json.dumps(current))

    return memory_files_sensor


def build_source_changes_sensor(sources: Iterable[str]) -> SensorDefinition:
    probed = [s for s in sources if s in PROBED_SOURCES]

    @sensor(name="source_changes_sensor", job=reindex_job, minimum_interval_seconds=120,
            default_status=DefaultSensorStatus.RUNNING,
            description="Polls cheap change signals — a git docs branch's head sha, the Drive "
                        "change token — and re-indexes only the source x scope that moved.")
    def source_changes_sensor(context: SensorEvaluationContext, registry: RegistryResource,
                              snapshots: SnapshotResource):
        reg = registry.load_fresh()
        seen = json.loads(context.cursor) if context.cursor else {}
        current: dict[str, str] = {}
        requests: list[RunRequest] = []
        for scope in reg.scopes:
            for source in probed:
                if source not in reg.sources_for(scope):
                    continue
                pair = f"{source}:{scope}"
                indexed = snapshots.get().read_cursor(source, scope)
                if indexed is None:
                    continue  # never indexed: the registry sensor's backfill covers it
                try:
                    connector = connector_class(source)(reg.source_settings(source, scope), scope)
                    token = connector.probe(indexed)
                except KnowledgePlatformError as exc:
                    context.log.warning(f"{pair}: probe failed, will retry: {exc}")
                    if pair in seen:
                        current[pair] = seen[pair]
                    continue
                if token is None:
                    continue
                current[pair] = token
                if seen.get(pair, _indexed_token(source, indexed)) != token:
                    requests.append(RunRequest(
                        run_key=f"changes:{pair}:{token}", partition_key=scope,
                        asset_selection=asset_keys(source),
                        tags={"kp/trigger": "source_changes_sensor"}))
        return SensorResult(run_requests=requests, cursor=json.dumps(current))

    return source_changes_sensor


#: Sources with a cheap change probe, and where their indexed state keeps the same token.
PROBED_SOURCES = {"git_docs": "sha", "google_drive": "page_token"}


def _indexed_token(source: str, indexed: dict) -> str | None:
    return indexed.get(PROBED_SOURCES[source])
