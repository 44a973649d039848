"""Schedule ticks and sensor evaluations, as the daemon would run them."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from pathlib import Path
from zoneinfo import ZoneInfo

from dagster import AssetKey, build_schedule_context, build_sensor_context, instance_for_test
from dagster._core.definitions.sensor_definition import SensorType
from dagster._core.test_utils import in_process_test_workspace
from dagster._core.types.loadable_target_origin import LoadableTargetOrigin
from dagster._utils.schedules import cron_string_iterator

from assets.definitions import build_definitions
from assets.partitions import SCOPES
from assets.schedules import TIMEZONE, WEEKLY_CRON
from knowledge_platform.settings import Settings
from tests.conftest import write_registry

NY = ZoneInfo(TIMEZONE)
REPO = Path(__file__).resolve().parents[2]
AUTOMATION_SENSORS = (SensorType.AUTOMATION, SensorType.AUTO_MATERIALIZE)


def _tick(definition, ctx, instance):
    """Evaluate a tick the way the daemon does, then close the context: a sensor context
    built from an instance ref opens its own instance, which must not outlive the test."""
    del instance  # the context carries it
    with ctx:
        return definition.evaluate_tick(ctx)


def test_weekly_ticks_fall_on_sunday_0200_new_york_across_dst():
    start = dt.datetime(2026, 10, 20, tzinfo=NY).timestamp()  # DST ends 2026-11-01
    ticks = cron_string_iterator(start, WEEKLY_CRON, TIMEZONE)
    seen = [next(ticks) for _ in range(4)]
    assert [t.strftime("%a %H:%M") for t in seen] == ["Sun 02:00"] * 4
    offsets = {t.utcoffset() for t in seen}
    assert offsets == {dt.timedelta(hours=-4), dt.timedelta(hours=-5)}  # EDT then EST


def test_weekly_schedule_requests_every_configured_source_and_scope(
    kp_env, registry_data, tmp_path
):
    other = tmp_path / "acme-ws"
    other.mkdir()
    registry_data["clients"]["acme"]["sources"] = {"memory_files": {"path": str(other)}}
    write_registry(kp_env.config, registry_data)
    defs = build_definitions(Settings())
    schedule = defs.resolve_schedule_def("weekly_reindex_schedule")
    when = dt.datetime(2026, 12, 6, 2, 0, tzinfo=NY)
    with instance_for_test() as instance:
        instance.add_dynamic_partitions(SCOPES, ["internal", "acme"])
        ctx = build_schedule_context(
            instance=instance,
            scheduled_execution_time=when,
            resources=defs.resources,
            repository_def=defs.get_repository_def(),
        )
        requests = list(_tick(schedule, ctx, instance).run_requests or [])
    assert sorted(r.partition_key for r in requests) == ["acme", "internal"]
    assert all(r.tags["kp/full_pull"] == "true" for r in requests)
    assert len({r.run_key for r in requests}) == 2
    assert schedule.default_status.value == "RUNNING"


def test_registry_sensor_adds_partitions_and_backfills_new_clients(kp_env, registry_data, tmp_path):
    defs = build_definitions(Settings())
    sensor = defs.resolve_sensor_def("registry_sensor")
    with instance_for_test() as instance:
        first = _tick(
            sensor,
            instance=instance,
            ctx=build_sensor_context(
                instance_ref=instance.get_ref(),
                resources=defs.resources,
                repository_def=defs.get_repository_def(),
            ),
        )
        added = first.dynamic_partitions_requests[0].partition_keys
        assert sorted(added) == ["acme", "internal"]
        assert [(r.partition_key, r.asset_selection[0].path[0]) for r in first.run_requests] == [
            ("internal", "memory_files")
        ]
        instance.add_dynamic_partitions(SCOPES, list(added))

        # Nothing changed: no new partitions, no runs, the cursor is stable.
        again = _tick(
            sensor,
            instance=instance,
            ctx=build_sensor_context(
                instance_ref=instance.get_ref(),
                cursor=first.cursor,
                resources=defs.resources,
                repository_def=defs.get_repository_def(),
            ),
        )
        assert again.run_requests == [] and not again.dynamic_partitions_requests

        # A new client with a source: its partition and a backfill of that source.
        ws = tmp_path / "newco-ws"
        ws.mkdir()
        registry_data["clients"]["newco"] = {
            "director": "jonas",
            "sources": {"memory_files": {"path": str(ws)}},
        }
        write_registry(kp_env.config, registry_data)
        third = _tick(
            sensor,
            instance=instance,
            ctx=build_sensor_context(
                instance_ref=instance.get_ref(),
                cursor=again.cursor,
                resources=defs.resources,
                repository_def=defs.get_repository_def(),
            ),
        )
        assert third.dynamic_partitions_requests[0].partition_keys == ["newco"]
        assert [r.partition_key for r in third.run_requests] == ["newco"]
        assert third.run_requests[0].tags["kp/full_pull"] == "true"
        assert "memory_files:newco" in json.loads(third.cursor)


def test_memory_changes_sensor_requests_only_changed_scopes(
    kp_env, registry_data, workspace, tmp_path, run_assets
):
    other = tmp_path / "acme-ws"
    other.mkdir()
    (other / "a.md").write_text("# A\n\nacme notes\n")
    registry_data["clients"]["acme"]["sources"] = {"memory_files": {"path": str(other)}}
    write_registry(kp_env.config, registry_data)
    defs = build_definitions(Settings())
    sensor = defs.resolve_sensor_def("memory_files_changes_sensor")
    assert sensor.minimum_interval_seconds == 30
    with instance_for_test() as instance:
        instance.add_dynamic_partitions(SCOPES, ["internal", "acme"])

        def tick(cursor):
            return _tick(
                sensor,
                instance=instance,
                ctx=build_sensor_context(
                    instance_ref=instance.get_ref(),
                    cursor=cursor,
                    resources=defs.resources,
                    repository_def=defs.get_repository_def(),
                ),
            )

        assert tick(None).run_requests == []  # never indexed: the registry sensor's job
        run_assets("memory_files", "internal")
        run_assets("memory_files", "acme")
        first = tick(None)
        assert first.run_requests == []  # indexed and unchanged since
        assert tick(first.cursor).run_requests == []
        note = other / "a.md"
        note.write_text("# A\n\nacme notes, edited\n")
        os.utime(note, (time.time() + 5, time.time() + 5))
        changed = tick(first.cursor)
        assert [r.partition_key for r in changed.run_requests] == ["acme"]
        assert json.loads(changed.cursor)["internal"] == json.loads(first.cursor)["internal"]


def test_the_automation_sensor_runs_by_default_for_every_automated_asset(kp_env):
    """The code location loaded as the webserver and daemon load it: the one automation
    condition sensor is `default_automation_condition_sensor`, RUNNING on a fresh instance with
    no stored state, and targets each source's downstream assets (eager conditions)."""
    origin = LoadableTargetOrigin(
        module_name="assets.definitions", attribute="defs", working_directory=str(REPO)
    )
    with instance_for_test() as instance, in_process_test_workspace(instance, origin) as ws:
        (entry,) = ws.get_code_location_entries().values()
        repo = entry.code_location.get_repositories()["__repository__"]
        automation = [s for s in repo.get_sensors() if s.sensor_type in AUTOMATION_SENSORS]
        assert [s.name for s in automation] == ["default_automation_condition_sensor"]
        sensor = automation[0]
        stored = instance.get_instigator_state(sensor.get_remote_origin_id(), sensor.selector_id)
        assert stored is None  # nobody toggled it
        assert sensor.get_current_instigator_state(stored).is_running
        targeted = sensor.asset_selection.resolve(repo.asset_graph)
    assert AssetKey(["memory_files", "collection"]) in targeted
