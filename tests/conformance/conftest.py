"""Every source's harness as a parameter of the scenarios, and the source x scenario table
printed at the end of the run (the sync contract's conformance report)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.harness import SCENARIOS, SourceHarness, World

#: source -> its harness class; a source without one is not conformant yet.
HARNESSES = {
    "clickup": "tests.conformance.sources.clickup:ClickUpTasksHarness",
    "clickup_docs": "tests.conformance.sources.clickup:ClickUpDocsHarness",
    "git_docs": "tests.conformance.sources.git_docs:GitDocsHarness",
    "google_drive": "tests.conformance.sources.google_drive:GoogleDriveHarness",
    "memory_files": "tests.conformance.sources.memory_files:MemoryFilesHarness",
    "supabase": "tests.conformance.sources.supabase:SupabaseHarness",
    "website": "tests.conformance.sources.website:WebsiteHarness",
}

#: source -> scenario -> outcome, filled by the tests, printed by the terminal summary.
REPORT: dict[str, dict[str, str]] = {}


def _harness(name: str) -> type[SourceHarness]:
    module, _, cls = HARNESSES[name].partition(":")
    return getattr(importlib.import_module(module), cls)


@pytest.fixture(params=sorted(HARNESSES))
def world(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[World]:
    harness = _harness(request.param)(tmp_path, monkeypatch)
    harness.start()
    try:
        world = World(harness, tmp_path, monkeypatch)
        yield world
    finally:
        harness.stop()
        REPORT.setdefault(request.param, {}).update(world.results)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not REPORT:
        return
    sources = sorted(REPORT)
    terminalreporter.section("sync contract conformance (source x scenario)")
    width = max(len(s) for s in SCENARIOS)
    terminalreporter.write_line(" " * width + " | " + " | ".join(sources))
    for scenario in SCENARIOS:
        cells = []
        for source in sources:
            outcome = REPORT[source].get(scenario, "-")
            cells.append("n/a" if outcome.startswith("n/a") else outcome.split(" ")[0])
        terminalreporter.write_line(
            f"{scenario:<{width}} | "
            + " | ".join(f"{c:<{len(s)}}" for c, s in zip(cells, sources, strict=True))
        )
