"""The sync contract (docs/sync-contract.md) for every source, through the real assets: each
scenario changes the source's fake and asserts what search returns after ONE ordinary run
(never only after the weekly full pull)."""

from __future__ import annotations

import json
from collections.abc import Callable

from knowledge_platform.connectors.catalog import connector_class
from tests.conformance.harness import NotApplicable, World


def _step(world: World, scenario: str, action: Callable[[], None]) -> bool:
    """Run a harness step; a NotApplicable one is recorded as such and skipped."""
    try:
        action()
    except NotApplicable as exc:
        world.not_applicable(scenario, exc)
        return False
    return True


def test_changes_reach_search_within_one_ordinary_run(world: World) -> None:
    h = world.harness
    h.create("kept", "Kestrel roster", "The kestrel roster lists who reviews tests.")
    h.create("edited", "Pricing memo", "Retainers are billed quarterly in the osprey plan.")
    h.create("deleted", "Old vendor", "The albatross vendor supplied our heatmaps.")
    h.create("archived", "Parked idea", "A cormorant widget for the cart page.")
    h.create("moved", "Runbook copy", "The pelican checklist runs before every launch.")
    h.create("to_client", "Client brief", "The ptarmigan brief belongs to Acme.")
    h.create("renamed", "Draft name", "The wigeon summary of the quarter.")
    h.create("parent", "Launch task", "The grebe launch is on Monday.")
    h.create("acme_own", "Acme notes", "Acme's merganser backlog.", scope="acme")
    world.run("internal")
    world.run("acme")
    assert world.docs_with("kestrel roster"), "the first full pull indexed nothing"

    h.create("created", "New note", "The shoveler rule: ship on Tuesdays.")
    h.edit("edited", "Retainers are billed monthly in the heron plan.")
    h.delete("deleted")
    archived = _step(world, "archive/trash", lambda: h.archive("archived"))
    h.move("moved", container="b")
    h.move_scope("to_client", "acme")
    h.rename("renamed", "Quarter summary")
    new_container = _step(
        world,
        "new container",
        lambda: h.create_in_new_container("fresh", "Fresh list", "The dunlin plan is new."),
    )
    child = _step(
        world, "child change", lambda: h.child_change("parent", "Comment: the garganey slot moved.")
    )
    world.run("internal")
    world.run("acme")

    world.expect("create", bool(world.docs_with("shoveler rule")))
    world.expect(
        "edit",
        bool(world.docs_with("heron plan")) and not world.docs_with("osprey plan"),
        "old text still found",
    )
    world.expect("hard delete", not world.docs_with("albatross vendor"))
    if archived:
        world.expect("archive/trash", not world.docs_with("cormorant widget"))
    moved = world.docs_with("pelican checklist")
    world.expect("move container", len(moved) == 1, f"{len(moved)} copies")
    world.expect(
        "move scope",
        not world.docs_with("ptarmigan brief") and bool(world.docs_with("ptarmigan brief", "acme")),
        f"internal={list(world.docs_with('ptarmigan brief'))} "
        f"acme={list(world.docs_with('ptarmigan brief', 'acme'))}",
    )
    world.expect(
        "rename",
        world.titles_with("wigeon summary") == ["Quarter summary"],
        f"titles {world.titles_with('wigeon summary')}",
    )
    if new_container:
        world.expect("new container", bool(world.docs_with("dunlin plan")))
    if child:
        world.expect("child change", bool(world.docs_with("garganey slot")))
    assert world.docs_with("kestrel roster") and world.docs_with("merganser backlog", "acme")
    _older_cursor(world)
    world.verify()


def _older_cursor(world: World) -> None:
    """The stored cursor is the model the connector declares (it reads back), and one written
    by another version (a key this one lacks) makes the next ordinary pull a full one that
    deletes nothing and writes the cursor anew. The raw step alone: nothing after it differs."""
    model = connector_class(world.harness.name).cursor_model
    path = world.cursor_file("internal")
    stored = json.loads(path.read_text())
    model.model_validate(stored)
    before = world.indexed("internal")
    path.write_text(json.dumps({**stored, "written_by_another_version": True}))
    result, merged = world.pull("internal")
    model.model_validate_json(path.read_text())  # written anew, in the current layout
    world.expect(
        "older cursor",
        result.full
        and not merged.stats.deleted
        and not merged.held
        and world.indexed("internal") == before,
        f"full={result.full} deleted={merged.stats.deleted} held={len(merged.held)} "
        f"lost={sorted(before - world.indexed('internal'))}",
    )


