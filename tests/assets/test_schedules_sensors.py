"""Schedule ticks and sensor evaluations, as the daemon would run them."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from pathlib import Path
from zoneinfo import ZoneInfo

from dagster import (
    AddDynamicPartitionsRequest,
    AssetKey,
    build_schedule_context,
    build_sensor_context,
    instance_for_test,
)
from dagster._core.definitions.sensor_definition import SensorType
from dagster._core.test_utils import in_process_test_workspace
from dagster._core.types.loadable_target_origin import LoadableTargetOrigin
from dagster._utils.schedules import cron_string_iterator

from assets.definitions import build_definitions
from assets.partitions import ensure_scopes
from assets.schedules import TIMEZONE, WEEKLY_CRON
from knowledge_platform.ingest.snapshots import SnapshotStore
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
    schedule = defs.resolve_schedule_def("memory_files_weekly_reindex_schedule")
    assert schedule.job_name == "memory_files_reindex_job"
    when = dt.datetime(2026, 12, 6, 2, 0, tzinfo=NY)
    with instance_for_test() as instance:
        ensure_scopes(instance, "memory_files", ["internal", "acme"])
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


def _sensor_tick(defs, sensor, instance, cursor):
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


def _apply(instance, result) -> None:
    """The tick's partition requests applied as the sensor daemon applies them."""
    for request in result.dynamic_partitions_requests or []:
        if isinstance(request, AddDynamicPartitionsRequest):
            instance.add_dynamic_partitions(request.partitions_def_name, request.partition_keys)
        else:
            for key in request.partition_keys:
                instance.delete_dynamic_partition(request.partitions_def_name, key)


def _partitions(instance, sources=("memory_files", "git_docs")) -> dict[str, list[str]]:
    return {s: sorted(instance.get_dynamic_partitions(f"{s}_scopes")) for s in sources}


def test_registry_sensor_keeps_each_source_s_partitions_equal_to_the_registry(
    kp_env, registry_data, tmp_path
):
    """Each source's partitions are the scopes configuring it — never a scope without it — as
    clients come (with one source of two) and go; a newly configured pair is backfilled."""
    repo = tmp_path / "docs-repo"
    repo.mkdir()
    registry_data["internal"]["sources"]["git_docs"] = {"repo": str(repo)}
    write_registry(kp_env.config, registry_data)
    defs = build_definitions(Settings())
    sensor = defs.resolve_sensor_def("registry_sensor")
    with instance_for_test() as instance:
        instance.add_dynamic_partitions("scopes", ["internal", "acme"])  # the old shared set

        def tick(cursor):
            result = _sensor_tick(defs, sensor, instance, cursor)
            _apply(instance, result)
            return result

        first = tick(None)
        # acme configures no source: it is a partition of none.
        assert _partitions(instance) == {"memory_files": ["internal"], "git_docs": ["internal"]}
        assert sorted((r.job_name, r.partition_key) for r in first.run_requests) == [
            ("git_docs_reindex_job", "internal"),
            ("memory_files_reindex_job", "internal"),
        ]
        assert all(r.tags["kp/full_pull"] == "true" for r in first.run_requests)
        again = tick(first.cursor)  # nothing changed: no runs, no partition requests
        assert again.run_requests == [] and not again.dynamic_partitions_requests
        assert again.cursor == first.cursor

        # A new client with one of the two sources: a partition of that source only.
        ws = tmp_path / "newco-ws"
        ws.mkdir()
        registry_data["clients"]["newco"] = {
            "director": "jonas",
            "sources": {"memory_files": {"path": str(ws)}},
        }
        write_registry(kp_env.config, registry_data)
        added = tick(again.cursor)
        assert _partitions(instance) == {
            "memory_files": ["internal", "newco"],
            "git_docs": ["internal"],
        }
        assert [(r.job_name, r.partition_key) for r in added.run_requests] == [
            ("memory_files_reindex_job", "newco")
        ]
        assert added.run_requests[0].tags["kp/full_pull"] == "true"

        # Removed: its partition goes; onboarded again: a new backfill (a new run key).
        del registry_data["clients"]["newco"]
        write_registry(kp_env.config, registry_data)
        removed = tick(added.cursor)
        assert removed.run_requests == []
        assert _partitions(instance)["memory_files"] == ["internal"]
        registry_data["clients"]["newco"] = {
            "director": "jonas",
            "sources": {"memory_files": {"path": str(ws)}},
        }
        write_registry(kp_env.config, registry_data)
        back = tick(removed.cursor)
        assert _partitions(instance)["memory_files"] == ["internal", "newco"]
        (rerun,) = back.run_requests
        assert rerun.partition_key == "newco"
        assert rerun.run_key != added.run_requests[0].run_key
        # A tick the daemon repeats (it died before saving the cursor) asks for the same run.
        assert [r.run_key for r in tick(removed.cursor).run_requests] == [rerun.run_key]
        # The old shared set was left as it was (nothing reads it).
        assert sorted(instance.get_dynamic_partitions("scopes")) == ["acme", "internal"]


def test_an_instance_from_before_gets_each_source_s_set_on_the_first_tick_and_no_runs(
    kp_env, registry_data
):
    """An instance with the one shared `scopes` set and the sensor's old cursor (the pairs it
    backfilled, a list): the first tick fills the per-source sets and starts nothing."""
    defs = build_definitions(Settings())
    sensor = defs.resolve_sensor_def("registry_sensor")
    with instance_for_test() as instance:
        instance.add_dynamic_partitions("scopes", ["internal", "acme"])
        result = _sensor_tick(defs, sensor, instance, json.dumps(["memory_files:internal"]))
        _apply(instance, result)
        assert result.run_requests == []
        assert _partitions(instance, ("memory_files",)) == {"memory_files": ["internal"]}


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
        ensure_scopes(instance, "memory_files", ["internal", "acme"])

        def tick(cursor):
            return _sensor_tick(defs, sensor, instance, cursor)

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


def test_a_changes_sensor_reads_the_indexed_cursor_through_its_model(kp_env, run_assets):
    """The token the index was built from comes from the typed cursor: a stored cursor of
    another layout (one the model no longer reads, so the next pull is a full one) is not
    taken at its word even when a key matches the probe; one run rewrites it."""
    defs = build_definitions(Settings())
    sensor = defs.resolve_sensor_def("memory_files_changes_sensor")
    with instance_for_test() as instance:
        ensure_scopes(instance, "memory_files", ["internal"])
        run_assets("memory_files", "internal")
        assert _sensor_tick(defs, sensor, instance, None).run_requests == []
        snapshots = SnapshotStore(kp_env.data_dir)
        stored = snapshots.read_cursor("memory_files", "internal") or {}
        snapshots.write_cursor("memory_files", "internal", {**stored, "layout": 0})
        again = _sensor_tick(defs, sensor, instance, None)
        assert [r.partition_key for r in again.run_requests] == ["internal"]


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
