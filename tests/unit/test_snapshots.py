"""Snapshots under KP_HOME: what a step writes, the next step reads back unchanged; a file cut
short is refused in one line; a KP_HOME from before (Parquet snapshots, tests/data/
legacy_snapshot, written by the Parquet SnapshotStore at 2716bd5) is never read as an empty
or partial snapshot, and each step's write replaces its Parquet file."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from knowledge_platform.ingest.snapshot_files import SnapshotError
from knowledge_platform.ingest.snapshots import SnapshotStore
from knowledge_platform.ingest.sync_state import SyncState
from knowledge_platform.models import Document, SparseVector
from tests.store_fixtures import make_chunk, random_sparse

LEGACY = Path(__file__).resolve().parents[1] / "data" / "legacy_snapshot"


def docs() -> list[Document]:
    texts = ["# Plan\nLine one\n\nand a \u2028 separator", "Zweite Notiz: Grüße", ""]
    return [
        Document(
            source="git_docs",
            source_id=f"d{i}.md",
            scope="acme",
            title=f"Doc {i}",
            kind="runbook",
            text=text,
            extra={"commit": "abc", "n": i},
        )
        for i, text in enumerate(texts)
    ]


def test_documents_chunks_and_vectors_read_back_as_written(tmp_path: Path) -> None:
    snaps = SnapshotStore(tmp_path)
    snaps.write_documents("git_docs", "acme", docs())
    assert snaps.read_documents("git_docs", "acme") == docs()

    chunks = [
        make_chunk(source="git_docs", n=n, source_id=f"d{n // 2}.md", text=f"t{n}\nx")
        for n in range(4)
    ]
    snaps.write_chunks("git_docs", "acme", chunks, {"git_docs:d0.md": "k0"})
    assert snaps.read_chunks("git_docs", "acme") == chunks
    assert snaps.read_chunks_by_key("git_docs", "acme") == {"k0": chunks[:2]}

    rng = random.Random(3)
    dense = np.random.default_rng(3).standard_normal((3, 16)).astype(np.float32)
    sparse = [random_sparse(rng), SparseVector(indices=[], values=[]), random_sparse(rng, 2)]
    snaps.write_embeddings("git_docs", "acme", ["h0", "h1", "h2"], dense, sparse, "m-16")
    loaded = snaps.read_embeddings("git_docs", "acme")
    assert loaded is not None
    model_id, vectors = loaded
    assert model_id == "m-16" and list(vectors) == ["h0", "h1", "h2"]
    for i, h in enumerate(["h0", "h1", "h2"]):
        assert np.array_equal(vectors[h][0], dense[i])
        assert vectors[h][1].indices == sparse[i].indices
        assert vectors[h][1].values == pytest.approx(sparse[i].values)


def test_empty_snapshots_are_not_missing_ones(tmp_path: Path) -> None:
    snaps = SnapshotStore(tmp_path)
    assert snaps.read_documents("git_docs", "acme") is None
    assert snaps.read_embeddings("git_docs", "acme") is None
    snaps.write_documents("git_docs", "acme", [])
    snaps.write_chunks("git_docs", "acme", [])
    snaps.write_embeddings("git_docs", "acme", [], np.zeros((0, 8), np.float32), [], "m")
    assert snaps.read_documents("git_docs", "acme") == []
    assert snaps.read_chunks("git_docs", "acme") == []
    assert snaps.read_chunks_by_key("git_docs", "acme") == {}
    assert snaps.read_embeddings("git_docs", "acme") == ("", {})


def test_a_file_cut_short_is_refused_in_one_line(tmp_path: Path) -> None:
    snaps = SnapshotStore(tmp_path)
    snaps.write_documents("git_docs", "acme", docs())
    raw = snaps.dir("git_docs", "acme") / "raw.jsonl"
    raw.write_bytes(raw.read_bytes()[:-40])
    with pytest.raises(SnapshotError) as cut:
        snaps.read_documents("git_docs", "acme")
    assert "cut short" in str(cut.value) and "\n" not in str(cut.value)
    vectors = snaps.dir("git_docs", "acme") / "embeddings.npz"
    vectors.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(SnapshotError, match=r"embeddings\.npz is not a snapshot"):
        snaps.read_embeddings("git_docs", "acme")


def test_parquet_snapshots_from_before_count_as_absent_with_their_cursor(tmp_path: Path) -> None:
    snaps = SnapshotStore(tmp_path)
    home = snaps.dir("git_docs", "acme")
    shutil.copytree(LEGACY, home)
    snaps.write_cursor("git_docs", "acme", {"sha": "0123"})
    snaps.write_sync("git_docs", "acme", SyncState(retry=["a.md"]))
    # Not readable here: absent, and so is the cursor of the documents they held (a full pull)
    assert snaps.read_documents("git_docs", "acme") is None
    assert snaps.read_cursor("git_docs", "acme") is None
    assert snaps.read_chunks("git_docs", "acme") is None
    assert snaps.read_chunks_by_key("git_docs", "acme") == {}
    assert snaps.read_embeddings("git_docs", "acme") is None
    assert snaps.read_sync("git_docs", "acme") == SyncState(retry=["a.md"])  # JSON, as before

    snaps.write_documents("git_docs", "acme", docs())  # the raw step, as sync.py runs it
    snaps.write_cursor("git_docs", "acme", {"sha": "4567"})
    assert snaps.read_cursor("git_docs", "acme") == {"sha": "4567"}
    assert sorted(p.name for p in home.glob("*.parquet")) == [
        "chunks.parquet",
        "embeddings.parquet",
    ]
    snaps.write_chunks("git_docs", "acme", [])
    snaps.write_embeddings("git_docs", "acme", [], np.zeros((0, 8), np.float32), [], "m")
    assert list(home.glob("*.parquet")) == []
