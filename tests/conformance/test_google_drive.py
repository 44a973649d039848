"""Drive cases of the sync contract that the shared scenarios do not spell (issue #17), through
the real assets against the Google fake, asserting what search returns: export refusals
kept, stale and retried by every run; confirmed deletions applied however many, with the
run's edits; types that are not read listed once, no failure; My Drive <-> shared
drive moves.

About 2.5 s per run (Dagster in-process); the four tests make 16 runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge_platform.ingest.snapshots import SnapshotStore
from tests.conformance.harness import World
from tests.conformance.sources.google_drive import GoogleDriveHarness


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    harness = GoogleDriveHarness(tmp_path, monkeypatch)
    harness.start()
    try:
        yield World(harness, tmp_path, monkeypatch)
    finally:
        harness.stop()


def _problems(world: World) -> list[str]:
    state = SnapshotStore(world.settings.data_dir).read_sync("google_drive", "internal")
    return [f"{p.what}: {p.reason} -> {p.action}" for p in state.problems]


def test_export_refusals_keep_the_last_good_version_and_are_retried(world: World) -> None:
    h: GoogleDriveHarness = world.harness  # type: ignore[assignment]
    fake = h.fake
    h.create("big", "Big doc", "The godwit handbook, first version.")
    h.create("locked", "Locked doc", "The knot memo, first version.")
    h.create("other", "Other doc", "The stint note, first version.")
    world.run()
    fake.modify(
        h.ids["big"],
        markdown="The godwit handbook, second version.\n",
        export_error=(403, "exportSizeLimitExceeded", "This file is too large to be exported."),
    )
    fake.modify(
        h.ids["locked"],
        export_error=(403, "cannotExportFile", "This file cannot be exported by the user."),
    )
    h.edit("other", "The stint note, second version.")

    ordinary = world.run()
    assert world.docs_with("stint note, second")  # the rest of the scope moved on
    for phrase, reason in (
        ("godwit handbook, first", "exportSizeLimitExceeded"),
        ("knot memo, first", "cannotExportFile"),
    ):
        (hit,) = world.docs_with(phrase).values()
        assert reason in hit.chunk.extra["stale"]
    assert world.checks(ordinary)["pull_complete"] is False
    exports = len(fake.calls(f"/{h.ids['big']}/export"))

    again = world.run()  # nothing changed in Drive: the refused files are asked again
    assert len(fake.calls(f"/{h.ids['big']}/export")) == exports + 1
    assert world.checks(again)["pull_complete"] is False
    weekly = world.run(full=True)  # the full pull agrees: kept, stale, reported
    assert len(world.docs_with("godwit handbook, first")) == 1
    assert len(world.docs_with("knot memo, first")) == 1
    assert world.checks(weekly)["pull_complete"] is False
    assert any("exportSizeLimitExceeded" in p and p.endswith("kept") for p in _problems(world))

    fake.files[h.ids["big"]].export_error = None  # fixed in Drive without a logged change
    world.run()
    assert world.docs_with("godwit handbook, second")
    assert not world.docs_with("godwit handbook, first")


def test_confirmed_deletions_apply_however_many_with_the_runs_edits(world: World) -> None:
    h: GoogleDriveHarness = world.harness  # type: ignore[assignment]
    fake = h.fake
    for i in range(9):
        h.create(f"keep{i}", f"Keeper {i}", f"Sandpiper keeper number {i}.")
    for key in ("trashed1", "trashed2", "moved_out", "unshared"):
        h.create(key, key, f"Phalarope {key} note.")
    sub = fake.add_folder("Old projects", h.folders["internal", "a"])
    for i in range(3):
        fake.add_doc(f"Project {i}", sub, f"Phalarope project {i}.\n")
    world.run()
    assert len(world.docs_with("phalarope")) == 7

    h.archive("trashed1")
    h.archive("trashed2")
    fake.move(h.ids["moved_out"], h.outside)
    fake.revoke_access(h.ids["unshared"])
    fake.delete(sub)  # 7 of 16 documents (44%): over the 30% guard, all confirmed
    h.edit("keep0", "Sandpiper keeper number 0, edited: the ruff rota.")
    h.create("new", "New doc", "The new turnstone plan.")
    result = world.run()

    assert world.docs_with("phalarope") == {}
    assert world.docs_with("ruff rota") and world.docs_with("turnstone plan")
    assert world.checks(result)["deletions_within_guard"] is True


def test_types_that_are_not_read_are_listed_once_and_are_no_failure(world: World) -> None:
    h: GoogleDriveHarness = world.harness  # type: ignore[assignment]
    fake = h.fake
    folder = h.folders["internal", "a"]
    logo = fake.add_upload("Logo.png", folder, "image/png", b"\x89PNG\r\n\x1a\n logo")
    form = fake.add_upload("Survey", h.shared_drive, "application/vnd.google-apps.form", b"")
    h.create("doc", "Plain doc", "The redshank doc.")
    first = world.run()
    assert world.docs_with("redshank doc")
    assert sorted(_problems(world)) == [
        f"{form}: application/vnd.google-apps.form: no text export ('Survey') -> unsupported",
        f"{logo}: image/png upload: not a type the converter reads ('Logo.png') -> unsupported",
    ]
    assert world.checks(first)["pull_complete"] is True

    world.run()  # nothing changed: nothing to say
    assert _problems(world) == []
    weekly = world.run(full=True)  # the weekly pull does not list them again either
    assert _problems(world) == [] and world.checks(weekly)["pull_complete"] is True
    fake.modify(logo, name="Logo (old).png")  # a new version is listed again
    world.run()
    assert [p.split(":")[0] for p in _problems(world)] == [logo]
    assert not fake.calls(f"/files/{logo}") or all(
        c.arg("alt") != "media" for c in fake.calls(f"/files/{logo}")
    )  # never downloaded


def test_moves_between_my_drive_and_a_shared_drive(world: World) -> None:
    h: GoogleDriveHarness = world.harness  # type: ignore[assignment]
    fake = h.fake
    h.create("mine", "My doc", "The dowitcher doc lives in My Drive.")
    team = fake.add_doc("Team doc", h.shared_drive, "The yellowlegs doc lives in the team drive.\n")
    world.run()
    assert world.docs_with("dowitcher doc") and world.docs_with("yellowlegs doc")

    fake.move(h.ids["mine"], h.shared_drive)  # removed from the user's log, added to the drive's
    fake.move(team, h.folders["internal", "b"])  # and the other way round
    world.run()

    assert len(world.docs_with("dowitcher doc")) == 1
    assert len(world.docs_with("yellowlegs doc")) == 1


def test_a_full_pull_exports_only_what_changed(world: World) -> None:
    """The weekly full pull (and the relist after an expired change token) reads Docs,
    Sheets and Slides again only when their `version` moved (issue #24 item 6)."""
    h: GoogleDriveHarness = world.harness  # type: ignore[assignment]
    for i in range(3):
        h.create(f"doc{i}", f"Doc {i}", f"The jacana doc number {i}.")
    world.run()
    exports = len(h.fake.calls("/export"))
    world.run(full=True)
    assert len(h.fake.calls("/export")) == exports  # nothing changed: nothing exported
    assert len(world.docs_with("jacana doc")) == 3
    h.edit("doc1", "The jacana doc number 1, edited.")
    world.run(full=True)
    assert len(h.fake.calls("/export")) == exports + 1
    assert world.docs_with("number 1, edited") and len(world.docs_with("jacana doc")) == 3
