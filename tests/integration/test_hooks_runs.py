"""From a ClickUp edit or delete to search, the push way: the fake delivers the signed event
to the MCP service's /hooks/clickup, hooks_sensor turns it into a run (evaluated against a
real instance), and the run reads the named task by id — no listing — so an edit is indexed
and a deleted task leaves search."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from dagster import build_sensor_context, instance_for_test
from typer.testing import CliRunner

from assets.definitions import build_definitions
from knowledge_platform.runtime import Runtime
from kp.app import app
from tests.assets.conftest import Materializer
from tests.fakes.clickup_server import ClickUpFake
from tests.integration.clickup_workspace import workspace
from tests.integration.hooks_service import clickup_registry, hook_service

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture
def clickup(monkeypatch: pytest.MonkeyPatch) -> Iterator[ClickUpFake]:
    yield from workspace(monkeypatch)


def _runs_only(registry: dict[str, Any]) -> dict[str, Any]:
    """The sensor's hot path off: every event goes to a run (test_hooks_hot_path.py covers
    the hot path)."""
    registry["service"]["hooks"]["hot_path_max_ids"] = 0
    return registry


def found(settings, query: str) -> set[str]:
    runtime = Runtime(settings)
    try:
        return {h.chunk.source_id for h in runtime.retriever.search("internal", query, limit=10)}
    finally:
        runtime.close()


def test_an_edit_and_a_delete_reach_search_through_webhooks_without_a_listing(
    clickup: ClickUpFake, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with (
        hook_service(tmp_path, _runs_only(clickup_registry(clickup)), monkeypatch) as svc,
        instance_for_test() as instance,
    ):
        settings = svc.settings
        run = Materializer(settings)
        run.instance = instance
        run("clickup")
        assert "plain" in found(settings, "Plan launch")
        output = CliRunner().invoke(app, ["hooks", "register"]).output
        monkeypatch.setenv("KP_TEST_CLICKUP_HOOK", output.split("(shown once): ")[1].split()[0])
        defs = build_definitions(settings)
        sensor = defs.resolve_sensor_def("hooks_sensor")

        def hooked_run(cursor: str | None):
            clickup.wait_deliveries()
            svc.queue.engine.dispose()  # nothing cached between the service and the sensor
            ctx = build_sensor_context(
                instance_ref=instance.get_ref(),
                cursor=cursor,
                resources=defs.resources,
                repository_def=defs.get_repository_def(),
            )
            with ctx:
                tick = sensor.evaluate_tick(ctx)
            (request,) = tick.run_requests
            clickup.clear_log()
            run("clickup", tags=request.tags)
            return tick.cursor, request

        clickup.update_task(
            "dec",
            name="Adopt Qdrant Edge everywhere",
            description="Every deployment uses the zebra-striped engine.",
        )
        cursor, request = hooked_run(None)
        assert request.tags["kp/hint"] == '{"ids": ["dec"], "deleted": []}'
        assert "dec" in found(settings, "zebra-striped engine")
        assert not clickup.requests("/list/")  # read by id, no listing

        clickup.delete_task("plain")
        _, request = hooked_run(cursor)
        assert [r.status for r in clickup.requests("/api/v2/task/plain")] == [404]
        assert not clickup.requests("/list/")
        assert "plain" not in found(settings, "Plan launch")
        assert "dec" in found(settings, "zebra-striped engine")
