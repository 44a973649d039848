"""`hooks_sensor`: drains the webhook queue (knowledge_platform.hooks) every few seconds into
runs of exactly the source x scope the events concern — every event drained in one tick is
one run per source x scope, keyed by the queue ids it covers, so a restarted daemon asks for
the same run again rather than a second one. The ids the events named ride along as the
`kp/hint` tag (a ClickUp task edited or deleted is read by id, without a listing). A few
such ids for an indexed source x scope with no run in flight are applied in the tick itself
instead, and recorded as its materializations (assets/hot_path.py). The schedules keep
polling: a lost webhook is caught by the next ordinary run."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from dagster import (
    DagsterRunStatus,
    DefaultSensorStatus,
    RunRequest,
    RunsFilter,
    SensorDefinition,
    SensorEvaluationContext,
    SensorResult,
    SkipReason,
    sensor,
)

from assets.factory import HINT_TAG
from assets.hot_path import AssetEvent, try_hot
from assets.jobs import reindex_job
from knowledge_platform import run_tags
from knowledge_platform.config.registry import Registry
from knowledge_platform.connectors.catalog import push_specs
from knowledge_platform.connectors.webhooks.events import encode_hint
from knowledge_platform.dagster_names import reindex_job_name, scopes_partitions_name
from knowledge_platform.errors import KnowledgePlatformError
from knowledge_platform.hooks.coalesce import last_covered, plan_runs
from knowledge_platform.hooks.queue import open_queue
from resources.platform import RegistryResource

#: Sources with a webhook endpoint.
PUSH_SOURCES = tuple(push_specs())
TRIGGER_TAG = run_tags.TRIGGER
#: `<source>:<scope>` of a run the hooks sensor requested.
GROUP_TAG = run_tags.HOOK_GROUP
WAITING = [DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING]
#: Dagster's tag holding a run's run key.
RUN_KEY_TAG = "dagster/run_key"


#: The newest runs of a source x scope looked at (a retry of an older run, which keeps its
#: run key, may be newer than the run that covers the latest events).
_RECENT = 20


@dataclass(frozen=True)
class _Latest:
    """The newest runs this sensor requested for a source x scope."""

    #: The last queue id one covers (0: no run): rows up to it are never requested again,
    #: even when the daemon died before it saved the cursor that says so.
    covered: int = 0
    #: One has not started yet: new events wait for it to start and then share one run,
    #: instead of one queued run per tick.
    waiting: bool = False


def _latest(context: SensorEvaluationContext, group: str) -> _Latest:
    runs = context.instance.get_runs(
        filters=RunsFilter(tags={TRIGGER_TAG: "hooks_sensor", GROUP_TAG: group}), limit=_RECENT
    )
    return _Latest(
        max((last_covered(r.tags.get(RUN_KEY_TAG)) for r in runs), default=0),
        any(r.status in WAITING for r in runs),
    )


def build_hooks_sensor(registry: Registry) -> SensorDefinition:
    interval = registry.service.hooks.sensor_seconds
    #: The push sources this code location defines jobs for.
    known = [s for s in registry.sources if s in PUSH_SOURCES]

    @sensor(
        name="hooks_sensor",
        jobs=[reindex_job(source) for source in known],
        minimum_interval_seconds=interval,
        default_status=DefaultSensorStatus.RUNNING,
        description="Turns queued webhook events into one run per source x scope they "
        "concern (coalesced; the ids they named as a hint).",
    )
    def hooks_sensor(context: SensorEvaluationContext, registry: RegistryResource):
        """Cursor: `low` (every row at or below it is drained) and `done` (per source x
        scope, the last id a run was requested for). Rows a run already covers are skipped
        whatever the cursor says (the daemon may die between launching runs and saving it).
        A group whose last run has not started is held; the others are drained."""
        reg = registry.load_fresh()
        queue = open_queue(registry.settings().home_dir)
        cursor = json.loads(context.cursor) if context.cursor else {}
        low, done = int(cursor.get("low", 0)), dict(cursor.get("done", {}))
        queue.prune(low, time.time() - reg.service.hooks.keep_days * 86400)
        rows = queue.pending(low)
        if not rows:
            return SkipReason("no webhook events queued")
        partitions = {
            source: set(context.instance.get_dynamic_partitions(scopes_partitions_name(source)))
            for source in {r.source for r in rows}
        }
        latest = {g: _latest(context, g) for g in {r.group for r in rows}}
        fresh = [r for r in rows if r.id > max(done.get(r.group, low), latest[r.group].covered)]
        requests: list[RunRequest] = []
        applied: list[AssetEvent] = []
        held: list[int] = []
        for plan in plan_runs(fresh):
            group = f"{plan.source}:{plan.scope}"
            configured = plan.source in known and plan.scope in reg.scopes_for(plan.source)
            indexed = configured and plan.scope in partitions[plan.source]
            if indexed and latest[group].waiting:
                held.append(plan.first_id)
                continue
            done[group] = plan.last_id
            if not indexed:
                context.log.info(
                    f"{plan.events} events for {group}: not a configured, "
                    "indexed source x scope; dropped"
                )
                continue
            if (events := try_hot(context, registry.settings(), reg, plan)) is not None:
                applied += events
                continue
            tags = {
                TRIGGER_TAG: "hooks_sensor",
                GROUP_TAG: group,
                run_tags.HOOK_EVENTS: str(plan.events),
            }
            if (hint := encode_hint(plan.hint)) is not None:
                tags[HINT_TAG] = hint
            requests.append(
                RunRequest(
                    run_key=plan.run_key,
                    job_name=reindex_job_name(plan.source),
                    partition_key=plan.scope,
                    tags=tags,
                )
            )
        low = min(held) - 1 if held else rows[-1].id
        done = {g: last for g, last in done.items() if last > low}
        return SensorResult(
            run_requests=requests,
            asset_events=applied,
            cursor=json.dumps({"low": low, "done": done}, sort_keys=True),
        )

    return hooks_sensor


def build_renewal_sensor() -> SensorDefinition:
    """`hooks_renewal_sensor`: hourly, renews the Drive channels `kp hooks register` made that
    have less than a day left (a channel lives at most a week)."""

    @sensor(
        name="hooks_renewal_sensor",
        minimum_interval_seconds=3600,
        default_status=DefaultSensorStatus.RUNNING,
        description="Renews Google Drive push channels a day before they expire.",
    )
    def hooks_renewal_sensor(context: SensorEvaluationContext, registry: RegistryResource):
        from knowledge_platform.hooks.register import register  # the source API clients

        reg = registry.load_fresh()
        if reg.service.public_url is None:
            return SkipReason("service.public_url is not set: no webhooks")
        try:
            outcomes = register(
                reg, registry.settings().home_dir, source="google_drive", renew_only=True
            )
        except KnowledgePlatformError as exc:
            context.log.warning(f"renewing Drive channels failed, will retry: {exc}")
            return SkipReason(str(exc))
        for outcome in outcomes:
            context.log.info(outcome.message)
        renewed = sum(o.action == "renewed" for o in outcomes)
        return SkipReason(f"{renewed} Drive channels renewed")

    return hooks_renewal_sensor
