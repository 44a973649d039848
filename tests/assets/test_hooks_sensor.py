"""hooks_sensor, evaluated as the daemon does against a real instance: a burst of events for
one task is one run, keyed by the queue ids it drains (the same run again after a restart,
none once the cursor moved), with the task as its hint; events for a source x scope that is
not configured or not a partition yet start nothing."""

from __future__ import annotations

import json
import time

from dagster import (
    DagsterRunStatus,
    DefaultSensorStatus,
    build_sensor_context,
    instance_for_test,
)
from dagster._core.test_utils import create_run_for_test

from assets.definitions import build_definitions
from assets.factory import HINT_TAG
from assets.partitions import ensure_scopes
from knowledge_platform.connectors.webhooks.events import HookEvent
from knowledge_platform.hooks.queue import open_queue
from knowledge_platform.settings import Settings
from tests.conftest import write_registry


def test_a_burst_of_a_thousand_events_for_one_task_is_one_run(kp_env, registry_data):
    registry_data["internal"]["sources"]["clickup"] = {"team_id": "9001", "space_ids": ["s1"]}
    registry_data["clients"]["acme"]["sources"]["clickup"] = {
        "team_id": "9001",
        "space_ids": ["s-acme"],
    }
    write_registry(kp_env.config, registry_data)
    settings = Settings()
    defs = build_definitions(settings)
    sensor = defs.resolve_sensor_def("hooks_sensor")
    assert sensor.minimum_interval_seconds == 1  # every look of the sensor daemon (5 s)
    assert sensor.default_status == DefaultSensorStatus.RUNNING
    queue = open_queue(settings.home_dir)
    burst = [
        HookEvent(f"clickup:taskUpdated:t1:{i}@internal", "clickup", "internal", ("t1",))
        for i in range(1000)
    ]
    queue.put(burst, received_at=time.time() - 5)
    queue.put(
        [HookEvent("clickup:taskDeleted:t9:x@internal", "clickup", "internal", ("t9",), ("t9",))],
        received_at=time.time() - 5,
    )
    queue.put(
        [HookEvent("clickup:taskUpdated:t2:x@acme", "clickup", "acme", ("t2",))],
        received_at=time.time() - 5,
    )  # acme is not a partition yet

    with instance_for_test() as instance:
        ensure_scopes(instance, "clickup", ["internal"])

        def tick(cursor: str | None):
            ctx = build_sensor_context(
                instance_ref=instance.get_ref(),
                cursor=cursor,
                resources=defs.resources,
                repository_def=defs.get_repository_def(),
            )
            with ctx:
                return sensor.evaluate_tick(ctx)

        first = tick(None)
        (run,) = first.run_requests
        assert run.run_key == "hooks:clickup:internal:1-1001"
        assert run.partition_key == "internal" and run.job_name == "clickup_reindex_job"
        assert json.loads(run.tags[HINT_TAG]) == {"ids": ["t1", "t9"], "deleted": ["t9"]}
        assert run.tags["kp/hook_events"] == "1001"
        restarted = tick(None)  # the daemon died before it stored the cursor
        assert [r.run_key for r in restarted.run_requests] == [run.run_key]
        assert tick(first.cursor).run_requests == []

        # While that run waits to start, new events for its scope wait too, then share a run.
        waiting = create_run_for_test(
            instance,
            job_name="clickup_reindex_job",
            tags=run.tags,
            status=DagsterRunStatus.NOT_STARTED,
        )
        for i, task in enumerate(["t3", "t4"]):
            queue.put(
                [HookEvent(f"clickup:taskCreated:{task}:{i}@internal", "clickup", "internal")],
                received_at=time.time() - 5,
            )
            held = tick(first.cursor)
            assert held.run_requests == [] and held.cursor == first.cursor
        instance.delete_run(waiting.run_id)  # started (and gone from the queue)
        (both,) = tick(first.cursor).run_requests
        assert both.run_key == "hooks:clickup:internal:1003-1004"
        assert HINT_TAG not in both.tags  # a creation names nothing usable: a listing
