"""Helpers that build chunks and points for the store tests (and the store benchmark)."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from knowledge_platform.models import Chunk, Point, SparseVector, chunk_id, content_hash

DIM = 16
MODEL = "test-model"


def unit(vector: list[float]) -> list[float]:
    norm = sum(x * x for x in vector) ** 0.5 or 1.0
    return [x / norm for x in vector]


def random_dense(rng: random.Random, dim: int = DIM) -> list[float]:
    return unit([rng.gauss(0, 1) for _ in range(dim)])


def random_sparse(rng: random.Random, terms: int = 8, vocab: int = 5000) -> SparseVector:
    indices = sorted(rng.sample(range(vocab), terms))
    return SparseVector(indices=indices, values=[rng.random() + 0.1 for _ in indices])


def make_chunk(
    scope: str = "internal", source: str = "memory_files", n: int = 0, **fields: Any
) -> Chunk:
    source_id = fields.pop("source_id", f"doc-{n}.md")
    text = fields.pop("text", f"chunk {n} of {source}")
    base: dict[str, Any] = {
        "id": chunk_id(scope, source, source_id, 0),
        "doc_id": f"{source}:{source_id}",
        "source": source,
        "source_id": source_id,
        "scope": scope,
        "title": f"Doc {n}",
        "text": text,
        "headers": [],
        "ordinal": 0,
        "kind": "memory",
        "content_hash": content_hash(text),
        "fingerprint": content_hash(f"{text}|{n}"),
        "date": date(2024, 1, 1) + timedelta(days=n),
    }
    base.update(fields)
    return Chunk(**base)


def make_point(
    chunk: Chunk,
    rng: random.Random | None = None,
    *,
    dense: list[float] | None = None,
    sparse: SparseVector | None = None,
    dim: int = DIM,
) -> Point:
    rng = rng or random.Random(chunk.id)
    return Point(
        id=chunk.id,
        dense=dense or random_dense(rng, dim),
        sparse=sparse or random_sparse(rng),
        payload=chunk.payload(),
    )


def make_points(
    count: int,
    *,
    scope: str = "internal",
    source: str = "memory_files",
    seed: int = 0,
    dim: int = DIM,
    start: int = 0,
    **fields: Any,
) -> list[Point]:
    rng = random.Random(seed)
    return [
        make_point(make_chunk(scope, source, start + i, **fields), rng, dim=dim)
        for i in range(count)
    ]


def chunk_file(
    path: str, text: str, day: date | None = None, kind: str = "standing", title: str = ""
) -> list[Chunk]:
    """The chunks the default chunker makes of a memory file `path` holding `text`, dated
    `day` with `kind` as its source would say, titled `title` (default: its path)."""
    from knowledge_platform.ingest.chunking import Chunker
    from knowledge_platform.ingest.tokens import WordPieceCounter
    from knowledge_platform.models import Document

    doc = Document(
        id=f"memory_files:{path}",
        source="memory_files",
        source_id=path,
        scope="internal",
        title=title or path,
        text=text,
        date=day,
        time_kind=kind,  # type: ignore[arg-type]
        kind="memory",
    )
    return Chunker(WordPieceCounter(), 400).chunk(doc)
