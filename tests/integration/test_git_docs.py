"""git_docs against real git repositories made in the test: full, incremental, at_sha, clone."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from knowledge_platform.connectors.base import PullResult
from knowledge_platform.connectors.git_docs.connector import GitDocsConnector, GitDocsSettings
from knowledge_platform.errors import ConfigError, SourceError

pytestmark = pytest.mark.integration

_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}

QDRANT_ADR = """---
status: accepted
date: 2026-02-10
confidentiality: restricted
supersedes: decisions/0000-use-pgvector.md
applies_to: [internal, shade_store]
tags: [storage]
---
# Use Qdrant

## Context
We need a vector store.

## Decision
We use Qdrant for vectors.
It runs embedded by default.

## Consequences
One more service in production.
"""

PGVECTOR_ADR = """---
status: superseded
superseded_by: decisions/0001-use-qdrant.md
---
# Use pgvector

We keep vectors in Postgres.
"""

FILES: dict[str, str | bytes] = {
    "README.md": "# Handbook\n\nWelcome to the handbook.\n",
    "decisions/0001-use-qdrant.md": QDRANT_ADR,
    "decisions/0000-use-pgvector.md": PGVECTOR_ADR,
    "runbooks/deploy.md": "---\ntitle: Deploying\nlifecycle: draft\n---\nRun `make deploy`.\n",
    "docs/broken.md": "---\ntitle: [unclosed\n---\nBody.\n",
    "docs/retired.md": "---\nlifecycle: retired\n---\n# Retired\n",
    "docs/binary.md": b"\x89PNG\x00\x01\x02",
    "docs/latin1.md": "# Caf\xe9\n".encode("latin-1"),
    "assets/logo.png": b"\x89PNG\x00",
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=_ENV
    )
    return done.stdout.strip()


def commit(repo: Path, files: dict[str, str | bytes | None], day: int) -> str:
    for rel, content in files.items():
        path = repo / rel
        if content is None:
            git(repo, "rm", "-q", rel)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    git(repo, "add", "-A")
    stamp = f"2026-03-{day:02d}T12:00:00+00:00"
    subprocess.run(
        ["git", "-C", str(repo), "commit", "-q", "-m", f"day {day}"],
        check=True,
        env={**_ENV, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp},
    )
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "handbook"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return path, commit(path, dict(FILES), day=1)


def connector(repo: str | Path, **settings: Any) -> GitDocsConnector:
    data = {"repo": str(repo), "url_template": "https://git.example/h/blob/{sha}/{path}"}
    return GitDocsConnector(GitDocsSettings.model_validate({**data, **settings}), "internal")


def by_id(result: PullResult) -> dict[str, Any]:
    return {d.source_id: d for d in result.documents}


def test_full_pull_carries_provenance_and_reports_skips(repo: tuple[Path, str]) -> None:
    path, sha = repo
    result = connector(path).pull(None)

    assert result.full
    docs = by_id(result)
    assert set(docs) == {
        "README.md",
        "decisions/0001-use-qdrant.md",
        "decisions/0000-use-pgvector.md",
        "runbooks/deploy.md",
    }
    adr = docs["decisions/0001-use-qdrant.md"]
    assert (adr.kind, adr.title, adr.version, adr.lifecycle) == (
        "decision",
        "Use Qdrant",
        sha,
        "stable",
    )
    assert adr.confidentiality == "restricted"
    assert adr.date == dt.date(2026, 2, 10)
    assert adr.uri == f"doc://git_docs/decisions/0001-use-qdrant.md@{sha}"
    assert adr.url == f"https://git.example/h/blob/{sha}/decisions/0001-use-qdrant.md"
    assert adr.extra["supersedes"] == ["decisions/0000-use-pgvector.md"]
    assert adr.extra["applies_to"] == ["internal", "shade_store"]
    assert adr.extra["tags"] == ["storage"]
    assert adr.extra["head_sha"] == sha and adr.extra["path"] == adr.source_id
    assert adr.extra["decision"] == {
        "status": "accepted",
        "summary": "We use Qdrant for vectors. It runs embedded by default.",
    }
    assert "---" not in adr.text and adr.text.startswith("# Use Qdrant")
    old = docs["decisions/0000-use-pgvector.md"]
    assert old.lifecycle == "deprecated"
    assert old.extra["superseded_by"] == ["decisions/0001-use-qdrant.md"]
    assert old.extra["decision"]["summary"] == "We keep vectors in Postgres."
    runbook = docs["runbooks/deploy.md"]
    assert (runbook.kind, runbook.title, runbook.lifecycle) == ("runbook", "Deploying", "draft")
    readme = docs["README.md"]
    assert (readme.kind, readme.title, readme.confidentiality) == ("doc", "Handbook", "internal")
    assert readme.date == dt.date(2026, 3, 1)  # no front matter date: the commit's
    skipped = {s.source_id: s.reason for s in result.skipped}
    assert set(skipped) == {"docs/broken.md", "docs/retired.md", "docs/binary.md", "docs/latin1.md"}
    assert skipped["docs/broken.md"] == "front matter is not valid YAML at line 2"
    assert skipped["docs/retired.md"] == (
        "front matter lifecycle 'retired' is not one of stable, draft, deprecated"
    )
    assert "binary" in skipped["docs/binary.md"]
    assert "UTF-8" in skipped["docs/latin1.md"]
    assert result.cursor.sha == sha


def test_incremental_pull_reads_only_changed_paths(repo: tuple[Path, str]) -> None:
    path, first = repo
    conn = connector(path)
    cursor = conn.pull(None).cursor
    second = commit(
        path,
        {
            "runbooks/deploy.md": "---\ntitle: Deploying\n---\nRun `make ship`.\n",
            "new.md": "# New\n",
        },
        day=2,
    )

    result = conn.pull(cursor)

    assert not result.full
    docs = by_id(result)
    assert set(docs) == {"runbooks/deploy.md", "new.md"}
    assert docs["runbooks/deploy.md"].version == second
    assert "make ship" in docs["runbooks/deploy.md"].text
    assert docs["runbooks/deploy.md"].lifecycle == "stable"
    assert result.deleted == [] and result.skipped == []
    assert result.cursor.sha == second
    # An unchanged file keeps the commit that last changed it as its version.
    assert by_id(conn.pull(None))["README.md"].version == first


def test_deletes_and_renames_are_reported_as_deleted(repo: tuple[Path, str]) -> None:
    path, _ = repo
    conn = connector(path)
    cursor = conn.pull(None).cursor
    (path / "guide").mkdir()
    git(path, "mv", "README.md", "guide/README.md")
    commit(path, {"decisions/0000-use-pgvector.md": None}, day=3)

    result = conn.pull(cursor)

    assert sorted(result.deleted) == ["README.md", "decisions/0000-use-pgvector.md"]
    assert set(by_id(result)) == {"guide/README.md"}


def test_same_sha_is_no_work(repo: tuple[Path, str]) -> None:
    path, sha = repo
    conn = connector(path)
    cursor = conn.pull(None).cursor

    result = conn.pull(cursor)

    assert (result.documents, result.deleted, result.skipped, result.full) == ([], [], [], False)
    assert result.cursor.sha == sha
    assert result.requests <= 2  # open + resolve: no tree, no blobs, no diff


def test_at_sha_rebuilds_an_older_commit(repo: tuple[Path, str]) -> None:
    path, first = repo
    commit(path, {"runbooks/deploy.md": "---\ntitle: Deploying\n---\nNew text.\n"}, day=4)

    docs = by_id(connector(path, at_sha=first[:10]).pull(None, full=True))

    assert "make deploy" in docs["runbooks/deploy.md"].text
    assert docs["runbooks/deploy.md"].version == first
    assert docs["runbooks/deploy.md"].extra["head_sha"] == first


def test_a_change_that_breaks_front_matter_is_skipped_and_kept(repo: tuple[Path, str]) -> None:
    """The sync contract: a file that fails to read keeps its last good version (the merge
    marks it stale), as a full pull would; only `git rm` deletes."""
    path, _ = repo
    conn = connector(path)
    cursor = conn.pull(None).cursor
    commit(
        path, {"README.md": "---\nlifecycle: [\n---\n# Handbook\n", "docs/broken.md": "# Ok\n"}, 5
    )

    result = conn.pull(cursor)

    assert set(by_id(result)) == {"docs/broken.md"}
    assert [s.source_id for s in result.skipped] == ["README.md"]
    assert result.deleted == []


def test_clone_url_is_cloned_then_fetched(repo: tuple[Path, str], tmp_path: Path) -> None:
    path, sha = repo
    cache = tmp_path / "cache"
    conn = connector(f"file://{path}", cache_dir=str(cache), branch="main")

    first = conn.pull(None)
    assert first.cursor.sha == sha and len(first.documents) == 4
    assert len(list(cache.glob("*.git"))) == 1
    second_sha = commit(path, {"runbooks/new.md": "# New runbook\n"}, day=6)

    second = conn.pull(first.cursor)

    assert second.cursor.sha == second_sha
    assert [(d.source_id, d.kind) for d in second.documents] == [("runbooks/new.md", "runbook")]
    assert by_id(second)["runbooks/new.md"].extra["repo"] == f"file://{path}"


def test_globs_and_settings_change_force_a_full_pull(repo: tuple[Path, str]) -> None:
    path, _ = repo
    cursor = connector(path).pull(None).cursor

    result = connector(path, globs=["decisions/*.md"]).pull(cursor)

    assert result.full
    assert set(by_id(result)) == {"decisions/0001-use-qdrant.md", "decisions/0000-use-pgvector.md"}


def test_unknown_or_malformed_commit_is_refused(repo: tuple[Path, str]) -> None:
    path, _ = repo
    with pytest.raises(SourceError, match="no commit"):
        connector(path, at_sha="0" * 40).pull(None)
    # The asset layer sets at_sha with model_copy, which skips validation: still refused.
    settings = connector(path).config.model_copy(update={"at_sha": "--output=/tmp/x"})
    with pytest.raises(ConfigError, match="not a commit sha"):
        GitDocsConnector(settings, "internal").pull(None)
