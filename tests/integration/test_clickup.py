"""ClickUpConnector against a local fake of the ClickUp API (v2 tasks, v3 Docs)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from knowledge_platform.connectors.clickup.connector import ClickUpConnector, ClickUpSettings
from knowledge_platform.errors import ConfigError, SourceError
from tests.fakes.clickup_server import ClickUpFake
from tests.fakes.http_fake import FakeClock

pytestmark = pytest.mark.integration

TOKEN = "pk_42_TESTTOKEN"
STAGE = {
    "id": "f-stage",
    "name": "Stage",
    "type": "drop_down",
    "value": 1,
    "type_config": {
        "options": [
            {"id": "o-a", "name": "Alpha", "orderindex": 0},
            {"id": "o-b", "name": "Beta", "orderindex": 1},
        ]
    },
}
TEAM = {
    "id": "f-team",
    "name": "Owner team",
    "type": "drop_down",
    "value": "o-growth",
    "type_config": {"options": [{"id": "o-growth", "name": "Growth", "orderindex": 3}]},
}
CHANNELS = {
    "id": "f-ch",
    "name": "Channels",
    "type": "labels",
    "value": ["l-email", "l-paid"],
    "type_config": {
        "options": [
            {"id": "l-email", "label": "Email"},
            {"id": "l-paid", "label": "Paid social"},
            {"id": "l-seo", "label": "SEO"},
        ]
    },
}
UNSET = {"id": "f-unset", "name": "Budget", "type": "currency", "type_config": {}}


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[ClickUpFake]:
    monkeypatch.setenv("CLICKUP_TOKEN", TOKEN)
    with ClickUpFake() as server:
        server.add_hierarchy("9001", "s1", "f1", "L1")
        server.add_hierarchy("9001", "s1", None, "L2")
        server.add_task(
            "L1",
            "Adopt Qdrant Edge",
            task_id="dec",
            status="approved",
            description="We chose Qdrant Edge for the embedded mode.\n\nWhy: speed.",
            tags=["Decision"],
            custom_fields=[STAGE, TEAM, CHANNELS, UNSET],
        )
        server.add_task("L1", "Ship the pilot", task_id="closed", closed=True)
        server.add_task("L1", "Plan launch", task_id="plain", description="## Goal\nLaunch.")
        server.add_task("L1", "Write copy", task_id="sub", parent="plain")
        server.add_task("L1", "Old idea", task_id="arch")
        server.archive_task("arch")
        server.add_task("L2", "Shared task", task_id="multi", also_in=["L1"])
        for i in range(30):
            server.add_comment("plain", f"comment {i}")
        server.add_doc("9001", "d1", "Client Playbook")
        server.add_page("d1", "p1", "Onboarding", "# Onboarding\n\nIntro.\n\n## Kickoff\n\nAgenda.")
        server.add_page("d1", "p2", "Offboarding", "Hand over the keys.", parent="p1")
        yield server


def connector(
    fake: ClickUpFake, clock: FakeClock | None = None, **overrides: Any
) -> ClickUpConnector:
    clock = clock or FakeClock()
    raw = {
        "base_url": fake.url("/api/v2"),
        "docs_base_url": fake.url("/api/v3"),
        "team_id": "9001",
        "doc_ids": ["d1"],
        **overrides,
    }
    return ClickUpConnector(
        ClickUpSettings.model_validate(raw), "internal", sleep=clock.sleep, clock=clock
    )


def test_full_pull_reads_every_task_and_doc_page(fake: ClickUpFake) -> None:
    result = connector(fake).pull(None)

    docs = {d.source_id: d for d in result.documents}
    assert result.full is True
    assert set(docs) == {"dec", "closed", "plain", "sub", "multi", "doc:d1:p1", "doc:d1:p2"}
    decision = docs["dec"]
    assert decision.kind == "decision"
    assert decision.extra["decision"] == {
        "status": "approved",
        "summary": "We chose Qdrant Edge for the embedded mode.",
    }
    assert decision.extra["chunking"] == "whole"
    assert "Status: approved" in decision.text
    assert "- Stage: Beta" in decision.text
    assert "- Owner team: Growth" in decision.text
    assert "- Channels: Email, Paid social" in decision.text
    assert "Budget" not in decision.text
    assert decision.version == fake.tasks["dec"]["date_updated"]
    assert decision.url == "https://app.clickup.com/t/dec"
    assert decision.date is not None and decision.date.year == 2023
    assert docs["closed"].kind == "task" and "Status: complete" in docs["closed"].text
    assert docs["sub"].extra["parent"] == "plain"
    plain = docs["plain"].text
    assert "comment 0" in plain and "comment 29" in plain
    assert plain.index("comment 0") < plain.index("comment 29")  # oldest first
    assert docs["doc:d1:p1"].kind == "doc"
    assert docs["doc:d1:p1"].title == "Client Playbook / Onboarding"
    assert "## Kickoff" in docs["doc:d1:p1"].text

    listings = fake.requests("/task")
    listings = [r for r in listings if r.path.endswith("/task")]
    assert {r.path for r in listings} == {"/api/v2/list/L1/task", "/api/v2/list/L2/task"}
    for r in listings:
        assert r.arg("include_closed") == r.arg("subtasks") == "true"
        assert r.arg("include_markdown_description") == "true"
        assert r.arg("date_updated_gt") is None and r.arg("archived") is None
    comment_pages = fake.requests("/task/plain/comment")
    assert len(comment_pages) == 2
    oldest_first_page = sorted(fake.comments["plain"], key=lambda c: int(c["date"]))[5]
    assert comment_pages[1].arg("start") == oldest_first_page["date"]
    assert comment_pages[1].arg("start_id") == oldest_first_page["id"]
    assert result.requests == len(fake.log)
    assert result.cursor["high_water_ms"] == max(
        int(t["date_updated"]) for t in fake.tasks.values()
    )


def test_pages_through_more_than_100_tasks(fake: ClickUpFake) -> None:
    for i in range(150):
        fake.add_task("L1", f"Bulk {i}")

    result = connector(fake, max_comments=0, doc_ids=[]).pull(None)

    assert sum(d.title.startswith("Bulk ") for d in result.documents) == 150
    pages = [r.arg("page") for r in fake.requests("/list/L1/task")]
    assert pages == ["0", "1"]
    assert not fake.requests("/comment")


def test_incremental_pull_requests_only_changes(fake: ClickUpFake) -> None:
    conn = connector(fake, overlap_seconds=0)
    first = conn.pull(None)
    fake.clear_log()
    fake.advance(3600)
    fake.update_task("plain", description="## Goal\nLaunch in May.")
    new = fake.add_task("L2", "Brand new")
    fake.add_hierarchy("9001", "s1", None, "L3")
    fake.add_task("L3", "In a new list", task_id="inL3")
    fake.update_page("d1", "p2", "Hand over the keys and the logins.")

    second = conn.pull(first.cursor)

    assert second.full is False
    assert {d.source_id for d in second.documents} == {"plain", new, "inL3", "doc:d1:p2"}
    assert "Launch in May." in next(d.text for d in second.documents if d.source_id == "plain")
    since = str(first.cursor["high_water_ms"])
    for path in ("/api/v2/list/L1/task", "/api/v2/list/L2/task"):
        passes = fake.requests(path)
        assert passes and all(r.arg("date_updated_gt") == since for r in passes)
        assert [r.arg("archived") for r in passes] == [None, "true"]
    assert all(r.arg("date_updated_gt") is None for r in fake.requests("/list/L3/task"))
    commented = {r.path.split("/")[4] for r in fake.requests("/comment")}
    assert commented == {"plain", new, "inL3"}
    assert second.cursor["high_water_ms"] > first.cursor["high_water_ms"]

    fake.clear_log()
    third = connector(fake, overlap_seconds=300).pull(second.cursor)
    overlap_since = str(second.cursor["high_water_ms"] - 300_000)
    assert {r.arg("date_updated_gt") for r in fake.requests("/list/L1/task")} == {overlap_since}
    assert {"plain", new, "inL3"} <= {d.source_id for d in third.documents}  # in the overlap


def test_deletions_archived_incrementally_and_by_absence_in_full_pulls(fake: ClickUpFake) -> None:
    conn = connector(fake, max_comments=0, overlap_seconds=0)
    first = conn.pull(None)
    fake.advance(3600)
    fake.archive_task("closed")
    fake.delete_page("d1", "p2")

    second = conn.pull(first.cursor)
    assert set(second.deleted) == {"closed", "doc:d1:p2"}
    assert "closed" not in {d.source_id for d in second.documents}

    fake.delete_task("plain")
    third = conn.pull(second.cursor, full=True)
    assert third.full is True
    ids = {d.source_id for d in third.documents}
    assert "plain" not in ids and "closed" not in ids and "dec" in ids


def test_rate_limit_waits_until_reset_then_succeeds(fake: ClickUpFake) -> None:
    clock = FakeClock()
    fake.clock = clock
    fake.rate_limit = 4

    result = connector(fake, clock).pull(None)

    limited = [r for r in fake.log if r.status == 429]
    assert limited and len(clock.sleeps) == len(limited)
    assert all(s == pytest.approx(60.0) for s in clock.sleeps)  # X-RateLimit-Reset - now
    assert {d.source_id for d in result.documents} >= {"dec", "plain", "doc:d1:p1"}


def test_transient_errors_and_timeouts_are_retried(fake: ClickUpFake) -> None:
    clock = FakeClock()
    fake.inject("/list/L1/task", 502, "Bad gateway", times=1)
    fake.inject("/list/L2/task", None, delay=0.4, times=1)

    result = connector(fake, clock, timeout_seconds=0.15).pull(None)

    assert "multi" in {d.source_id for d in result.documents}
    assert clock.sleeps == [0.5, 0.5]


def test_outage_raises_source_error_after_retries(fake: ClickUpFake) -> None:
    clock = FakeClock()
    fake.inject("/list/L1/task", 500, {"err": "Internal error", "ECODE": "SHARD_001"}, times=None)

    with pytest.raises(SourceError) as exc:
        connector(fake, clock).pull(None)

    message = str(exc.value)
    assert "clickup: GET /api/v2/list/L1/task failed with HTTP 500 after 5 attempts" in message
    assert "Internal error (SHARD_001)" in message and "\n" not in message
    assert clock.sleeps == [0.5, 1.0, 2.0, 4.0]


def test_malformed_json_raises_source_error(fake: ClickUpFake) -> None:
    fake.inject("/list/L2/task", 200, '{"tasks": [', times=1)

    with pytest.raises(SourceError, match=r"GET /api/v2/list/L2/task returned malformed JSON"):
        connector(fake).pull(None)


def test_malformed_task_is_skipped_and_reported(fake: ClickUpFake) -> None:
    fake.add_raw_task("L1", {"id": "bad1", "name": "Broken", "date_updated": "yesterday"})
    fake.add_raw_task("L1", {"id": "bad2", "date_updated": "1700000000000"})

    result = connector(fake, max_comments=0).pull(None)

    reasons = {s.source_id: s.reason for s in result.skipped}
    assert "date_updated 'yesterday' is not unix ms" in reasons["bad1"]
    assert "no name" in reasons["bad2"]
    assert {"dec", "plain"} <= {d.source_id for d in result.documents}


def test_bad_token_fails_with_clear_message(
    fake: ClickUpFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLICKUP_TOKEN", "pk_revoked")
    with pytest.raises(SourceError) as exc:
        connector(fake).pull(None)
    message = str(exc.value)
    assert "HTTP 401" in message and "Oauth token not found (OAUTH_019)" in message
    assert "check the ClickUp token in $CLICKUP_TOKEN" in message
    assert TOKEN not in message


def test_oauth_token_is_sent_as_bearer(fake: ClickUpFake, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CU_OAUTH", "oauth-access-token")

    result = connector(fake, token_env="CU_OAUTH", max_comments=0).pull(None)

    assert result.documents
    assert {r.headers["Authorization"] for r in fake.log} == {"Bearer oauth-access-token"}
    with pytest.raises(SourceError, match="OAUTH_019"):
        connector(fake, token_env="CU_OAUTH", token_kind="personal").pull(None)


def test_missing_token_is_a_config_error(
    fake: ClickUpFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CLICKUP_TOKEN")
    with pytest.raises(ConfigError, match="CLICKUP_TOKEN is not set"):
        connector(fake).pull(None)
    assert fake.log == []


def test_docs_need_a_workspace_id() -> None:
    with pytest.raises(ValueError, match="doc_ids need team_id"):
        ClickUpSettings.model_validate({"doc_ids": ["d1"]})
