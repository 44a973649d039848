"""Each API source's four assets for a client scope against its fake: index, search, then
change the source and check that only the changed chunks are embedded and the deleted
item's points are gone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from knowledge_platform.ingest.snapshots import SnapshotStore
from knowledge_platform.models import Chunk
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from tests.assets.conftest import Materializer
from tests.conftest import write_registry
from tests.fakes.clickup_server import ClickUpFake
from tests.fakes.google_server import FakeGoogle
from tests.fakes.supabase_server import SupabaseFake
from tests.fakes.website_server import WebsiteFake
from tests.integration.test_git_docs import commit, git

pytestmark = pytest.mark.integration

SCOPE = "acme"
CHECKS = (
    "collection_matches_chunks",
    "deletions_within_guard",
    "pull_complete",
    "single_embedding_model",
    "golden_questions",
)


class SourceRun:
    """One source configured for the `acme` client, materialized like a Dagster run would."""

    def __init__(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, cfg: dict[str, Any]
    ) -> None:
        registry = {
            "embedding": {"provider": "hash"},
            "store": {"engine": "edge"},
            "clients": {SCOPE: {"name": "Acme", "director": "maya", "sources": {source: cfg}}},
        }
        config = write_registry(tmp_path / "registry.yaml", registry)
        monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("KP_CONFIG", str(config))
        self.source = source
        self.settings = Settings()
        self.materialize = Materializer(self.settings)

    def run(self, tags: dict[str, str] | None = None) -> Any:
        result = self.materialize(self.source, SCOPE, tags=tags)
        checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
        assert checks == {f"{self.source}_{name}": True for name in CHECKS}
        return result

    def chunks(self) -> list[Chunk]:
        return SnapshotStore(self.settings.data_dir).read_chunks(self.source, SCOPE) or []

    def search(self, query: str, limit: int = 10) -> list[Chunk]:
        runtime = Runtime(self.settings)
        try:
            hits = runtime.retriever.search(SCOPE, query, limit=limit)
        finally:
            runtime.close()
        assert all((h.chunk.source, h.chunk.scope) == (self.source, SCOPE) for h in hits)
        return [h.chunk for h in hits]


def index_change_reindex(
    run: SourceRun,
    *,
    find: tuple[str, str],
    change: Callable[[], None],
    changed: tuple[str, str],
    gone: tuple[str, str],
    tags: dict[str, str] | None = None,
) -> None:
    """`find`/`gone`: (query, title); `changed`: (query, phrase the new text holds)."""
    first = run.run()
    assert run.materialize.metadata(first, "collection")["added"] > 0
    assert run.search(find[0])[0].title == find[1]
    assert gone[1] in {c.title for c in run.search(gone[0])}
    before = run.chunks()

    change()
    second = run.run(tags)

    after = run.chunks()
    new_hashes = {c.content_hash for c in after} - {c.content_hash for c in before}
    stale = {c.id for c in before} - {c.id for c in after}
    embeddings = run.materialize.metadata(second, "embeddings")
    collection = run.materialize.metadata(second, "collection")
    assert 0 < embeddings["embedded"] == len(new_hashes) < len(after)
    assert embeddings["cached"] == len({c.content_hash for c in after}) - len(new_hashes)
    assert collection["deleted"] == len(stale) > 0
    assert gone[1] not in {c.title for c in after}
    assert gone[1] not in {c.title for c in run.search(gone[0])}
    assert any(changed[1] in c.text for c in run.search(changed[0], limit=3))


def test_clickup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLICKUP_TOKEN", "pk_42_TESTTOKEN")
    with ClickUpFake() as fake:
        fake.add_hierarchy("9001", "s1", None, "L1")
        for task_id, name, description in [
            ("plan", "Swatch test plan", "## Goal\nLaunch the swatch experiment on product pages."),
            ("audit", "Analytics audit", "Audit the tracking plan and the checkout events."),
            ("pixel", "Retire legacy pixel", "Remove the obsolete marketing pixel from checkout."),
        ]:
            fake.add_task("L1", name, task_id=task_id, description=description)
        cfg = {"base_url": fake.url("/api/v2"), "docs_base_url": fake.url("/api/v3"),
               "list_ids": ["L1"], "max_comments": 0}  # fmt: skip
        run = SourceRun(tmp_path, monkeypatch, "clickup", cfg)

        def change() -> None:
            fake.update_task("plan", description="## Goal\nLaunch the swatch test in March.")
            fake.delete_task("pixel")

        # An ordinary run: the id sweep misses the deleted task and GET /task confirms it.
        index_change_reindex(
            run,
            find=("tracking plan checkout events audit", "Analytics audit"),
            change=change,
            changed=("swatch test March", "in March"),
            gone=("obsolete marketing pixel", "Retire legacy pixel"),
        )


def test_google_drive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_CLIENT_ID", "fake-client")
    monkeypatch.setenv("GOOGLE_CLIENT_SECRET", "fake-secret")
    monkeypatch.setenv("GOOGLE_REFRESH_TOKEN", "fake-refresh")
    with FakeGoogle() as fake:
        root = fake.add_folder("Acme", file_id="root")
        playbook = "# Onboarding\n\nKickoff agenda and the access checklist.\n"
        fake.add_doc("Playbook", root, playbook, file_id="doc-playbook")
        fake.add_doc("Pricing memo", root, "# Pricing\n\nTiered retainers.\n", file_id="doc-memo")
        fake.add_doc("Brand voice", root, "# Voice\n\nPlain, warm words.\n", file_id="doc-voice")
        cfg = {"folder_ids": [root], **fake.endpoints(), "backoff_seconds": 0.001}
        run = SourceRun(tmp_path, monkeypatch, "google_drive", cfg)

        def change() -> None:
            fake.modify("doc-voice", markdown="# Voice\n\nPlain, warm and confident words.\n")
            fake.delete("doc-memo")

        index_change_reindex(
            run,
            find=("kickoff agenda access checklist", "Playbook"),
            change=change,
            changed=("confident words voice", "confident"),
            gone=("tiered retainers pricing", "Pricing memo"),
        )


def test_supabase(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPABASE_SERVICE_KEY", "service-role-key")
    with SupabaseFake(key="service-role-key") as fake:
        fake.create_table("memory")
        fake.insert(
            "memory",
            {"id": 1, "title": "Kickoff call", "body": "Met the Acme growth team."},
            {"id": 2, "title": "Pricing change", "body": "Raised retainer prices."},
            {"id": 3, "title": "Hiring freeze", "body": "No new designers this quarter."},
            {"id": 4, "title": "Other client", "body": "The HOT kickoff call notes."},
        )
        for row in (1, 2, 3):
            fake.tables["memory"][row]["client_id"] = "acme"
        fake.tables["memory"][4]["client_id"] = "hot"
        table = {"name": "memory", "kind": "memory", "title_template": "{title}",
                 "text_template": "{title}\n\n{body}",
                 "filter": {"client_id": "eq.{scope}"}}  # fmt: skip
        run = SourceRun(tmp_path, monkeypatch, "supabase", {"url": fake.url(), "tables": [table]})

        def change() -> None:
            fake.update("memory", 2, body="Raised retainer prices by five percent.")
            fake.delete("memory", 3)

        # Incremental: rows with updated_at >= high water, plus the id sweep for deletions.
        index_change_reindex(
            run,
            find=("growth team kickoff", "Kickoff call"),
            change=change,
            changed=("retainer prices five percent", "five percent"),
            gone=("hiring freeze designers", "Hiring freeze"),
        )


def test_website(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def words(topic: str) -> str:
        return f"This page explains {topic} in enough words for the extractor to keep it."

    with WebsiteFake() as site:
        site.add_page("/about", "About us", words("the agency and its conversion experiments"))
        site.add_page("/services", "Services", words("our research services"))
        site.add_page("/blog/launch", "Launch post", words("the spring launch retrospective"))
        run = SourceRun(tmp_path, monkeypatch, "website", {"base_url": site.url()})

        def change() -> None:
            site.update_page("/services", "Services", words("our research and design services"))
            site.remove("/blog/launch", 404)

        # Incremental: conditional GETs; the 404 page is reported deleted.
        index_change_reindex(
            run,
            find=("agency conversion experiments", "About us"),
            change=change,
            changed=("research design services", "research and design"),
            gone=("spring launch retrospective", "Launch post"),
        )


def test_git_docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "handbook"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files: dict[str, str | bytes | None] = {
        "README.md": "# Handbook\n\nWelcome to the Acme handbook.\n",
        "runbooks/deploy.md": "# Deploying\n\nRun the deploy pipeline from main.\n",
        "docs/legacy.md": "# Legacy tracking\n\nThe old tag manager container.\n",
    }
    commit(repo, files, day=1)
    run = SourceRun(tmp_path, monkeypatch, "git_docs", {"repo": str(repo)})

    def change() -> None:
        commit(
            repo,
            {
                "runbooks/deploy.md": "# Deploying\n\nRun the deploy pipeline from a tag.\n",
                "docs/legacy.md": None,
            },
            day=2,
        )

    # Incremental: `git diff --name-status` between the indexed sha and the new head.
    index_change_reindex(
        run,
        find=("welcome handbook", "Handbook"),
        change=change,
        changed=("deploy pipeline tag", "from a tag"),
        gone=("old tag manager container", "Legacy tracking"),
    )
