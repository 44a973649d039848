"""ClickUpConnector against a local fake of the ClickUp API (v2 tasks, v3 Docs)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from knowledge_platform.connectors.clickup.connector import ClickUpSettings
from knowledge_platform.errors import ConfigError, SourceError
from tests.fakes.clickup_server import ClickUpFake
from tests.fakes.http_fake import FakeClock
from tests.integration.clickup_workspace import TOKEN, connector, workspace

pytestmark = pytest.mark.integration


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[ClickUpFake]:
    yield from workspace(monkeypatch)


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
    assert result.cursor.lists == ("L1", "L2")
    discovery = {(r.arg("parent_type"), r.arg("parent_id")) for r in fake.requests("/docs")
                 if r.path.endswith("/docs")}  # fmt: skip
    assert discovery == {("SPACE", "s1"), ("FOLDER", "f1"), ("LIST", "L1"), ("LIST", "L2")}


def test_pages_through_more_than_100_tasks(fake: ClickUpFake) -> None:
    for i in range(150):
        fake.add_task("L1", f"Bulk {i}")

    result = connector(fake, max_comments=0, doc_ids=[]).pull(None)

    assert sum(d.title.startswith("Bulk ") for d in result.documents) == 150
    pages = [r.arg("page") for r in fake.requests("/list/L1/task")]
    assert pages == ["0", "1"]
    assert not fake.requests("/comment")


def test_a_spent_rate_limit_window_is_waited_out_before_a_429(fake: ClickUpFake) -> None:
    clock = FakeClock()
    fake.clock = clock
    fake.rate_limit = 4

    result = connector(fake, clock).pull(None)

    assert not [r for r in fake.log if r.status == 429]  # paced by X-RateLimit-Remaining
    # The last request of each 60 s window waits for the reset (spread over the last two).
    windows = (len(fake.log) - 1) // fake.rate_limit
    assert clock.sleeps and all(0 < s <= 60 for s in clock.sleeps)
    assert sum(clock.sleeps) == pytest.approx(60.0 * windows, abs=60)
    assert {d.source_id for d in result.documents} >= {"dec", "plain", "doc:d1:p1"}


def test_transient_errors_and_timeouts_are_retried(fake: ClickUpFake) -> None:
    clock = FakeClock()
    fake.inject("/list/L1/task", 502, "Bad gateway", times=1)
    fake.inject("/list/L2/task", None, delay=0.4, times=1)

    result = connector(fake, clock, timeout_seconds=0.15).pull(None)

    assert "multi" in {d.source_id for d in result.documents}
    assert clock.slept_backoff([0.5, 0.5]), clock.sleeps


def test_outage_raises_source_error_after_retries(fake: ClickUpFake) -> None:
    clock = FakeClock()
    fake.inject("/space/s1/list", 500, {"err": "Internal error", "ECODE": "SHARD_001"}, times=None)

    with pytest.raises(SourceError) as exc:
        connector(fake, clock).pull(None)

    message = str(exc.value)
    assert "clickup: GET /api/v2/space/s1/list failed with HTTP 500 after 5 attempts" in message
    assert "Internal error (SHARD_001)" in message and "\n" not in message
    assert clock.slept_backoff([0.5, 1.0, 2.0, 4.0]), clock.sleeps


def test_malformed_json_raises_source_error(fake: ClickUpFake) -> None:
    fake.inject("/space/s1/list", 200, '{"lists": [', times=1)

    with pytest.raises(SourceError, match=r"GET /api/v2/space/s1/list returned malformed JSON"):
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
