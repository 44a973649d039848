"""An operator's path through the Dagster UI of a real `kp up`, in headless Chromium: the
asset graph, a collection's partitions, and a materialization of one partition launched by
clicking. Screenshots land in test-artifacts/browser/."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest

from tests.procs import REPO, kp_up

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = REPO / "test-artifacts" / "browser"


def _dismiss_community_dialog(page) -> None:
    skip = page.get_by_role("button", name="Skip")
    try:
        skip.click(timeout=8000)
    except Exception:
        return


def _ui_runs(platform) -> list[str]:
    """The partitions of the runs launched from the UI (Dagster tags them `dagster/from_ui`);
    the sensors' runs (the registry's first runs, an automation-condition run that a slow start
    may bring later) are not counted."""
    query = "{ runsOrError { ... on Runs { results { tags { key value } } } } }"
    runs = [
        {t["key"]: t["value"] for t in r["tags"]}
        for r in platform.graphql(query)["runsOrError"]["results"]
    ]
    return [r.get("dagster/partition", "") for r in runs if r.get("dagster/from_ui") == "true"]


def _shot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")
def test_operator_views_graph_and_partitions_and_launches_a_run(tmp_path):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=60_000)  # the UI renders slowly on a busy 2-core machine

    with kp_up(tmp_path) as platform:
        platform.token()
        platform.wait_for_successful_run()
        assert _ui_runs(platform) == []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(60_000)

            # The asset graph: the source's four assets, upstream of its collection.
            page.goto(
                f"{platform.dagster_url}/assets/memory_files/collection"
                "?view=lineage&lineageScope=upstream&lineageDepth=5"
            )
            _dismiss_community_dialog(page)
            for step in ("raw", "chunks", "embeddings", "collection"):
                expect(page.get_by_text(step, exact=True).last).to_be_visible()
            # Every check of the graph passed (n / n), however many checks the source declares.
            expect(page.get_by_text(re.compile(r"\b(\d+) / \1 Passed"))).to_be_visible()
            _shot(page, "1-asset-graph")

            page.goto(f"{platform.dagster_url}/assets/memory_files/collection?view=partitions")
            expect(page.get_by_text("Materialized (1)")).to_be_visible()
            # Its partitions are the scopes configuring memory files: `internal` alone, no
            # "Missing" partition for the clients that do not use it.
            expect(page.get_by_text("internal", exact=True).first).to_be_visible()
            for scope in ("shade_store", "hot"):
                expect(page.get_by_text(scope, exact=True)).to_have_count(0)
            expect(page.get_by_text(re.compile(r"Missing \([1-9]"))).to_have_count(0)
            _shot(page, "2-collection-partitions")

            # Launch a materialization of the `internal` partition by clicking.
            page.get_by_role("button", name="Materialize", exact=False).first.click()
            page.wait_for_timeout(1500)
            confirm = page.get_by_role("button", name="Confirm")
            if confirm.count():  # "upstream not materialized" warning, shown when stale
                confirm.click()
            page.get_by_text("Select a partition or create one").click()
            page.get_by_role("menuitem", name="internal").click()
            page.keyboard.press("Escape")
            launch = page.get_by_role("button", name=re.compile(r"^Launch 1 run"))
            expect(launch).to_be_visible()
            _shot(page, "3-launch-dialog")
            launch.click()

            deadline = time.monotonic() + 60
            while not _ui_runs(platform) and time.monotonic() < deadline:
                time.sleep(1)
            assert _ui_runs(platform) == ["internal"]  # one run, of the partition picked
            page.goto(f"{platform.dagster_url}/runs")
            expect(page.get_by_text("internal").first).to_be_visible()
            _shot(page, "4-runs")
            browser.close()
