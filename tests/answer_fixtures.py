"""What the answer tests share: a real Edge store and Retriever (hash embedder) over a few
chunks, hits in a given order, an extractive answer that looks up related passages
through that retriever, and the local model the service answers with."""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.embeddings.deterministic import HashEmbedder
from knowledge_platform.embeddings.factory import make_embedder
from knowledge_platform.models import Chunk, Hit, Point
from knowledge_platform.serve.answers.contract import Answer
from knowledge_platform.serve.answers.extractive import extractive_answer
from knowledge_platform.serve.retrieval import Retriever
from knowledge_platform.sparse import SparseEncoder
from knowledge_platform.store.edge import EdgeStore


@contextmanager
def hash_retriever(root: Path, chunks: Sequence[Chunk]) -> Iterator[Retriever]:
    store = EdgeStore(root / "shards", optimize=False)
    embedder, sparse = HashEmbedder(), SparseEncoder()
    points = [
        Point(
            id=c.id,
            dense=embedder.embed_documents([c.text])[0].tolist(),
            sparse=sparse.encode_document(c.text),
            payload=c.payload(),
        )
        for c in chunks
    ]
    with store.writer("internal", embedder.model_id, embedder.dim) as writer:
        writer.upsert(points)
    try:
        yield Retriever(store, embedder, sparse)
    finally:
        store.close()


def hits(*chunks: Chunk) -> list[Hit]:
    """The chunks as hits, best first in the order given."""
    return [Hit(chunk=c, score=1.0 - i / 10) for i, c in enumerate(chunks)]


def answer(
    question: str, found: Sequence[Hit], retriever: Retriever, named: Collection[str] = ()
) -> Answer:
    """The extractive answer, its related look-ups through `retriever` (threshold 0.3: the
    hash embedder's cosines are low); `named`: the doc ids the question names."""
    return extractive_answer(
        question,
        found,
        scope="internal",
        embedder=retriever.embedder,
        min_score=0.3,
        named=named,
        related=lambda text, limit: retriever.search("internal", text, limit=limit),
    )


def local_embedder() -> Embedder:
    """The local model the service answers with (from KP_MODEL_CACHE): what is alike in
    meaning is what this reads."""
    return make_embedder("local", cache_dir=Path(os.environ["KP_MODEL_CACHE"]), threads=1)