def test_paging_short_pages_and_equal_timestamps(world: World) -> None:
    h = world.harness
    if not _step(world, "short pages", h.awkward_paging):
        world.not_applicable("equal timestamps", NotApplicable("read without paging"))
        return
    for i in range(12):
        h.create(f"item{i}", f"Ledger entry {i}", f"Sanderling ledger entry number {i}.")
    world.run("internal")
    first = world.docs_with("sanderling ledger")
    world.expect("short pages", len(first) == 12, f"{len(first)} of 12 after the full pull")
    for i in (12, 13):
        h.create(f"item{i}", f"Ledger entry {i}", f"Sanderling ledger entry number {i}.")
    h.edit("item3", "Turnstone ledger entry, edited.")
    world.run("internal")
    after = world.docs_with("sanderling ledger")
    world.expect(
        "equal timestamps",
        len(after) == 13 and bool(world.docs_with("turnstone")),
        f"{len(after)} of 13 after the ordinary run",
    )
    world.verify()


def test_a_failing_sub_resource_never_blocks_its_scope(world: World) -> None:
    h = world.harness
    h.create("steady", "Steady doc", "The lapwing doc never changes.")
    h.create("edited", "Edited doc", "The avocet draft, first version.")
    h.create("broken", "Broken doc", "The curlew guide, last good version.")
    h.create("vanishing", "Vanishing doc", "The whimbrel page will vanish.")
    world.run("internal")
    vanishes = _step(world, "sub-resource 404", lambda: h.vanish("vanishing"))
    h.break_item("broken")
    h.edit("edited", "The avocet draft, second version.")
    result = world.run("internal")  # must succeed: only sub-resources failed
    checks = world.checks(result)
    kept = world.docs_with("curlew guide")
    stale = [hit.chunk.extra.get("stale") for hit in kept.values()]
    world.expect(
        "sub-resource fails",
        bool(world.docs_with("second version"))
        and len(kept) == 1
        and all(stale)
        and checks.get("pull_complete") is False,
        f"edit={bool(world.docs_with('second version'))} kept={len(kept)} "
        f"stale={stale} checks={checks}",
    )
    if vanishes:
        world.expect("sub-resource 404", not world.docs_with("whimbrel page"))
    weekly = world.run("internal", full=True)  # the weekly full pull keeps it too
    world.expect(
        "sub-resource fails",
        len(world.docs_with("curlew guide")) == 1
        and world.checks(weekly).get("pull_complete") is False,
        "the full pull dropped the broken item",
    )
    h.mend("broken")
    h.edit("broken", "The curlew guide, mended.")
    mended = world.run("internal")
    world.expect(
        "sub-resource fails",
        bool(world.docs_with("guide, mended"))
        and world.checks(mended).get("pull_complete") is True,
        "the mended item was not read again",
    )
    assert world.docs_with("lapwing doc")
    world.verify()


def test_rate_limits_and_server_errors_are_waited_out(world: World) -> None:
    h = world.harness
    h.create("one", "Throttled doc", "The dotterel note, first.")
    world.run("internal")
    cases = [
        ("429 Retry-After", lambda: h.rate_limit(retry_after=True), "second"),
        ("429 no Retry-After", lambda: h.rate_limit(retry_after=False), "third"),
        ("5xx burst", lambda: h.server_errors(2), "fourth"),
    ]
    for scenario, inject, word in cases:
        h.edit("one", f"The dotterel note, {word}.")
        if not _step(world, scenario, inject):
            continue
        world.run("internal")
        world.expect(scenario, bool(world.docs_with(f"dotterel note, {word}")))
    world.verify()
