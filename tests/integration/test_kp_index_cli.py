"""`kp index` end to end through the CLI: the printed figures, a no-op re-run, a bad source,
and `--at <sha>` rebuilding an older version of a git repo."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from knowledge_platform.models import Chunk
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from kp.app import app
from tests.conftest import write_registry
from tests.integration.test_git_docs import commit, git

pytestmark = pytest.mark.integration

INDEX = ["index", "--source", "git_docs", "--scope", "internal"]
OLD_DEPLOY = "# Deploying\n\nRun the deploy pipeline from the main branch.\n"
NEW_DEPLOY = "# Deploying\n\nRun the deploy pipeline from a signed release tag.\n"


def kp(*args: str) -> dict[str, str]:
    """Run `kp ...`, expect success, return the git_docs row of the printed table."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    row = kp_row(result)
    assert (row["source"], row["scope"], row["checks"]) == ("git_docs", "internal", "ok")
    return row


def figures(row: dict[str, str], *names: str) -> tuple[int, ...]:
    return tuple(int(row[n]) for n in names)


def search(query: str) -> list[Chunk]:
    runtime = Runtime(Settings())
    try:
        return [h.chunk for h in runtime.retriever.search("internal", query, limit=3)]
    finally:
        runtime.close()


def texts(query: str) -> list[str]:
    return [c.text for c in search(query)]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """A repo of two commits, git_docs configured on it; returns (old sha, head sha)."""
    path = tmp_path / "handbook"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    old = commit(
        path,
        {
            "README.md": "# Handbook\n\nWelcome to the handbook.\n",
            "runbooks/deploy.md": OLD_DEPLOY,
            "docs/legacy.md": "# Legacy tracking\n\nThe old tag manager container.\n",
        },
        day=1,
    )
    head = commit(path, {"runbooks/deploy.md": NEW_DEPLOY, "docs/legacy.md": None}, day=2)
    registry = {
        "embedding": {"provider": "hash"},
        "store": {"engine": "edge"},
        "internal": {"sources": {"git_docs": {"repo": str(path)}}},
    }
    monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("KP_CONFIG", str(write_registry(tmp_path / "registry.yaml", registry)))
    return old, head


def test_unknown_source_is_a_one_line_error(repo: tuple[str, str]) -> None:
    result = CliRunner().invoke(app, ["index", "--source", "nosuch"])
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: nothing to index: source nosuch is not configured")
    assert lines[0].endswith("registry.yaml")


def test_index_shows_each_step_with_its_figures_and_the_wall_time(repo: tuple[str, str]) -> None:
    result = CliRunner().invoke(app, INDEX)
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert lines[0] == "indexing 1 source x scope pair(s); loading Dagster …"  # at once
    steps = [ln.split() for ln in lines if ln.startswith("git_docs / internal  ")]
    assert [s[3] for s in steps] == ["raw", "chunks", "embeddings", "collection"]
    says = {s[3]: " ".join(s[4:]) for s in steps}
    assert says["raw"].startswith("2 documents pulled, 0 skipped (")
    assert re.fullmatch(r"\d+ chunks \(\d+\.\d s\)", says["chunks"])
    assert re.fullmatch(r"(\d+) embedded, 0 cached \(\d+\.\d s\)", says["embeddings"])
    wall = re.fullmatch(r"done in (\d+\.\d) s wall, Dagster and model start-up included", lines[-1])
    assert wall and float(wall[1]) >= float(kp_row(result)["seconds"])


def kp_row(result) -> dict[str, str]:
    lines = [ln.replace("┃", "│") for ln in result.stdout.splitlines() if "│" in ln or "┃" in ln]
    header, *rows = ([cell.strip() for cell in ln.strip().strip("│").split("│")] for ln in lines)
    (row,) = (dict(zip(header, r, strict=True)) for r in rows)
    return row


def test_index_rerun_and_rebuild_at_an_older_commit(repo: tuple[str, str]) -> None:
    old, _ = repo
    first = kp(*INDEX)
    documents, chunks, embedded = figures(first, "documents", "chunks", "embedded")
    assert documents == 2 and chunks >= 2 and embedded == chunks
    assert figures(first, "added", "deleted") == (chunks, 0)

    second = kp(*INDEX)
    assert figures(second, "documents", "embedded", "cached") == (2, 0, embedded)
    assert figures(second, "added", "updated", "deleted", "unchanged") == (0, 0, 0, chunks)
    assert any("signed release tag" in t for t in texts("deploy pipeline"))

    # The old deploy text and the legacy file (one chunk each) were never embedded.
    rebuilt = kp(*INDEX, "--at", old)
    assert figures(rebuilt, "documents", "embedded", "added") == (3, 2, 1)
    found = texts("deploy pipeline")
    assert any("main branch" in t for t in found)
    assert not any("signed release tag" in t for t in found)
    assert "Legacy tracking" in {c.title for c in search("old tag manager container")}

    again = kp(*INDEX, "--at", old)
    assert figures(again, "documents", "embedded") == (3, 0)
    assert figures(again, "added", "updated", "deleted") == (0, 0, 0)

    # Back to the branch tip: an ordinary incremental run diffs the rebuilt sha against HEAD.
    restored = kp(*INDEX)
    assert figures(restored, "documents", "embedded", "updated", "deleted") == (2, 0, 1, 1)
    found = texts("deploy pipeline")
    assert any("signed release tag" in t for t in found)
    assert not any("main branch" in t for t in found)


def test_a_failing_sub_resource_is_one_printed_line_and_the_run_succeeds(
    repo: tuple[str, str], tmp_path: Path
) -> None:
    kp(*INDEX)
    path = tmp_path / "handbook"
    commit(
        path,
        {
            "runbooks/deploy.md": b"\xff\xfe not UTF-8",
            "docs/new.md": "# New\n\nA new page about the kiwi rota.\n",
        },
        day=3,
    )
    result = CliRunner().invoke(app, INDEX)
    assert result.exit_code == 0, result.output
    lines = [ln for ln in result.stdout.splitlines() if ln.startswith("git_docs/internal: ")]
    assert lines == [
        "git_docs/internal: runbooks/deploy.md: not valid UTF-8 (byte 0) -> kept "
        "the last good version"
    ], result.stdout
    assert "pull_complete" in result.stdout  # the warning check is listed as failing
    assert any("kiwi rota" in t for t in texts("kiwi rota"))  # the rest was indexed
    kept = search("signed release tag")
    assert kept and kept[0].extra.get("stale") == "not valid UTF-8 (byte 0)"
