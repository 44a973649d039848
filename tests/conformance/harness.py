"""The conformance harness: one interface over every source's fake, so the same scenarios run
against each connector through the real assets and assert what search returns.

A harness turns scenario steps (create an item, delete it, move it to another scope, make a
sub-resource fail, ...) into changes in its source's fake — a fake written from the source's
published API, not from our connector. `World` runs the assets for the two scopes every
harness serves, `internal` and the client `acme`, and searches them."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

import pytest

from knowledge_platform.config.registry import load_registry
from knowledge_platform.connectors.base import PullResult
from knowledge_platform.ingest.snapshots import SnapshotStore
from knowledge_platform.ingest.steps import pull_step
from knowledge_platform.ingest.sync import Merged
from knowledge_platform.models import Hit
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from tests.assets.conftest import Materializer
from tests.conftest import write_registry

SCOPES = ("internal", "acme")
#: Every scenario of the sync contract, in the order the summary table shows them.
SCENARIOS = (
    "create",
    "edit",
    "hard delete",
    "archive/trash",
    "move container",
    "move scope",
    "rename",
    "new container",
    "child change",
    "short pages",
    "equal timestamps",
    "sub-resource 404",
    "sub-resource fails",
    "429 Retry-After",
    "429 no Retry-After",
    "5xx burst",
    "container gone",
    "credential refused",
    "container rename",
    "quiet child change",
    "older cursor",
)


class NotApplicable(Exception):
    """The source has no such thing (a local folder has no rate limit); says why."""


class SourceHarness(ABC):
    """One source's fake, driven by scenario steps. Items are named by a harness `key`; the
    harness maps it to the source's native object. `container` is "a" or "b" within a scope.
    A step the source cannot express raises NotApplicable with the reason."""

    name: ClassVar[str]

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.tmp_path = tmp_path
        self.monkeypatch = monkeypatch

    def start(self) -> None:  # noqa: B027 - a source without a server has nothing to start
        """Start the fake server (if any)."""

    def stop(self) -> None:  # noqa: B027
        """Stop the fake server (if any)."""

    @abstractmethod
    def settings(self, scope: str) -> dict[str, Any]:
        """The registry settings of this source for `scope` (internal or acme)."""

    # -- items ---------------------------------------------------------------------------
    @abstractmethod
    def create(
        self, key: str, title: str, text: str, *, scope: str = "internal", container: str = "a"
    ) -> None: ...

    @abstractmethod
    def edit(self, key: str, text: str) -> None: ...

    @abstractmethod
    def delete(self, key: str) -> None:
        """Hard delete: the item no longer exists (no tombstone unless the API keeps one)."""

    def archive(self, key: str) -> None:
        """Archive or trash: the item still exists in the source, out of sight."""
        raise NotApplicable(f"{self.name} has no archive or trash")

    @abstractmethod
    def move(self, key: str, container: str) -> None:
        """To another container (list, folder, directory) of the same scope."""

    @abstractmethod
    def move_scope(self, key: str, scope: str) -> None:
        """To a container that belongs to another scope."""

    @abstractmethod
    def rename(self, key: str, title: str) -> None: ...

    @abstractmethod
    def create_in_new_container(self, key: str, title: str, text: str) -> None:
        """A container created after the first pull (a list, a subfolder, a new file...)
        in the internal scope, holding one new item."""

    def child_change(self, key: str, text: str) -> None:
        """A change below the item that does not bump its modified time (a comment, a
        permission or parent change)."""
        raise NotApplicable(f"{self.name} items have no children")

    # -- paging --------------------------------------------------------------------------
    def awkward_paging(self) -> None:
        """From now on: small pages, some short before the end, and equal modification
        times across page boundaries for items created or edited."""
        raise NotApplicable(f"{self.name} is read without paging")

    # -- failures ------------------------------------------------------------------------
    def vanish(self, key: str) -> None:
        """The item's sub-resource answers 404 (deleted under us) while its parent still
        lists it, or its container is gone."""
        raise NotApplicable(f"{self.name} has no sub-resources to vanish")

    @abstractmethod
    def break_item(self, key: str) -> None:
        """The item's content fails for good (5xx after every retry, or unreadable)."""

    @abstractmethod
    def mend(self, key: str) -> None:
        """Undo break_item."""

    def vanish_container(self) -> None:
        """Internal's container "b" answers "not found" as a whole (a table PostgREST no longer
        finds, a sitemap file answering 404) while the rest of the source answers."""
        raise NotApplicable(f"{self.name} has no container that can answer not found alone")

    def restore_container(self) -> None:
        """Undo vanish_container: it answers again, with its items unchanged."""
        raise NotApplicable(f"{self.name} has no container that can answer not found alone")

    def refuse_credential(self) -> None:
        """From now on the source refuses the credential (revoked) on the requests that read
        one item (after the listing has answered), as a token revoked mid-run."""
        raise NotApplicable(f"{self.name} is read without a credential")

    def accept_credential(self) -> None:
        """Undo refuse_credential."""
        raise NotApplicable(f"{self.name} is read without a credential")

    def rename_container(self, name: str) -> None:
        """Internal's container "a" is renamed; its items' own modified times do not move."""
        raise NotApplicable(f"{self.name} documents do not show their container's name")

    def quiet_child_change(self, key: str, text: str) -> None:
        """Like child_change, on an item quiet for longer than the source's activity window
        (other items of the scope moved on since)."""
        raise NotApplicable(f"{self.name} reads every child on every run, or has none")

    def rate_limit(self, *, retry_after: bool) -> None:
        """The next request answers 429 (with or without Retry-After / the reset header)."""
        raise NotApplicable(f"{self.name} has no API rate limit")

    def server_errors(self, count: int) -> None:
        """The next `count` requests answer 5xx."""
        raise NotApplicable(f"{self.name} has no server")


