"""Runs waiting for a Dagster pool slot longer than their source's deadline, and the runs
holding that pool's slots, from the `instance.concurrencyLimits` part of the status answer."""

from __future__ import annotations

import datetime as dt
from typing import Any

from knowledge_platform.config.registry import Registry
from knowledge_platform.connectors.catalog import spec
from mcp_service.dagster_models import BlockedStep


def deadline_seconds(registry: Registry, source: str) -> float:
    """How long a change may take to be picked up: the source's change probe, else its
    incremental schedule, else its freshness warning (docs/sync-contract.md, "Deadlines")."""
    src = spec(source)
    if src.probe_seconds:
        return float(src.probe_seconds)
    if minutes := registry.poll_minutes_for(source):
        return minutes * 60.0
    return src.freshness.warn_after.total_seconds()


def waiting_steps(data: dict[str, Any]) -> dict[str, list[BlockedStep]]:
    """run id -> its steps waiting for a pool slot, with the runs holding that pool."""
    out: dict[str, list[BlockedStep]] = {}
    pools = ((data.get("instance") or {}).get("concurrencyLimits")) or []
    for pool in pools:
        holders = sorted({s["runId"] for s in pool.get("claimedSlots") or []})
        for step in pool.get("pendingSteps") or []:
            if step.get("assignedTimestamp") is not None:
                continue  # it has its slot
            run_id = step["runId"]
            out.setdefault(run_id, []).append(
                BlockedStep(
                    run_id=run_id,
                    step=step["stepKey"],
                    pool=pool["concurrencyKey"],
                    since=dt.datetime.fromtimestamp(float(step["enqueuedTimestamp"]), tz=dt.UTC),
                    held_by=[h for h in holders if h != run_id],
                )
            )
    return out


def blocked(
    steps: list[BlockedStep], deadline: float | None, now: dt.datetime
) -> list[BlockedStep]:
    """The steps waiting longer than `deadline` seconds (None: no deadline known)."""
    if deadline is None:
        return []
    return [s for s in steps if (now - s.since).total_seconds() > deadline]


def describe(step: BlockedStep, now: dt.datetime) -> str:
    minutes = (now - step.since).total_seconds() / 60
    held = (
        f"held by run {', '.join(h[:8] for h in step.held_by)}"
        if step.held_by
        else "no run holds it (a slot limit of 0?)"
    )
    return (
        f"run {step.run_id[:8]} blocked {minutes:.0f} min on pool {step.pool} ({step.step}), {held}"
    )
