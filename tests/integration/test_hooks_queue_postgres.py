"""The webhook queue in the Dagster instance's Postgres (chosen when the DAGSTER_PG_*
variables deploy/dagster.prod.yaml reads are set): one table shared by the MCP service and the
daemon — what one writes the other reads, a replay is refused across them, drained rows are
pruned — on a real PostgreSQL server (the production test's throwaway one)."""

from __future__ import annotations

import time

import pytest

from knowledge_platform.connectors.webhooks.events import HookEvent, Rejected
from knowledge_platform.hooks.queue import HookQueue, queue_url
from tests.integration.test_production import Postgres, postgres  # noqa: F401 (fixture)

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_the_queue_lives_in_the_dagster_postgres_when_the_instance_does(
    postgres: Postgres,  # noqa: F811 (the fixture)
    tmp_path,
) -> None:
    url = queue_url(tmp_path, postgres.env())
    assert url.drivername == "postgresql+psycopg2"
    assert queue_url(tmp_path, {}).drivername == "sqlite"  # the embedded default
    service, daemon = HookQueue(url), HookQueue(url)  # two processes' engines
    try:
        service.put(
            [HookEvent("clickup:e1@internal", "clickup", "internal", ("t1",))],
            received_at=time.time() - 10,
        )
        with pytest.raises(Rejected) as replay:
            daemon.put([HookEvent("clickup:e1@internal", "clickup", "internal")])
        assert replay.value.status == 409
        (row,) = daemon.pending(0)
        assert (row.source, row.scope, row.hint) == (
            "clickup",
            "internal",
            '{"ids": ["t1"], "deleted": []}',
        )
        service.record_reject("git_docs", Rejected(401, "bad signature", code="signature"))
        service.record_reject("git_docs", Rejected(401, "bad signature", code="signature"))
        assert [(r["code"], r["count"]) for r in daemon.rejects()] == [("signature", 2)]
        assert daemon.prune(row.id, time.time()) == 1 and service.count() == 0
        assert postgres.query("SELECT count(*) FROM kp_hook_events") == [(0,)]
    finally:
        service.close()
        daemon.close()
