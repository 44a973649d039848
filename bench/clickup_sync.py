"""ClickUp sync cost: requests per run for a workspace of 500 tasks in 5 lists (ClickUp allows
100 requests a minute per token on most plans), and the delete-to-gone time through the real
assets.

Requests: the connector against the fake (tests/fakes/clickup_server.py) holding 500 tasks in
5 lists of one space, created over 70 days (so about 50 fall inside the 7-day comment window),
2 comments each and a reply on every tenth, and 5 docs of 3 pages (2 in the space, 3 in
lists). The fake enforces 100 requests a minute with X-RateLimit-* headers on a virtual clock,
so the "waited" column is the time the pacing spends under that limit (runs 30 minutes
apart, as scheduled). Runs: the first
(full) pull; an ordinary run with nothing changed; one after a delete, a move to a list
outside the scope, 5 edits, a new comment and a deleted doc; the weekly full pull; and an
ordinary run when all 500 tasks are recently active (the re-read cap binds).

Delete-to-gone: the conformance harness (tests/conformance/sources/clickup.py) with the same
500 tasks, Dagster materializing the four assets as a run does; a task is deleted and the
next ordinary run's wall time is measured, then search is asked for it.

    .venv/bin/python bench/clickup_sync.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from _common import load_average, markdown_table, write_results

from knowledge_platform.connectors.base import Known
from knowledge_platform.connectors.clickup.connector import ClickUpConnector, ClickUpSettings
from knowledge_platform.connectors.clickup.cursor import ClickUpCursor
from knowledge_platform.ingest.sync import merge_pull
from tests.fakes.clickup_server import ClickUpFake
from tests.fakes.http_fake import FakeClock

TOKEN = "pk_42_BENCH"
LISTS = [f"L{i}" for i in range(1, 6)]
TASKS = 500
DAY = 86_400


def populate(fake: ClickUpFake, *, spread_days: float = 70) -> list[str]:
    for list_id in LISTS:
        fake.add_hierarchy("9001", "s1", None, list_id)
    fake.add_hierarchy("9001", "s2", None, "L-client")
    ids = []
    for i in range(TASKS):
        fake.advance(int(spread_days * DAY / TASKS))
        tid = fake.add_task(LISTS[i % 5], f"Task {i}", description=f"Body of task {i}.")
        first = fake.add_comment(tid, f"First comment on {i}.")
        fake.add_comment(tid, f"Second comment on {i}.")
        if i % 10 == 0:
            fake.add_reply(first, f"A reply on {i}.")
        ids.append(tid)
    for d, parent, ptype in [("d1", "s1", "SPACE"), ("d2", "s1", "SPACE"), ("d3", "L1", "LIST"),
                             ("d4", "L2", "LIST"), ("d5", "L3", "LIST")]:  # fmt: skip
        fake.add_doc("9001", d, f"Doc {d}", parent_id=parent, parent_type=ptype)
        for p in range(3):
            fake.add_page(d, f"{d}-p{p}", f"Page {p}", f"Content of {d} page {p}.")
    return ids


class Index:
    def __init__(self, fake: ClickUpFake, clock: FakeClock) -> None:
        cfg = ClickUpSettings.model_validate(
            {
                "base_url": fake.url("/api/v2"),
                "docs_base_url": fake.url("/api/v3"),
                "team_id": "9001",
                "space_ids": ["s1"],
                "token_env": "CLICKUP_BENCH_TOKEN",
            }
        )
        self.conn = ClickUpConnector(cfg, "internal", sleep=clock.sleep, clock=clock)
        self.clock = clock
        self.docs: dict[str, Any] = {}
        self.cursor: ClickUpCursor | None = None

    def pull(self, *, full: bool = False) -> list[str]:
        self.clock.now += 30 * 60  # the schedule's interval: each run starts a fresh window
        slept = sum(self.clock.sleeps)
        result = self.conn.pull(self.cursor, full=full, known=Known(documents=self.docs))
        merged = merge_pull(list(self.docs.values()), result)
        self.docs = {d.source_id: d for d in merged.documents}
        self.cursor = result.cursor
        return [
            str(result.requests),
            f"{sum(self.clock.sleeps) - slept:.0f} s",
            str(len(result.documents)),
            str(len(result.deleted)),
            str(len(result.missing)),
        ]


def requests_table(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("CLICKUP_BENCH_TOKEN", TOKEN)
    rows = []
    for spread in (70, 0):
        clock = FakeClock()
        with ClickUpFake(personal_token=TOKEN, clock=clock) as fake:
            fake.rate_limit = 100
            ids = populate(fake, spread_days=spread)
            index = Index(fake, clock)
            if spread:
                rows.append(["first run (full pull)", *index.pull()])
                rows.append(["ordinary run, nothing changed", *index.pull()])
                fake.delete_task(ids[10])
                fake.move_task(ids[20], "L-client")
                for tid in ids[-5:]:
                    fake.update_task(tid, description="Edited.")
                fake.add_comment(ids[-20], "A new comment (no date_updated bump).")
                fake.delete_doc("d2")
                rows.append(["ordinary run after delete, move, 5 edits, comment, doc deleted",
                             *index.pull()])  # fmt: skip
                rows.append(["weekly full pull", *index.pull(full=True)])
            else:
                index.pull()
                rows.append(["ordinary run, all 500 tasks active (cap 100 re-reads)",
                             *index.pull()])  # fmt: skip
    return markdown_table(["run", "requests", "waited at 100/min", "documents", "deleted",
                           "missing"], rows)  # fmt: skip


def delete_to_gone(monkeypatch: pytest.MonkeyPatch) -> str:
    from tests.conformance.harness import World
    from tests.conformance.sources.clickup import ClickUpTasksHarness

    with tempfile.TemporaryDirectory() as tmp:
        harness = ClickUpTasksHarness(Path(tmp), monkeypatch)
        harness.start()
        try:
            ids = populate(harness.fake)
            for list_id in LISTS:  # the harness's internal space holds the bench's lists
                harness.fake.lists[list_id]["space"] = "s-int"
            world = World(harness, Path(tmp), monkeypatch)
            start = time.perf_counter()
            world.run("internal")
            first = time.perf_counter() - start
            start = time.perf_counter()
            world.run("internal")
            idle = time.perf_counter() - start
            harness.fake.delete_task(ids[123])
            start = time.perf_counter()
            world.run("internal")
            after_delete = time.perf_counter() - start
            gone = not world.docs_with("Body of task 123.")
        finally:
            harness.stop()
    return markdown_table(
        ["run through the assets (500 tasks, hash embedder)", "wall time"],
        [
            ["first run (full pull)", f"{first:.1f} s"],
            ["ordinary run, nothing changed", f"{idle:.1f} s"],
            [
                "ordinary run after a delete",
                f"{after_delete:.1f} s (task gone from search: {gone})",
            ],
        ],
    )


def main() -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        table = requests_table(monkeypatch)
        print(table, "\n")
        assets = delete_to_gone(monkeypatch)
        print(assets)
    body = (
        f"Measured {time.strftime('%Y-%m-%d %H:%M')}, {load_average()}.\n\n{table}\n\n"
        f"{assets}\n\nDeadline: a delete is gone within one ordinary run; the schedule "
        "runs every 30 minutes (knowledge_platform/connectors/clickup/spec.py).\n"
    )
    print("wrote", write_results("clickup_sync", "ClickUp sync: requests and delete-to-gone", body))


if __name__ == "__main__":
    main()
