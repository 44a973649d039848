"""Supersession links resolved over one snapshot, and merge_pull applying them."""

from __future__ import annotations

from typing import Any

from knowledge_platform.connectors.base import PullResult
from knowledge_platform.connectors.memory_files.connector import (
    MemoryFilesConnector,
    MemoryFilesSettings,
)
from knowledge_platform.ingest.sync import merge_pull
from knowledge_platform.models import Document
from knowledge_platform.supersession import SUCCESSOR, link_successors


def doc(sid: str, title: str = "", **extra: Any) -> Document:
    return Document(
        source="git_docs",
        source_id=sid,
        scope="internal",
        title=title or sid,
        text="text",
        kind="decision",
        extra=extra,
    )


def successors(docs: list[Document]) -> dict[str, str | None]:
    return {d.source_id: d.extra.get(SUCCESSOR) for d in docs}


def test_names_resolve_by_path_relative_path_stem_and_title() -> None:
    docs = [
        doc("adr/0001-a.md"),
        doc("adr/0002-b.md", supersedes=["0001-a.md"]),
        doc("adr/0003-c.md", "Use Qdrant"),
        doc("adr/0004-d.md", supersedes="use qdrant"),
        doc("adr/0005-e.md"),
        doc("notes/f.md", supersedes=["../adr/0005-e.md"]),
        doc("adr/0006-g.md", superseded_by="git_docs:adr/0007-h.md"),
        doc("adr/0007-h.md"),
    ]
    assert successors(link_successors(docs)) == {
        "adr/0001-a.md": "git_docs:adr/0002-b.md",
        "adr/0002-b.md": None,
        "adr/0003-c.md": "git_docs:adr/0004-d.md",
        "adr/0004-d.md": None,
        "adr/0005-e.md": "git_docs:notes/f.md",
        "notes/f.md": None,
        "adr/0006-g.md": "git_docs:adr/0007-h.md",
        "adr/0007-h.md": None,
    }


def test_explicit_successor_wins_and_unknown_names_are_kept_as_written() -> None:
    docs = [
        doc("a.md", superseded_by="c.md"),
        doc("b.md", supersedes="a.md"),
        doc("c.md"),
        doc("d.md", superseded_by="ADR 99 (another repo)"),
        doc("e.md", supersedes="zzz"),
    ]
    assert successors(link_successors(docs)) == {
        "a.md": "git_docs:c.md",
        "b.md": None,
        "c.md": None,
        "d.md": "ADR 99 (another repo)",
        "e.md": None,
    }


def test_a_document_never_supersedes_itself_and_unlinked_ones_are_untouched() -> None:
    docs = [doc("a.md", supersedes="a.md"), doc("b.md")]
    linked = link_successors(docs)
    assert successors(linked) == {"a.md": None, "b.md": None}
    assert all(x is y for x, y in zip(docs, linked, strict=True))


def test_merge_pull_links_over_the_whole_snapshot_and_drops_stale_links() -> None:
    merged = merge_pull(None, PullResult(documents=[doc("a.md"), doc("b.md")], full=True))
    first, stats = merged.documents, merged.stats
    assert successors(first) == {"a.md": None, "b.md": None} and stats.changed == 2
    # An incremental pull brings only the successor; the unchanged predecessor changes too.
    merged = merge_pull(first, PullResult(documents=[doc("c.md", supersedes="a.md")], full=False))
    second, stats = merged.documents, merged.stats
    assert successors(second)["a.md"] == "git_docs:c.md"
    assert stats.changed == 2  # c.md is new, a.md gained its successor
    # The successor is deleted: the link goes with it.
    merged = merge_pull(second, PullResult(documents=[], deleted=["c.md"], full=False))
    third, stats = merged.documents, merged.stats
    assert successors(third) == {"a.md": None, "b.md": None}
    assert (stats.changed, stats.deleted) == (1, 1)


def test_memory_files_link_through_front_matter(tmp_path) -> None:
    (tmp_path / "2026-01-05.md").write_text("# Pricing\n\nDecision: annual plans only.\n")
    (tmp_path / "2026-03-02.md").write_text(
        "---\nsupersedes: 2026-01-05\n---\n# Pricing again\n\nDecision: monthly plans too.\n"
    )
    connector = MemoryFilesConnector(MemoryFilesSettings(path=tmp_path), "internal")
    merged = merge_pull(None, connector.pull(None))
    docs = merged.documents
    assert successors(docs) == {
        "2026-01-05.md": "memory_files:2026-03-02.md",
        "2026-03-02.md": None,
    }
