"""The hooks sensor's hot path, evaluated as the daemon does against a real instance: a
webhook edit of an indexed ClickUp task is applied inside the tick (no run) and recorded in
Dagster as the four assets' materializations of the scope's partition, with data versions and
the collection checks, which get_index_status reads through Dagster's own GraphQL; with a run
of the partition in flight, another writer holding its snapshots, ids the source cannot read
by id, or when the hot path fails, the events go to an ordinary run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dagster import (
    AssetCheckEvaluation,
    AssetCheckKey,
    AssetKey,
    AssetMaterialization,
    DagsterInstance,
    DagsterRunStatus,
    build_sensor_context,
    instance_for_test,
)
from dagster._core.definitions.data_version import DATA_VERSION_TAG
from dagster._core.test_utils import create_run_for_test
from typer.testing import CliRunner

from assets.definitions import build_definitions
from assets.factory import HINT_TAG, asset_keys
from knowledge_platform.connectors.webhooks.events import HookEvent
from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.access import ADMIN_PRINCIPAL, grant_for
from knowledge_platform.serve.querylog import QueryLog
from knowledge_platform.settings import Settings
from kp.app import app
from mcp_service.dagster_client import DagsterClient
from mcp_service.service import KnowledgeService
from tests.assets.conftest import Materializer
from tests.fakes.clickup_server import ClickUpFake
from tests.integration.clickup_workspace import workspace
from tests.integration.dagster_web import dagster_webserver
from tests.integration.hooks_service import HookService, clickup_registry, hook_service
from tests.locks import held_elsewhere

pytestmark = [pytest.mark.integration, pytest.mark.slow]
COLLECTION = AssetKey(["clickup", "collection"])


@pytest.fixture
def clickup(monkeypatch: pytest.MonkeyPatch) -> Iterator[ClickUpFake]:
    yield from workspace(monkeypatch)


@pytest.fixture
def hooked(
    clickup: ClickUpFake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Hooked]:
    with (
        hook_service(tmp_path, clickup_registry(clickup), monkeypatch) as svc,
        instance_for_test() as instance,
    ):
        yield Hooked(svc, clickup, instance, monkeypatch)


def found(settings: Settings, query: str) -> set[str]:
    runtime = Runtime(settings)
    try:
        return {h.chunk.source_id for h in runtime.retriever.search("internal", query, limit=10)}
    finally:
        runtime.close()


class Hooked:
    """An indexed ClickUp scope with webhooks registered, and its hooks sensor's ticks."""

    def __init__(
        self,
        svc: HookService,
        clickup: ClickUpFake,
        instance: DagsterInstance,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        self.svc, self.clickup, self.instance = svc, clickup, instance
        self.run = Materializer(svc.settings)
        self.run.instance = instance
        self.run("clickup")
        output = CliRunner().invoke(app, ["hooks", "register"]).output
        monkeypatch.setenv("KP_TEST_CLICKUP_HOOK", output.split("(shown once): ")[1].split()[0])
        self.defs = build_definitions(svc.settings)
        self.sensor = self.defs.resolve_sensor_def("hooks_sensor")
        self.cursor: str | None = None

    def tick(self) -> Any:
        """One evaluation, its asset events stored as the daemon stores them."""
        self.clickup.wait_deliveries()
        self.svc.queue.engine.dispose()  # nothing cached between the service and the sensor
        self.clickup.clear_log()
        ctx = build_sensor_context(
            instance_ref=self.instance.get_ref(),
            cursor=self.cursor,
            resources=self.defs.resources,
            repository_def=self.defs.get_repository_def(),
        )
        with ctx:
            result = self.sensor.evaluate_tick(ctx)
        for event in result.asset_events:
            self.instance.report_runless_asset_event(event)
        self.cursor = result.cursor
        return result

    def latest(self, key: AssetKey) -> Any:
        (record,) = self.instance.fetch_materializations(key, limit=1).records
        return record


def test_a_small_webhook_edit_is_applied_in_the_sensor_and_recorded_in_dagster(
    hooked: Hooked,
) -> None:
    svc, clickup, instance = hooked.svc, hooked.clickup, hooked.instance
    before = {key: hooked.latest(key) for key in asset_keys("clickup")}
    clickup.update_task(
        "dec",
        name="Adopt Qdrant Edge everywhere",
        description="Every deployment uses the zebra-striped engine.",
    )
    tick = hooked.tick()

    assert tick.run_requests == []
    assert "dec" in found(svc.settings, "zebra-striped engine")
    assert clickup.requests("/task/dec") and not clickup.requests("/list/")  # by id
    for key in asset_keys("clickup"):
        record = hooked.latest(key)
        assert record.storage_id > before[key].storage_id
        assert record.partition_key == "internal" and record.run_id == ""
        assert record.asset_materialization.tags[DATA_VERSION_TAG]
    raw = hooked.latest(AssetKey(["clickup", "raw"])).asset_materialization
    assert (
        raw.tags[DATA_VERSION_TAG]
        != before[raw.asset_key].asset_materialization.tags[DATA_VERSION_TAG]
    )  # the task changed
    published = hooked.latest(COLLECTION).asset_materialization
    assert published.metadata["updated"].value >= 1
    defined = {
        key.name
        for key in hooked.defs.resolve_asset_graph().asset_check_keys
        if key.asset_key == COLLECTION
    }
    evaluated = {e.check_name for e in tick.asset_events if isinstance(e, AssetCheckEvaluation)}
    assert evaluated == defined
    check = instance.event_log_storage.get_asset_check_execution_history(
        AssetCheckKey(COLLECTION, "clickup_collection_matches_chunks"), limit=1
    )[0]
    assert check.partition == "internal" and check.status.value == "SUCCEEDED"
    assert {type(e) for e in tick.asset_events} == {AssetMaterialization, AssetCheckEvaluation}

    with dagster_webserver(instance) as url:
        runtime = Runtime(svc.settings)
        try:
            service = KnowledgeService(
                runtime, DagsterClient(url, timeout=60), QueryLog(svc.settings.query_log)
            )
            status = service.index_status(grant_for(runtime.registry, ADMIN_PRINCIPAL, admin=True))
        finally:
            runtime.close()
    (row,) = status.sources
    assert row.last_materialization is not None and row.run_id is None
    assert abs(row.last_materialization.timestamp() - hooked.latest(COLLECTION).timestamp) < 1
    assert row.data_version == published.tags[DATA_VERSION_TAG]
    assert row.failing_checks == [] and row.errored_checks == []
    assert not [line for line in status.health if "clickup/internal" in line]


def test_with_a_run_in_flight_a_busy_partition_or_a_failing_hot_path_the_events_go_to_a_run(
    hooked: Hooked,
) -> None:
    svc, clickup, instance = hooked.svc, hooked.clickup, hooked.instance
    indexed = hooked.latest(COLLECTION).storage_id

    running = create_run_for_test(
        instance,
        job_name="reindex_job",
        status=DagsterRunStatus.STARTED,
        tags={"dagster/partition": "internal"},
    )
    clickup.update_task("dec", description="Every deployment uses the zebra-striped engine.")
    tick = hooked.tick()
    (request,) = tick.run_requests
    assert tick.asset_events == [] and not clickup.requests("/task/dec")
    assert request.tags[HINT_TAG] == '{"ids": ["dec"], "deleted": []}'
    instance.delete_run(running.run_id)

    # A run's step (another process in production) holds the partition's snapshots.
    clickup.update_task("dec", description="Every deployment uses the cobalt engine.")
    with held_elsewhere(svc.settings.data_dir / "clickup" / "internal"):
        tick = hooked.tick()
    (request,) = tick.run_requests
    assert tick.asset_events == [] and not clickup.requests("/task/dec")

    # An id the source cannot read by id (a ClickUp doc): a run, no listing in the tick.
    svc.queue.put([HookEvent("clickup:docUpdated:d1@internal", "clickup", "internal", ("doc:d1",))])
    tick = hooked.tick()
    (request,) = tick.run_requests
    assert tick.asset_events == [] and clickup.log == []

    # The source refuses the token on the task read: nothing recorded, a run covers it.
    refused = {"err": "Token invalid", "ECODE": "OAUTH_025"}
    clickup.inject("/task/plain", 401, refused, times=None)
    clickup.update_task("plain", description="Plans mention the ultramarine kestrel.")
    tick = hooked.tick()
    (retry,) = tick.run_requests
    assert tick.asset_events == [] and clickup.requests("/task/plain")
    assert retry.run_key.startswith("hooks:clickup:internal:") and retry.tags[HINT_TAG] == (
        '{"ids": ["plain"], "deleted": []}'
    )
    assert hooked.latest(COLLECTION).storage_id == indexed  # nothing recorded
    clickup.uninject("/task/plain")
    hooked.run("clickup", tags=retry.tags)
    assert "plain" in found(svc.settings, "ultramarine kestrel")
