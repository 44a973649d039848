"""PDF and PPTX files in a docs repository, through the real assets: each page's and slide's
text is found by search with its page/slide number, file name and MIME type in provenance;
an unchanged file is never converted again; a broken one is skipped with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from tests import office_files
from tests.assets.conftest import Materializer
from tests.conftest import write_registry
from tests.integration.test_git_docs import commit, git

pytestmark = pytest.mark.integration

PAGES = [
    "The tern audit starts the program.",
    "Milestone two: the puffin backlog.",
    "Page three sets the gannet budget.",
]
SLIDES = [
    ("Kittiwake results", "Conversion rose 4%.", "Mention the razorbill caveat."),
    ("Next steps", "Fulmar test in March.", ""),
]


def search(settings: Settings, query: str):
    runtime = Runtime(settings)
    try:
        return [h.chunk for h in runtime.retriever.search("internal", query, limit=5)]
    finally:
        runtime.close()


@pytest.fixture
def indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    repo = tmp_path / "handbook"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(
        repo,
        {
            "contracts/sow.pdf": office_files.pdf(PAGES),
            "decks/review.pptx": office_files.pptx(SLIDES),
            "contracts/locked.pdf": office_files.pdf(["secret"], password="pw"),
            "README.md": "# Handbook\n\nRead the contracts folder.\n",
        },
        day=1,
    )

    def configure(**files: object) -> Settings:
        source = {
            "repo": str(repo),
            "branch": "main",
            "globs": ["**/*.md", "**/*.pdf", "**/*.pptx"],
        }
        if files:
            source["files"] = files
        registry = {
            "embedding": {"provider": "hash"},
            "store": {"engine": "edge"},
            "internal": {"sources": {"git_docs": source}},
        }
        # A new file per configuration: a process keeps one Runtime per registry path.
        path = tmp_path / f"registry-{len(files)}-{sorted(files.items())}.yaml"
        monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("KP_CONFIG", str(write_registry(path, registry)))
        return Settings()

    settings = configure()
    run = Materializer(settings)
    return repo, configure, run, run("git_docs")


def test_pages_and_slides_are_found_with_their_numbers(indexed) -> None:
    _, configure, _, result = indexed
    settings = configure()
    for query, unit, number in [
        ("puffin backlog", "page", 2),
        ("gannet budget", "page", 3),
        ("razorbill caveat", "slide", 1),
        ("fulmar test", "slide", 2),
    ]:
        hit = next(c for c in search(settings, query) if query in c.text.lower())
        assert hit.extra[unit] == number, (query, hit.headers)
        assert hit.extra["mime_type"] in (
            "application/pdf",
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        )
        assert hit.extra["file_name"] in ("sow.pdf", "review.pptx")
        assert hit.uri and hit.uri.startswith("doc://git_docs/") and hit.version
    problems = Materializer.metadata(result, "raw")["problems"]
    assert "contracts/locked.pdf: " in problems and "not indexed" in problems


def test_an_unchanged_file_is_never_converted_again(indexed) -> None:
    repo, configure, _, _ = indexed
    commit(repo, {"README.md": "# Handbook\n\nRead the contracts and decks folders.\n"}, day=2)
    # A conversion could not finish in a millisecond: a file converted again would be
    # skipped for the time limit. The weekly full pull keeps both documents as they were.
    settings = configure(timeout_seconds=0.001)
    result = Materializer(settings)("git_docs", tags={"kp/full_pull": "true"})
    raw = Materializer.metadata(result, "raw")
    assert "sow.pdf" not in raw["problems"] and "review.pptx" not in raw["problems"]
    assert raw["documents"] == 3 and raw["kept_stale"] == 0
    assert any("gannet budget" in c.text.lower() for c in search(settings, "gannet budget"))
    # An edited file is converted again: here its new version is encrypted, so it is skipped
    # and its last good version kept stale (a deterministic failure, unlike the time limit).
    commit(
        repo,
        {"contracts/sow.pdf": office_files.pdf([*PAGES, "A fourth page."], password="pw")},
        day=3,
    )
    again = Materializer.metadata(Materializer(settings)("git_docs"), "raw")
    assert "contracts/sow.pdf: " in again["problems"] and again["kept_stale"] == 1
