"""The Retriever's fusion of dense and sparse results: the default top-scaled score blend
(hand-computed cases) and the store's RRF, both through a real Edge store."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_platform.embeddings.deterministic import HashEmbedder
from knowledge_platform.models import Hit, Point
from knowledge_platform.serve.retrieval import DEFAULT_FUSION, Fusion, Retriever, blend
from knowledge_platform.sparse import SparseEncoder
from knowledge_platform.store.edge import EdgeStore
from tests.store_fixtures import make_chunk


def hit(name: str, score: float) -> Hit:
    return Hit(chunk=make_chunk(source_id=name, n=ord(name[0])), score=score)


def ids(hits: list[Hit]) -> list[str]:
    return [h.chunk.source_id for h in hits]


def test_blend_scales_each_list_by_its_top_and_weights_them():
    dense = [hit("a", 0.8), hit("b", 0.4)]
    sparse = [hit("b", 10.0), hit("c", 5.0)]
    fused = blend(dense, sparse, dense_weight=0.5)
    # a: 0.5*1.0 + 0.5*0.5 (sparse floor: c's 5/10); b: 0.5*0.5 + 0.5*1.0; c: 0.5*0.5 + 0.5*0.5
    assert ids(fused) == ["a", "b", "c"]
    assert [h.score for h in fused] == pytest.approx([0.75, 0.75, 0.5])
    heavy_sparse = blend(dense, sparse, dense_weight=0.2)
    assert ids(heavy_sparse) == ["b", "a", "c"]
    assert heavy_sparse[0].score == pytest.approx(0.2 * 0.5 + 0.8 * 1.0)


def test_blend_with_one_list_empty_keeps_the_other_order():
    assert ids(blend([hit("a", 0.9), hit("b", 0.3)], [], dense_weight=0.65)) == ["a", "b"]
    assert ids(blend([], [hit("c", 2.0), hit("d", 3.0)], dense_weight=0.65)) == ["d", "c"]
    assert blend([], [], dense_weight=0.65) == []


def test_a_short_list_gives_its_absentees_nothing():
    """A sparse list shorter than asked holds every chunk with a query term: the one chunk that
    has a rare identifier is not levelled with the chunks that have none of it."""
    dense = [hit("a", 0.9), hit("b", 0.8), hit("c", 0.7)]
    sparse = [hit("c", 13.0)]
    fused = blend(dense, sparse, dense_weight=0.65, depth=3)
    # c: 0.65*0.7/0.9 + 0.35*1.0; a: 0.65*1.0 + 0.35*0 (a has no query term)
    assert ids(fused) == ["c", "a", "b"]
    assert fused[0].score == pytest.approx(0.65 * 0.7 / 0.9 + 0.35)
    # A list of unknown depth counts as full: its absentees ranked just below its last hit,
    # here level with c.
    assert ids(blend(dense, sparse, dense_weight=0.65)) == ["a", "b", "c"]


def test_the_one_chunk_with_the_query_terms_ranks_first(tmp_path: Path):
    """Forty look-alike notes and one note holding two words no other has, through a real
    Edge store: those two words find it first (they did not when the short sparse list's
    absentees got its top score)."""
    store = EdgeStore(tmp_path / "shards", optimize=False)
    embedder, sparse = HashEmbedder(), SparseEncoder()
    texts = {
        f"note-{i}": f"Notes on budget pacing for account {i}: the team agreed the next "
        f"steps, owners and dates for item {i}."
        for i in range(40)
    }
    texts["probe"] = "The probe words of run 7 are pineapple and tulip."
    points = []
    for n, (name, text) in enumerate(texts.items()):
        chunk = make_chunk(source_id=name, n=n, text=text)
        points.append(
            Point(
                id=chunk.id,
                dense=embedder.embed_documents([text])[0].tolist(),
                sparse=sparse.encode_document(text),
                payload=chunk.payload(),
            )
        )
    with store.writer("internal", embedder.model_id, embedder.dim) as writer:
        writer.upsert(points)
    try:
        retriever = Retriever(store, embedder, sparse)
        assert ids(retriever.search("internal", "pineapple tulip", limit=5))[0] == "probe"
        assert ids(retriever.search("internal", "tulip", limit=5))[0] == "probe"
    finally:
        store.close()


TEXTS = {
    "pricing": "Quarterly pricing review for the swatch catalogue and discount rules.",
    "hiring": "Hiring plan: two analysts join the analytics team in spring.",
    "launch": "Launch checklist for the swatch test: QA, tracking and the pricing page.",
}


@pytest.fixture
def retriever(tmp_path: Path):
    store = EdgeStore(tmp_path / "shards", optimize=False)
    embedder, sparse = HashEmbedder(), SparseEncoder()
    points = []
    for n, (name, text) in enumerate(TEXTS.items()):
        chunk = make_chunk(source_id=name, n=n, text=text)
        points.append(
            Point(
                id=chunk.id,
                dense=embedder.embed_documents([text])[0].tolist(),
                sparse=sparse.encode_document(text),
                payload=chunk.payload(),
            )
        )
    with store.writer("internal", embedder.model_id, embedder.dim) as writer:
        writer.upsert(points)
    yield Retriever(store, embedder, sparse)
    store.close()


def test_default_search_blends_and_rrf_remains_available(retriever: Retriever):
    assert retriever.fusion == DEFAULT_FUSION and DEFAULT_FUSION.method == "blend"
    blended = retriever.search("internal", "swatch pricing", limit=3)
    assert ids(blended)[0] in {"pricing", "launch"} and "hiring" not in ids(blended)[:2]
    assert all(0.0 <= h.score <= 1.0 for h in blended)
    assert blended[0].score == pytest.approx(max(h.score for h in blended))
    rrf = retriever.search("internal", "swatch pricing", limit=3, fusion=Fusion(method="rrf"))
    assert set(ids(rrf)[:2]) == set(ids(blended)[:2])


def test_limit_and_filters_apply_to_the_blend(retriever: Retriever):
    assert len(retriever.search("internal", "swatch pricing", limit=1)) == 1
    from knowledge_platform.store.base import SearchFilter

    none = retriever.search("internal", "swatch pricing", flt=SearchFilter(sources=["clickup"]))
    assert none == []


def test_searches_under_several_filters_at_once_answer_as_each_alone(retriever: Retriever):
    from knowledge_platform.store.base import SearchFilter

    pricing = SearchFilter(doc_ids=["memory_files:pricing", "memory_files:hiring"])
    searches = [(2, None), (1, pricing), (3, SearchFilter(sources=["clickup"]))]
    got = retriever.search_each("internal", "swatch pricing", searches)
    alone = [
        retriever.search("internal", "swatch pricing", limit=limit, flt=flt)
        for limit, flt in searches
    ]
    assert [[(h.chunk.id, h.score) for h in hits] for hits in got] == [
        [(h.chunk.id, h.score) for h in hits] for hits in alone
    ]
    assert ids(got[0]) == ids(alone[0]) and len(got[0]) == 2
    assert ids(got[1]) == ["pricing"] and got[2] == []


def test_stopword_only_query_falls_back_to_dense(retriever: Retriever):
    hits = retriever.search("internal", "the and of", limit=3)
    assert len(hits) == 3


def test_a_repeated_query_is_embedded_once(retriever: Retriever, monkeypatch):
    calls: list[str] = []
    embed = retriever.embedder.embed_query
    monkeypatch.setattr(
        retriever.embedder, "embed_query", lambda text: calls.append(text) or embed(text)
    )
    assert not retriever.embedded("swatch pricing")
    first = retriever.search("internal", "swatch pricing", limit=3)
    assert retriever.embedded(" swatch pricing") and not retriever.embedded("hiring plan")
    again = retriever.search("internal", "  swatch pricing ", limit=3)  # the same stripped
    other = retriever.search("internal", "hiring plan", limit=3)
    assert calls == ["swatch pricing", "hiring plan"]
    assert [(h.chunk.id, h.score) for h in again] == [(h.chunk.id, h.score) for h in first]
    assert ids(other)[0] == "hiring"
