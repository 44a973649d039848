"""Google Drive against the local Google fake: a full pull, an ordinary run after edits and
a delete, and a pull whose access token is refused mid-way (refresh through the same HTTP
client) — requests, wall time, token exchanges; then the delete-to-gone time through the real
assets (one ordinary run after a delete, searched afterwards). Prints a table and writes it
to bench/results/drive_sync.md.

    .venv/bin/python bench/drive_sync.py [--docs 300] [--folders 10]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import load_average
from knowledge_platform.connectors.google_drive.connector import (
    GoogleDriveConnector,
    GoogleDriveSettings,
)
from knowledge_platform.connectors.google_drive.cursor import GoogleDriveCursor
from tests.conformance.harness import World
from tests.conformance.sources.google_drive import GoogleDriveHarness
from tests.fakes.google_server import FakeGoogle

RESULTS = Path(__file__).resolve().parent / "results" / "drive_sync.md"


def _pull(fake: FakeGoogle, root: str, cursor: GoogleDriveCursor | None) -> tuple[Any, float]:
    settings = GoogleDriveSettings.model_validate(
        {"folder_ids": [root], **fake.endpoints(), "backoff_seconds": 0.01}
    )
    start = time.perf_counter()
    result = GoogleDriveConnector(settings, "internal").pull(cursor)
    return result, time.perf_counter() - start


def connector_rows(docs: int, folders: int) -> list[tuple[str, str, str, str]]:
    rows = []
    with FakeGoogle() as fake:
        os.environ.update(fake.env())  # the OAuth client the fake accepts
        root = fake.add_folder("Root", file_id="root")
        parents = [fake.add_folder(f"F{i}", root) for i in range(folders)]
        for i in range(docs):
            fake.add_doc(
                f"Doc {i}", parents[i % folders], f"# Doc {i}\n\nText {i}.\n", file_id=f"doc-{i}"
            )
        full, took = _pull(fake, root, None)
        rows.append(
            (
                "full pull",
                f"{len(full.documents)} docs",
                str(full.requests),
                f"{took:.2f} s ({full.requests / took:.0f} req/s)",
            )
        )
        for i in range(5):
            fake.modify(f"doc-{i}", markdown=f"# Doc {i}\n\nEdited {i}.\n")
        fake.delete(f"doc-{docs - 1}")
        ordinary, took = _pull(fake, root, full.cursor)
        rows.append(
            (
                "ordinary run (5 edits, 1 delete)",
                f"{len(ordinary.documents)} read, {len(ordinary.deleted)} deleted",
                str(ordinary.requests),
                f"{took:.2f} s",
            )
        )
        fake.modify("doc-7", markdown="# Doc 7\n\nAgain.\n")
        fake.fail_next(1, 401, "authError", path_part="/export")  # the token stops working
        grants = len(fake.token_grants)
        refreshed, took = _pull(fake, root, ordinary.cursor)
        rows.append(
            (
                "ordinary run, token refused once",
                f"{len(refreshed.documents)} read, "
                f"{len(fake.token_grants) - grants} token exchanges",
                str(refreshed.requests),
                f"{took:.2f} s",
            )
        )
    return rows


def delete_to_gone() -> tuple[float, bool]:
    """One ordinary run after a delete, through the real assets; then search."""
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setenv("KP_MODEL_CACHE", os.environ.get("KP_MODEL_CACHE", ".kp-models"))
        harness = GoogleDriveHarness(Path(tmp), mp)
        harness.start()
        try:
            world = World(harness, Path(tmp), mp)
            for i in range(20):
                harness.create(f"d{i}", f"Doc {i}", f"Bittern report number {i}.")
            harness.create("gone", "Old vendor", "The albatross vendor supplied heatmaps.")
            world.run("internal")
            harness.delete("gone")
            start = time.perf_counter()
            world.run("internal")
            took = time.perf_counter() - start
            return took, not world.docs_with("albatross vendor")
        finally:
            harness.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--docs", type=int, default=300)
    parser.add_argument("--folders", type=int, default=10)
    args = parser.parse_args()
    lines = [
        f"# Google Drive against the fake ({load_average()})",
        "",
        "| run | result | requests | wall time |",
        "|---|---|---|---|",
    ]
    lines += [f"| {' | '.join(row)} |" for row in connector_rows(args.docs, args.folders)]
    took, gone = delete_to_gone()
    lines += [
        "",
        f"Delete-to-gone through the assets: one ordinary run {took:.1f} s, "
        f"deleted doc {'gone from search' if gone else 'STILL FOUND'} (schedule: the "
        "change probe every 2 min).",
    ]
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text + "\n")


if __name__ == "__main__":
    main()