class World:
    """The harness, a registry serving it to both scopes, and the assets to run."""

    def __init__(
        self, harness: SourceHarness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        self.harness = harness
        registry = {
            "embedding": {"provider": "hash"},
            "store": {"engine": "edge"},
            "internal": {"sources": {harness.name: harness.settings("internal")}},
            "clients": {
                "acme": {
                    "name": "Acme",
                    "director": "maya",
                    "sources": {harness.name: harness.settings("acme")},
                }
            },
        }
        config = write_registry(tmp_path / "registry.yaml", registry)
        monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("KP_CONFIG", str(config))
        self.settings = Settings()
        self.materialize = Materializer(self.settings)
        self.results: dict[str, str] = {}

    def run(self, scope: str = "internal", *, full: bool = False) -> Any:
        """One ordinary run (or the weekly full pull) of the source for `scope`; fails the
        test if the run fails."""
        result = self.attempt(scope, full=full)
        if not result.success:
            failure = next((e for e in result.all_events if e.is_step_failure), None)
            data = failure.step_failure_data if failure else None
            raise AssertionError(
                f"{self.harness.name} run for {scope} failed: "
                f"{data.user_failure_data or data.error if data else '?'}"
            )
        return result

    def attempt(self, scope: str = "internal", *, full: bool = False) -> Any:
        """One run that may fail (its result says)."""
        tags = {"kp/full_pull": "true"} if full else None
        return self.materialize(self.harness.name, scope, tags=tags, raise_on_error=False)

    def checks(self, result: Any) -> dict[str, bool]:
        prefix = f"{self.harness.name}_"
        return {
            c.check_name.removeprefix(prefix): c.passed
            for c in result.get_asset_check_evaluations()
        }

    def cursor_file(self, scope: str = "internal") -> Path:
        """The source's stored cursor for `scope` (cursor.json, beside its snapshot)."""
        return SnapshotStore(self.settings.data_dir).dir(self.harness.name, scope) / "cursor.json"

    def pull(self, scope: str = "internal") -> tuple[PullResult, Merged]:
        """The raw step alone (an ordinary pull into the snapshot), as the raw asset runs it."""
        registry = load_registry(self.settings.config)
        snaps = SnapshotStore(self.settings.data_dir)
        return pull_step(registry, snaps, self.harness.name, scope)

    def indexed(self, scope: str = "internal") -> set[str]:
        """Source ids of the documents the raw snapshot holds for `scope`."""
        found = SnapshotStore(self.settings.data_dir).read_documents(self.harness.name, scope)
        return {d.source_id for d in found or []}

    def search(self, query: str, scope: str = "internal", limit: int = 20) -> list[Hit]:
        runtime = Runtime(self.settings)
        try:
            return runtime.retriever.search(scope, query, limit=limit)
        finally:
            runtime.close()

    def docs_with(self, phrase: str, scope: str = "internal") -> dict[str, Hit]:
        """doc_id -> best hit, for the documents whose text holds `phrase`."""
        found: dict[str, Hit] = {}
        for hit in self.search(phrase, scope):
            if phrase.lower() in hit.chunk.embedding_text().lower():
                found.setdefault(hit.chunk.doc_id, hit)
        return found

    def titles_with(self, phrase: str, scope: str = "internal") -> list[str]:
        return sorted(h.chunk.title for h in self.docs_with(phrase, scope).values())

    def expect(self, scenario: str, ok: bool, detail: str = "") -> None:
        """Record one scenario's outcome (the summary table shows it); `verify` fails the test
        if any recorded scenario failed."""
        assert scenario in SCENARIOS, scenario
        if self.results.get(scenario, "").startswith("FAIL"):
            return  # the first failure of a scenario is the one worth reading
        self.results[scenario] = "pass" if ok else f"FAIL {detail}".strip()

    def not_applicable(self, scenario: str, exc: NotApplicable) -> None:
        self.results[scenario] = f"n/a: {exc}"

    def verify(self) -> None:
        failed = {s: r for s, r in self.results.items() if r.startswith("FAIL")}
        assert not failed, f"{self.harness.name}: {failed}"
