"""The sync contract past its first scenarios (issue #24), for every source, through the real
assets, asserting what search returns after ONE ordinary run: a container that answers "not
found" as a whole keeps its items (stale, held by the deletion guard); a credential refused
mid-run fails the run in every scope and changes nothing; a renamed container re-renders its
items; a child change on an item quiet for longer than the activity window is seen. A source
for which none of these applies makes no run at all."""

from __future__ import annotations

from typing import Any

from tests.conformance.harness import NotApplicable, SourceHarness, World

STEPS = {
    "container gone": "vanish_container",
    "credential refused": "refuse_credential",
    "container rename": "rename_container",
    "quiet child change": "quiet_child_change",
}


def _supported(world: World) -> set[str]:
    """The scenarios whose step this source's harness implements; the others are recorded as
    not applicable with the harness's reason."""
    h = world.harness
    found = set()
    for scenario, step in STEPS.items():
        if getattr(type(h), step) is getattr(SourceHarness, step):
            try:
                getattr(h, step)(
                    *(
                        ["x"]
                        if step == "rename_container"
                        else ["x", "y"]
                        if step == "quiet_child_change"
                        else []
                    )
                )
            except NotApplicable as exc:
                world.not_applicable(scenario, exc)
        else:
            found.add(scenario)
    return found


def _stale(world: World, phrase: str) -> list[Any]:
    return [hit.chunk.extra.get("stale") for hit in world.docs_with(phrase).values()]


def test_containers_credentials_and_quiet_children(world: World) -> None:
    h = world.harness
    supported = _supported(world)
    if not supported:
        world.verify()
        return
    h.create("steady", "Steady note", "The kittiwake note stays put.")
    h.create("in_b", "B note", "The fulmar note lives in container b.", container="b")
    h.create("quiet", "Quiet item", "The gannet item has been quiet for weeks.")
    h.create("acme_own", "Acme item", "The skua item belongs to Acme.", scope="acme")
    world.run("internal")
    if "credential refused" in supported:  # the only scenario that looks at acme
        world.run("acme")

    if "container rename" in supported:
        before = [hit.chunk.text for hit in world.docs_with("kittiwake note").values()]
        h.rename_container("Seabird desk")
    if "quiet child change" in supported:
        h.quiet_child_change("quiet", "Comment: the petrel count doubled overnight.")
    if supported & {"container rename", "quiet child change"}:
        world.run("internal")
    if "container rename" in supported:
        texts = [hit.chunk.text for hit in world.docs_with("kittiwake note").values()]
        world.expect(
            "container rename",
            len(texts) == 1 and "Seabird desk" in texts[0] and texts != before,
            f"texts {texts}",
        )
    if "quiet child change" in supported:
        world.expect(
            "quiet child change",
            bool(world.docs_with("petrel count")),
            "the comment on the quiet item was not read",
        )

    if "container gone" in supported:
        _container_gone(world)
    if "credential refused" in supported:
        _credential_refused(world)
    world.verify()


def _container_gone(world: World) -> None:
    h = world.harness
    h.vanish_container()
    h.edit("steady", "The kittiwake note, edited while b answers not found.")
    gone = world.run("internal")  # must succeed: one container is a sub-resource
    checks = world.checks(gone)
    stale = _stale(world, "fulmar note")
    world.expect(
        "container gone",
        len(stale) == 1
        and all(stale)
        and bool(world.docs_with("while b answers"))
        and checks.get("deletions_within_guard") is False,
        f"kept={len(stale)} stale={stale} checks={checks}",
    )
    h.restore_container()
    back = world.run("internal")
    world.expect(
        "container gone",
        _stale(world, "fulmar note") == [None]
        and world.checks(back).get("deletions_within_guard") is True,
        f"after it answers again: stale={_stale(world, 'fulmar note')} checks={world.checks(back)}",
    )


def _credential_refused(world: World) -> None:
    h = world.harness
    h.edit("steady", "The kittiwake note, third version.")
    h.edit("acme_own", "The skua item, edited for Acme.")
    h.refuse_credential()
    failed = {scope: not world.attempt(scope).success for scope in ("internal", "acme")}
    unchanged = (
        bool(world.docs_with("kittiwake note"))
        and not world.docs_with("third version")
        and bool(world.docs_with("skua item", "acme"))
        and bool(world.docs_with("fulmar note"))
    )
    world.expect(
        "credential refused",
        all(failed.values()) and unchanged,
        f"run failed per scope {failed}, index unchanged {unchanged}",
    )
    h.accept_credential()
    world.run("internal")
    world.expect(
        "credential refused",
        bool(world.docs_with("third version")),
        "the edits did not land once the credential was accepted again",
    )
