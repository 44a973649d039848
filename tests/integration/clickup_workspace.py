"""The ClickUp workspace the integration tests share, and a connector over its fake."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from knowledge_platform.connectors.clickup.connector import ClickUpConnector, ClickUpSettings
from tests.fakes.clickup_server import ClickUpFake
from tests.fakes.http_fake import FakeClock

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


def workspace(monkeypatch: pytest.MonkeyPatch) -> Iterator[ClickUpFake]:
    """Space s1: folder f1 with list L1, list L2; decisions, closed, archived, subtask, a task in
    two lists, a 30-comment thread, and doc d1 (two nested pages) at the workspace level."""
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
    if not any(raw.get(k) for k in ("space_ids", "folder_ids", "list_ids")):
        raw["space_ids"] = ["s1"]  # the workspace's one space (a scope names what it reads)
    return ClickUpConnector(
        ClickUpSettings.model_validate(raw), "internal", sleep=clock.sleep, clock=clock
    )
