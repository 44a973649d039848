"""No client's canary reaches `internal` or another client (issue #24), for every source that
reads several clients' data through one credential, configured the way the registry now
requires (every scope names what it reads; nothing is implicit), through the real assets,
asserting what search returns. Internal names the parent container (the agency's ClickUp
space, its shared drive, the whole handbook) that holds each client's own container, which
that client names: the most specific claim wins. The implicit configurations that leaked
before are refused when the registry is read. Supabase's canaries (filters, row-level
security, `shared`) are tests/integration/test_supabase_scopes.py's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from knowledge_platform.config.registry import parse_registry
from knowledge_platform.errors import ConfigError
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from tests.assets.conftest import Materializer
from tests.conftest import write_registry
from tests.fakes.clickup_server import ClickUpFake
from tests.fakes.google_server import FakeGoogle
from tests.integration.test_git_docs import git

SCOPES = ("internal", "acme", "bravo")
CANARY = {"internal": "kestrel canary", "acme": "albatross canary", "bravo": "cormorant canary"}
TEAM, TOKEN = "9001", "pk_42_CANARY"


def _registry(source: str, by_scope: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "embedding": {"provider": "hash"},
        "store": {"engine": "edge"},
        "internal": {"sources": {source: by_scope["internal"]}},
        "clients": {
            c: {"name": c.title(), "director": "maya", "sources": {source: by_scope[c]}}
            for c in ("acme", "bravo")
        },
    }


def _index_and_search(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    source: str,
    by_scope: dict[str, dict[str, Any]],
) -> dict[tuple[str, str], int]:
    """(canary's scope, searched scope) -> documents holding the canary there."""
    monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv(
        "KP_CONFIG", str(write_registry(tmp_path / "registry.yaml", _registry(source, by_scope)))
    )
    settings = Settings()
    run = Materializer(settings)
    for scope in SCOPES:
        assert run(source, scope).success
    runtime = Runtime(settings)
    try:
        return {
            (owner, scope): len(
                {
                    h.chunk.doc_id
                    for h in runtime.retriever.search(scope, phrase, limit=20)
                    if phrase in h.chunk.embedding_text().lower()
                }
            )
            for owner, phrase in CANARY.items()
            for scope in SCOPES
        }
    finally:
        runtime.close()


def _only_in_own_scope(found: dict[tuple[str, str], int], per_scope: int) -> None:
    leaks = {k: n for k, n in found.items() if k[0] != k[1] and n}
    assert leaks == {}, f"canaries outside their scope: {leaks}"
    assert all(found[s, s] == per_scope for s in SCOPES), found


def _refused(source: str, by_scope: dict[str, dict[str, Any]], says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        parse_registry(_registry(source, by_scope), Path("."))


@pytest.fixture
def clickup(monkeypatch: pytest.MonkeyPatch) -> Iterator[ClickUpFake]:
    fake = ClickUpFake(personal_token=TOKEN)
    monkeypatch.setenv("CLICKUP_TOKEN", TOKEN)
    fake.add_hierarchy(TEAM, "s-agency", None, "L-ops")
    fake.add_hierarchy(TEAM, "s-agency", "F-clients", "L-acme")
    fake.add_hierarchy(TEAM, "s-agency", "F-bravo", "L-bravo")
    for scope, list_id in (("internal", "L-ops"), ("acme", "L-acme"), ("bravo", "L-bravo")):
        fake.add_task(list_id, f"{scope} task", description=f"The {CANARY[scope]} task.")
        fake.add_doc(TEAM, f"doc-{scope}", f"{scope} doc", parent_id=list_id, parent_type="LIST")
        fake.add_page(f"doc-{scope}", f"p-{scope}", f"{scope} doc", f"The {CANARY[scope]} doc.")
    with fake:
        yield fake


def test_clickup_canaries_stay_in_their_scope(
    clickup: ClickUpFake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = {
        "base_url": clickup.url("/api/v2"),
        "docs_base_url": clickup.url("/api/v3"),
        "team_id": TEAM,
        "max_comments": 0,
    }
    by_scope = {
        "internal": {**base, "space_ids": ["s-agency"]},
        "acme": {**base, "list_ids": ["L-acme"]},
        "bravo": {**base, "folder_ids": ["F-bravo"]},
    }
    _only_in_own_scope(_index_and_search(tmp_path, monkeypatch, "clickup", by_scope), 2)
    _refused("clickup", {**by_scope, "internal": base}, "name what this scope reads")
    _refused(
        "clickup",
        {**by_scope, "bravo": {**base, "list_ids": ["L-acme"]}},
        "list_ids 'L-acme' is named by both acme and bravo",
    )


def test_google_drive_canaries_stay_in_their_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeGoogle()
    for name, value in fake.env().items():
        monkeypatch.setenv(name, value)
    with fake:
        drive = fake.add_shared_drive("drive-agency", "Agency drive")
        clients = fake.add_folder("Clients", drive, file_id="folder-clients")
        folders = {
            "internal": drive,
            "acme": fake.add_folder("Acme", clients, file_id="folder-acme"),
            "bravo": fake.add_folder("Bravo", clients, file_id="folder-bravo"),
        }
        for scope, parent in folders.items():
            fake.add_doc(f"{scope} doc", parent, f"The {CANARY[scope]} doc.\n")
        base = {**fake.endpoints(), "backoff_seconds": 0.01, "max_retries": 2}
        by_scope = {
            "internal": {**base, "shared_drive_ids": [drive]},
            "acme": {**base, "folder_ids": [folders["acme"]]},
            "bravo": {**base, "folder_ids": [folders["bravo"]]},
        }
        _only_in_own_scope(_index_and_search(tmp_path, monkeypatch, "google_drive", by_scope), 1)
    _refused(
        "google_drive",
        {**by_scope, "bravo": {**base, "folder_ids": [folders["acme"]]}},
        "folder_ids 'folder-acme' is named by both acme and bravo",
    )


def test_git_docs_canaries_stay_in_their_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "handbook"
    for scope, rel in (
        ("internal", "ops/rota.md"),
        ("acme", "clients/acme/brief.md"),
        ("bravo", "clients/bravo/brief.md"),
    ):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(f"# {scope}\n\nThe {CANARY[scope]} file.\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "handbook")
    base = {"repo": str(repo), "branch": "main"}
    by_scope = {
        "internal": {**base, "globs": ["**/*.md"]},
        "acme": {**base, "globs": ["clients/acme/**/*.md"]},
        "bravo": {**base, "globs": ["clients/bravo/*.md"]},
    }
    _only_in_own_scope(_index_and_search(tmp_path, monkeypatch, "git_docs", by_scope), 1)
    _refused("git_docs", {**by_scope, "internal": base}, "internal must name its globs")
