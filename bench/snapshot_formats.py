"""Snapshot files: the SnapshotStore (JSON Lines + .npz, snapshot_files.py) against the Parquet
files it replaced (polars, as knowledge_platform/snapshots.py wrote them up to 2716bd5), on a
realistic snapshot: N documents of three SciFact abstracts each (~4.5 KB), cut into ~900-char
chunks with full provenance, 384-d dense vectors and a sparse vector of one term per distinct
word. Write and read times (median of --repeat, both formats in turn within one run), file
sizes. Prints a table and writes it to bench/results/snapshot_formats.md.

polars is no longer installed: run it with an interpreter that has it, e.g. the "before"
environment of bench/install_footprint.py --keep, or without it for the new format alone.

    .venv/bin/python bench/snapshot_formats.py [--docs 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import DEFAULT_DATA, RESULTS, load_average  # noqa: E402
from knowledge_platform.ingest.snapshots import SnapshotStore  # noqa: E402
from knowledge_platform.models import (  # noqa: E402
    Chunk,
    Document,
    SparseVector,
    chunk_id,
    content_hash,
)

SOURCE, SCOPE, DIM = "google_drive", "internal", 384
Vectors = tuple[list[str], np.ndarray, list[SparseVector]]


def corpus(data: Path, n: int) -> tuple[list[Document], list[Chunk], Vectors]:
    abstracts = [json.loads(line) for line in (data / "corpus.jsonl").open()]
    docs = []
    for i in range(n):
        parts = [abstracts[(3 * i + k) % len(abstracts)] for k in range(3)]
        text = "\n\n".join(f"## {p['title']}\n\n{p['text']}" for p in parts)
        docs.append(
            Document(
                source=SOURCE,
                source_id=f"1x{i:07d}",
                scope=SCOPE,
                title=parts[0]["title"][:80],
                kind="doc",
                text=text,
                url=f"https://docs.google.com/document/d/1x{i:07d}/edit",
                version=f"{i}-2026-01-01T00:00:00.000Z",
                extra={
                    "mime_type": "application/vnd.google-apps.document",
                    "modified_time": "2026-01-01T00:00:00.000Z",
                },
            )
        )
    chunks = []
    for doc in docs:
        pieces = [doc.text[a : a + 900] for a in range(0, len(doc.text), 900)]
        for ordinal, piece in enumerate(pieces):
            chunks.append(
                Chunk(
                    id=chunk_id(SCOPE, SOURCE, doc.source_id, ordinal),
                    doc_id=doc.doc_id,
                    source=SOURCE,
                    source_id=doc.source_id,
                    scope=SCOPE,
                    title=doc.title,
                    kind=doc.kind,
                    url=doc.url,
                    version=doc.version,
                    text=piece,
                    headers=[doc.title],
                    ordinal=ordinal,
                    tokens=len(piece) // 4,
                    content_hash=content_hash(piece),
                    fingerprint=content_hash(f"{piece}|x"),
                    extra=doc.extra,
                )
            )
    rng = np.random.default_rng(0)
    dense = rng.standard_normal((len(chunks), DIM)).astype(np.float32)
    sparse = []
    for chunk in chunks:
        terms = len(set(chunk.text.lower().split()))
        idx = np.sort(rng.choice(2**31, terms, replace=False))
        sparse.append(
            SparseVector(indices=idx.tolist(), values=rng.random(terms).round(4).tolist())
        )
    return docs, chunks, ([c.content_hash for c in chunks], dense, sparse)


class ParquetStore:
    """The replaced Parquet layout: polars frames of JSON strings (documents, chunks) and of
    vector columns, written and read as snapshots.py did."""

    def __init__(self, root: Path) -> None:
        self.pl: Any = importlib.import_module("polars")  # not installed any more: see above
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def write_documents(self, docs: Sequence[Document]) -> None:
        pl = self.pl
        pl.DataFrame(
            {
                "source_id": [d.source_id for d in docs],
                "title": [d.title for d in docs],
                "json": [d.model_dump_json() for d in docs],
            },
            schema={"source_id": pl.String, "title": pl.String, "json": pl.String},
        ).write_parquet(self.root / "raw.parquet")

    def read_documents(self) -> list[Document]:
        frame = self.pl.read_parquet(self.root / "raw.parquet")
        return [Document.model_validate_json(j) for j in frame["json"]]

    def write_chunks(self, chunks: Sequence[Chunk], keys: dict[str, str]) -> None:
        pl = self.pl
        pl.DataFrame(
            {
                "id": [c.id for c in chunks],
                "doc_id": [c.doc_id for c in chunks],
                "content_hash": [c.content_hash for c in chunks],
                "doc_key": [keys.get(c.doc_id, "") for c in chunks],
                "json": [c.model_dump_json() for c in chunks],
            },
            schema={k: pl.String for k in ("id", "doc_id", "content_hash", "doc_key", "json")},
        ).write_parquet(self.root / "chunks.parquet")

    def read_chunks_by_key(self) -> dict[str, list[Chunk]]:
        frame = self.pl.read_parquet(self.root / "chunks.parquet")
        grouped: dict[str, list[Chunk]] = {}
        for key, data in zip(frame["doc_key"], frame["json"], strict=True):
            if key:
                grouped.setdefault(key, []).append(Chunk.model_validate_json(data))
        return grouped

    def write_embeddings(self, vectors: Vectors) -> None:
        pl = self.pl
        hashes, dense, sparse = vectors
        frame = pl.DataFrame(
            {
                "content_hash": hashes,
                "dense": dense,
                "sparse_indices": [s.indices for s in sparse],
                "sparse_values": [s.values for s in sparse],
            },
            schema={
                "content_hash": pl.String,
                "dense": pl.Array(pl.Float32, dense.shape[1]),
                "sparse_indices": pl.List(pl.UInt32),
                "sparse_values": pl.List(pl.Float32),
            },
        )
        frame.with_columns(pl.lit("bench").alias("model_id")).write_parquet(
            self.root / "embeddings.parquet"
        )

    def read_embeddings(self) -> dict[str, tuple[np.ndarray, SparseVector]]:
        frame = self.pl.read_parquet(self.root / "embeddings.parquet")
        dense = frame["dense"].to_numpy()
        return {
            h: (dense[i], SparseVector(indices=list(ix), values=list(vs)))
            for i, (h, ix, vs) in enumerate(
                zip(
                    frame["content_hash"],
                    frame["sparse_indices"],
                    frame["sparse_values"],
                    strict=True,
                )
            )
        }

    def sizes(self) -> dict[str, int]:
        return {p.name.split(".")[0]: p.stat().st_size for p in self.root.glob("*.parquet")}


class JsonLinesStore:
    """The SnapshotStore itself, behind the same five calls."""

    def __init__(self, root: Path) -> None:
        self.store, self.root = SnapshotStore(root), root / SOURCE / SCOPE

    def write_documents(self, docs: Sequence[Document]) -> None:
        self.store.write_documents(SOURCE, SCOPE, docs)

    def read_documents(self) -> list[Document]:
        return self.store.read_documents(SOURCE, SCOPE) or []

    def write_chunks(self, chunks: Sequence[Chunk], keys: dict[str, str]) -> None:
        self.store.write_chunks(SOURCE, SCOPE, chunks, keys)

    def read_chunks_by_key(self) -> dict[str, list[Chunk]]:
        return self.store.read_chunks_by_key(SOURCE, SCOPE)

    def write_embeddings(self, vectors: Vectors) -> None:
        self.store.write_embeddings(SOURCE, SCOPE, vectors[0], vectors[1], vectors[2], "bench")

    def read_embeddings(self) -> dict[str, tuple[np.ndarray, SparseVector]]:
        loaded = self.store.read_embeddings(SOURCE, SCOPE)
        return loaded[1] if loaded else {}

    def sizes(self) -> dict[str, int]:
        return {p.name.split(".")[0]: p.stat().st_size for p in self.root.iterdir()}


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    docs, chunks, vectors = corpus(args.data, args.docs)
    keys = {d.doc_id: d.content_hash[:16] for d in docs}
    work = Path(tempfile.mkdtemp(prefix="kp-snapfmt-"))
    stores: dict[str, Any] = {"JSON Lines + npz (SnapshotStore)": JsonLinesStore(work / "new")}
    try:
        stores["Parquet (polars, replaced)"] = ParquetStore(work / "parquet")
    except ImportError:
        print("polars is not installed: measuring the new format alone")
    steps: list[tuple[str, Callable[[Any], Any]]] = [
        ("write documents", lambda s: s.write_documents(docs)),
        ("read documents", lambda s: s.read_documents()),
        ("write chunks", lambda s: s.write_chunks(chunks, keys)),
        ("read chunks by key", lambda s: s.read_chunks_by_key()),
        ("write embeddings", lambda s: s.write_embeddings(vectors)),
        ("read embeddings", lambda s: s.read_embeddings()),
    ]
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeat):
        for step, run in steps:
            for name, store in stores.items():  # both formats in turn: the same load
                seconds, out = timed(lambda run=run, store=store: run(store))
                times.setdefault((step, name), []).append(seconds)
                if step == "read documents":
                    assert out == docs, name
                if step == "read chunks by key":
                    assert sum(map(len, out.values())) == len(chunks), name
                if step == "read embeddings":
                    assert len(out) == len(set(vectors[0])), name
    names = list(stores)
    lines = [
        "## snapshot_formats",
        "",
        f"{len(docs)} documents ({sum(len(d.text) for d in docs) / 1e6:.1f} MB of text), "
        f"{len(chunks)} chunks, {DIM}-d dense + sparse ("
        f"{statistics.mean(len(s.indices) for s in vectors[2]):.0f} terms on average); "
        f"seconds, median of {args.repeat}; {load_average()}",
        "",
        "| | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for step, _ in steps:
        cells = [f"{statistics.median(times[(step, n)]):.2f} s" for n in names]
        lines.append(f"| {step} | " + " | ".join(cells) + " |")
    sizes = {n: s.sizes() for n, s in stores.items()}
    for part in ("raw", "chunks", "embeddings"):
        cells = [f"{sizes[n].get(part, 0) / 1e6:.1f} MB" for n in names]
        lines.append(f"| {part} file | " + " | ".join(cells) + " |")
    table = "\n".join(lines) + "\n"
    print(table)
    (RESULTS / "snapshot_formats.md").write_text(table)


if __name__ == "__main__":
    main()
