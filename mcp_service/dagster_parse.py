"""Turn the KpIndexStatus GraphQL answer into per source x scope rows and a health line."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mcp_service.blocked import blocked, describe, waiting_steps
from mcp_service.dagster_models import (
    BlockedStep,
    IndexStatus,
    Pair,
    PartitionFreshness,
    RunInfo,
    SourceStatus,
)
from mcp_service.dagster_queries import check_name

_BAD_RUN = {"FAILURE", "CANCELED"}
_BAD_CHECK = {"FAILED", "EXECUTION_FAILED"}


def stale_pairs(pairs: Sequence[tuple[str, str]], source: str, existing: set[str]) -> list[str]:
    """Scopes paired with `source` that are not (yet) partitions."""
    return sorted({scope for s, scope in pairs if s == source and scope not in existing})


def _time(value: Any) -> dt.datetime | None:
    """Dagster sends epoch seconds (floats) for runs and epoch millis (strings) for events."""
    if value in (None, ""):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if number > 1e11:
        number /= 1000.0
    return dt.datetime.fromtimestamp(number, tz=dt.UTC)


def _metadata(entries: Iterable[dict[str, Any]]) -> dict[str, int | float | str | bool]:
    out: dict[str, int | float | str | bool] = {}
    for entry in entries or []:
        for field in ("intValue", "floatValue", "boolValue", "text"):
            if entry.get(field) is not None:
                out[str(entry.get("label"))] = entry[field]
                break
    return out


def _partition_freshness(
    policy: dict[str, Any] | None, last: dt.datetime | None, now: dt.datetime
) -> PartitionFreshness:
    if last is None:
        return "never"
    if not policy or policy.get("__typename") != "TimeWindowFreshnessPolicy":
        return "unknown"
    age = (now - last).total_seconds()
    if age > float(policy.get("failWindowSeconds") or 0):
        return "stale"
    warn = policy.get("warnWindowSeconds")
    return "warn" if warn is not None and age > float(warn) else "fresh"


def _check_states(
    node: dict[str, Any], data: dict[str, Any], alias: str, source: str
) -> dict[str, dict[str, set[str]]]:
    """scope -> {"FAILED": names, "EXECUTION_FAILED": names}: from partitioned checks'
    `partitionStatuses`, and from the recent executions under `alias` (newest first; the
    run's `dagster/partition` tag names the scope when the execution has no partition)."""
    out: dict[str, dict[str, set[str]]] = {}

    def mark(scope: str, state: str, name: str) -> None:
        out.setdefault(scope, {"FAILED": set(), "EXECUTION_FAILED": set()})[state].add(name)

    checks = node.get("assetChecksOrError") or {}
    for check in checks.get("checks") or []:
        statuses = check.get("partitionStatuses") or {}
        for scope in statuses.get("failedPartitions") or []:
            mark(scope, "FAILED", check["name"])
        for scope in statuses.get("executionFailedPartitions") or []:
            mark(scope, "EXECUTION_FAILED", check["name"])
    decided: set[str] = set()
    for execution in data.get(alias) or []:
        tags = {t["key"]: t["value"] for t in (execution.get("run") or {}).get("tags") or []}
        scope = execution.get("partition") or tags.get("dagster/partition")
        if not scope or scope in decided:
            continue
        decided.add(scope)
        if execution.get("status") in _BAD_CHECK:
            mark(scope, execution["status"], check_name(source))
    return out


def runs_of(data: dict[str, Any], scopes: set[str]) -> list[RunInfo]:
    runs = data.get("runsOrError") or {}
    out = []
    for run in runs.get("results") or []:
        tags = {t["key"]: t["value"] for t in run.get("tags") or []}
        scope = tags.get("dagster/partition")
        if scope not in scopes:
            continue  # another scope's run is none of this caller's business
        heads = {a["path"][0] for a in run.get("assetSelection") or [] if a.get("path")}
        out.append(
            RunInfo(
                run_id=run["runId"],
                status=run["status"],
                scope=scope,
                source=heads.pop() if len(heads) == 1 else None,
                created=_time(run.get("creationTime")),
                started=_time(run.get("startTime")),
            )
        )
    return out


def indexing(runs: Sequence[RunInfo]) -> str | None:
    """'indexing since <time>, run <id>' for the earliest of a scope's in-flight runs."""
    if not runs:
        return None
    first = min(runs, key=lambda r: r.created or dt.datetime.max.replace(tzinfo=dt.UTC))
    more = f" (and {len(runs) - 1} more run(s))" if len(runs) > 1 else ""
    return _since(first.created, first.run_id) + more


def _since(moment: dt.datetime | None, run_id: str) -> str:
    when = moment.strftime("%Y-%m-%d %H:%M:%S UTC") if moment else "an unknown time"
    return f"indexing since {when}, run {run_id}"


def _row(
    node: dict[str, Any] | None,
    source: str,
    scope: str,
    index: int,
    points: int | None,
    runs: list[RunInfo],
    checks: dict[str, dict[str, set[str]]],
    waiting: dict[str, list[BlockedStep]],
    deadline: float | None,
    now: dt.datetime,
) -> SourceStatus:
    row = SourceStatus(source=source, scope=scope, points=points)
    mine = sorted(
        (r for r in runs if r.scope == scope and r.source in (source, None)),
        key=lambda r: r.created or now,
    )
    row.in_flight_runs = [r.run_id for r in mine]
    row.blocked = blocked(
        [s for rid in row.in_flight_runs for s in waiting.get(rid, [])], deadline, now
    )
    if node is None:
        row.freshness = "NOT_DEFINED"
        return row
    event = (node.get("latestMaterializationByPartition") or [None] * (index + 1))[index]
    if event:
        row.last_materialization = _time(event.get("timestamp"))
        row.run_id = event.get("runId") or None  # "" for a runless one (the hot path)
        row.metadata = _metadata(event.get("metadataEntries") or [])
        sha = row.metadata.get("sha")
        row.sha = sha if isinstance(sha, str) else None
    elif mine:
        row.indexing_since = mine[0].created
    versions = node.get("dataVersionByPartition") or []
    row.data_version = versions[index] if index < len(versions) else None
    latest = node.get(f"p{index}") or {}
    row.latest_run_id, row.latest_run_status = latest.get("runId"), latest.get("status")
    info = node.get("freshnessStatusInfo") or {}
    row.freshness = info.get("freshnessStatus") or "NOT_APPLICABLE"
    row.partition_freshness = _partition_freshness(
        node.get("internalFreshnessPolicy"), row.last_materialization, now
    )
    states = checks.get(scope) or {}
    row.failing_checks = sorted(states.get("FAILED", set()))
    row.errored_checks = sorted(states.get("EXECUTION_FAILED", set()))
    return row


def _problems(row: SourceStatus, now: dt.datetime) -> list[str]:
    where = f"{row.source}/{row.scope}"
    out = [f"{where}: {describe(b, now)}" for b in row.blocked]
    if row.freshness == "NOT_DEFINED":
        out.append(f"{where}: no such asset in Dagster")
    elif row.indexing_since is not None:
        out.append(f"{where}: {_since(row.indexing_since, row.in_flight_runs[0])}")
    elif row.last_materialization is None:
        pending = " (a run is in flight)" if row.in_flight_runs else ""
        out.append(f"{where}: never materialized{pending}")
    if row.failing_checks:
        out.append(f"{where}: check {', '.join(row.failing_checks)} failing")
    if row.errored_checks:
        out.append(f"{where}: check {', '.join(row.errored_checks)} could not run")
    if row.latest_run_status in _BAD_RUN:
        out.append(f"{where}: latest run {row.latest_run_status.lower()}")
    if row.partition_freshness == "stale" or row.freshness == "DEGRADED":
        out.append(f"{where}: stale")
    return out


def parse_status(
    data: dict[str, Any],
    pairs: Sequence[Pair],
    sources: Sequence[str],
    scopes: Sequence[str],
    points: Mapping[Pair, int | None],
    *,
    url: str,
    now: dt.datetime,
    deadlines: Mapping[str, float] | None = None,
) -> IndexStatus:
    """`deadlines`: seconds per source after which a run waiting for a pool slot is shown
    as blocked (none given: never)."""
    nodes = {n["assetKey"]["path"][0]: n for n in data.get("assetNodes") or []}
    runs = runs_of(data, set(scopes))
    checks = {
        source: _check_states(nodes[source], data, f"c{j}", source)
        for j, source in enumerate(sources)
        if source in nodes
    }
    waiting = waiting_steps(data)
    rows = [
        _row(
            nodes.get(source),
            source,
            scope,
            list(scopes).index(scope),
            points.get((source, scope)),
            runs,
            checks.get(source, {}),
            waiting,
            (deadlines or {}).get(source),
            now,
        )
        for source, scope in pairs
    ]
    problems = [p for row in rows for p in _problems(row, now)]
    flight = f"; {len(runs)} run(s) in flight" if runs else ""
    if problems:
        shown = "; ".join(problems[:6]) + (
            f"; and {len(problems) - 6} more" if len(problems) > 6 else ""
        )
        health = f"degraded: {shown}{flight}"
    else:
        health = f"ok: {len(rows)} source x scope partition(s) materialized, checks passing{flight}"
    warnings = []
    if (data.get("runsOrError") or {}).get("__typename") == "PythonError":
        warnings.append("Dagster could not list runs; in-flight runs unknown")
    return IndexStatus(
        status="degraded" if problems else "ok",
        health=health,
        dagster_url=url,
        checked_at=now,
        sources=rows,
        in_flight=runs,
        warnings=warnings,
    )
