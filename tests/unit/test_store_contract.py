"""One contract, two engines: Qdrant Edge (for real, in tmp_path) and qdrant-client's local
mode (`:memory:`, the stand-in for a Qdrant server)."""

from __future__ import annotations

import random
import tempfile
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from knowledge_platform.doc_names import name_keys, question_keys
from knowledge_platform.errors import ModelMismatchError, StoreError
from knowledge_platform.models import SparseVector
from knowledge_platform.store.base import (
    Scored,
    SearchFilter,
    VectorQuery,
    VectorStore,
    collection_name,
)
from knowledge_platform.store.edge import EdgeStore
from knowledge_platform.store.factory import make_store
from knowledge_platform.store.server import QdrantServerStore
from tests.store_fixtures import DIM, MODEL, make_chunk, make_point, make_points


@pytest.fixture(params=["edge", "qdrant"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore]:
    if request.param == "qdrant":
        engine: VectorStore = QdrantServerStore(QdrantClient(":memory:"))
        yield engine
        engine.close()
        return
    # tmpfs when there is one: the same code, minus fsync latency (the Edge-specific tests
    # in test_store_edge.py run on the real disk)
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else tmp_path) as root:
        engine = EdgeStore(Path(root))
        yield engine
        engine.close()


def write(store: VectorStore, points, scope: str = "internal", deletes=()) -> None:
    with store.writer(scope, MODEL, DIM) as w:
        w.upsert(points)
        if deletes:
            w.delete(list(deletes))


def ids(hits) -> list[str]:
    return [h.chunk.id for h in hits]


def test_collection_is_created_on_first_write(store: VectorStore):
    assert store.info("internal") is None
    assert store.count("internal") == 0
    assert store.search("internal", [1.0] * DIM, None, limit=3) == []
    write(store, make_points(3))
    info = store.info("internal")
    assert info is not None
    assert (info.name, info.model_id, info.dim, info.points) == ("internal", MODEL, DIM, 3)


def test_another_model_or_dimension_is_refused(store: VectorStore):
    write(store, make_points(1))
    with (
        pytest.raises(ModelMismatchError, match="test-model"),
        store.writer("internal", "other-model", DIM),
    ):
        pass
    with pytest.raises(ModelMismatchError), store.writer("internal", MODEL, DIM * 2):
        pass
    with pytest.raises(ModelMismatchError, match="32-d"), store.writer("internal", MODEL, DIM) as w:
        w.upsert(make_points(1, dim=DIM * 2, seed=9, start=50))
    assert store.count("internal") == 1


@pytest.mark.parametrize("mode", ["dense", "sparse", "hybrid"])
def test_upsert_then_search_finds_the_point(store: VectorStore, mode: str):
    points = make_points(30)
    write(store, points)
    target = points[7]
    hits = store.search("internal", target.dense, target.sparse, limit=5, mode=mode)  # type: ignore[arg-type]
    assert hits[0].chunk.id == target.id
    assert hits[0].chunk.text == "chunk 7 of memory_files"
    assert hits[0].chunk.date == date(2024, 1, 8)
    assert len(hits) == (1 if mode == "sparse" else 5)  # sparse finds shared terms only


def test_hybrid_fuses_both_lists(store: VectorStore):
    points = make_points(30)
    write(store, points)
    # dense points at #3, sparse at #11: both must surface in the fused top 2
    hits = store.search("internal", points[3].dense, points[11].sparse, limit=2, prefetch=10)
    assert set(ids(hits)) == {points[3].id, points[11].id}


def test_a_batch_answers_each_query_as_a_single_search_would(store: VectorStore):
    points = make_points(30)
    write(store, points)
    batch = [
        VectorQuery(dense=points[3].dense, limit=4, mode="dense"),
        VectorQuery(sparse=SparseVector(indices=[], values=[]), limit=4, mode="sparse"),
        VectorQuery(sparse=points[11].sparse, limit=3, mode="sparse"),
        VectorQuery(points[5].dense, points[20].sparse, limit=2, prefetch=10),
    ]
    got = store.search_batch("internal", batch, flt=SearchFilter(sources=["memory_files"]))

    def ranked(hits) -> list[tuple[float, str]]:  # equal scores may come in either order
        return sorted((-round(h.score, 4), h.chunk.id) for h in hits)

    assert [ranked(hits) for hits in got] == [
        ranked(
            store.search(
                "internal",
                q.dense,
                q.sparse,
                limit=q.limit,
                mode=q.mode,
                prefetch=q.prefetch,
                flt=SearchFilter(sources=["memory_files"]),
            )
        )
        for q in batch
    ]
    assert got[0][0].chunk.id == points[3].id and got[1] == [] and len(got[3]) == 2
    assert store.search_batch("internal", batch, flt=SearchFilter(sources=[])) == [[]] * 4
    assert store.search_batch("client_x_absent", batch[:1]) == [[]]


def test_a_fused_search_reads_payloads_of_the_ranked_ids_only(store: VectorStore):
    points = make_points(30)
    write(store, points)
    batch = [
        VectorQuery(dense=points[3].dense, limit=8, mode="dense"),
        VectorQuery(sparse=points[11].sparse, limit=8, mode="sparse"),
    ]
    seen: list[list[list[Scored]]] = []

    def fuse(lists: list[list[Scored]]) -> list[Scored]:
        if not any(lists):
            return []
        seen.append(lists)  # (id, score) of each query, best first
        return [*lists[1][:2], (lists[0][0][0], 9.5), ("00000000-0000-0000-0000-000000000000", 1.0)]

    flt = SearchFilter(sources=["memory_files"])
    hits = store.search_fused("internal", batch, fuse, flt=flt)
    (lists,) = seen

    def ranked(pairs: list[Scored]) -> list[tuple[float, str]]:  # ties: any order
        return sorted((-round(score, 4), str(cid)) for cid, score in pairs)

    assert [ranked(found) for found in lists] == [
        ranked([(h.chunk.id, h.score) for h in hits])
        for hits in store.search_batch("internal", batch, flt=flt)
    ]
    # in fuse's order, with fuse's scores and whole chunks; an id no point has is left out
    # (ids as the engine gives them: their str() is the chunk id)
    want = [*lists[1][:2], (points[3].id, 9.5)]
    assert [(h.chunk.id, h.score) for h in hits] == [(str(i), score) for i, score in want]
    assert hits[2].chunk.text == "chunk 3 of memory_files"
    assert store.search_fused("internal", batch, fuse, flt=SearchFilter(sources=[])) == []
    assert store.search_fused("client_x_absent", batch, fuse) == []


def test_a_query_with_its_own_filter_is_searched_under_it(store: VectorStore):
    points = [*make_points(10), *make_points(10, source="clickup", seed=1)]
    write(store, points)
    clickup, nothing = SearchFilter(sources=["clickup"]), SearchFilter(sources=[])
    dense = points[3].dense
    batch = [
        VectorQuery(dense=dense, limit=5, mode="dense"),
        VectorQuery(dense=dense, limit=5, mode="dense", flt=clickup),
        VectorQuery(dense=dense, limit=5, mode="dense", flt=nothing),
    ]
    memory = SearchFilter(sources=["memory_files"])
    mine, theirs, none = store.search_batch("internal", batch, flt=memory)
    assert {h.chunk.source for h in mine} == {"memory_files"}  # the batch's filter
    assert {h.chunk.source for h in theirs} == {"clickup"} and none == []
    assert ids(theirs) == ids(
        store.search("internal", dense, None, limit=5, flt=clickup, mode="dense")
    )

    def both(lists: list[list[Scored]]) -> list[Scored]:
        return [best for found in lists for best in found[:1]]

    fused = store.search_fused("internal", batch[:2], both, flt=memory)
    assert [h.chunk.source for h in fused] == ["memory_files", "clickup"]
    assert store.search_fused("internal", batch[2:], both) == []


def test_reupsert_overwrites_without_duplicating(store: VectorStore):
    points = make_points(5)
    write(store, points)
    changed = make_point(
        make_chunk(n=2, text="rewritten"), dense=points[2].dense, sparse=points[2].sparse
    )
    assert changed.id == points[2].id
    write(store, [changed])
    assert store.count("internal") == 5
    hit = store.search("internal", points[2].dense, None, limit=1, mode="dense")[0]
    assert hit.chunk.text == "rewritten"


def test_delete_removes_points(store: VectorStore):
    points = make_points(5)
    write(store, points)
    write(store, [], deletes=[points[0].id, points[1].id])
    assert store.count("internal") == 3
    assert points[0].id not in ids(store.search("internal", points[0].dense, None, limit=5))


def test_filters(store: VectorStore):
    rng = random.Random(1)
    chunks = [
        make_chunk(n=0, kind="task"),
        make_chunk(n=1, kind="doc", lifecycle="draft"),
        make_chunk(n=2, kind="doc", confidentiality="restricted"),
        make_chunk(source="clickup", n=3, kind="decision", date=date(2025, 6, 1)),
        make_chunk(n=4, kind="doc", lifecycle="deprecated", date=None),
    ]
    write(store, [make_point(c, rng) for c in chunks])
    q = [1.0] * DIM

    def found(flt: SearchFilter | None) -> set[int]:
        hits = store.search("internal", q, None, limit=10, flt=flt, mode="dense")
        scrolled = {c.title for c in store.scroll("internal", flt)}
        assert scrolled == {h.chunk.title for h in hits}  # scroll honours the same filter
        return {int(h.chunk.title.split()[1]) for h in hits}

    assert found(None) == {0, 2, 3}  # stable only by default
    assert found(SearchFilter(lifecycles=None)) == {0, 1, 2, 3, 4}
    assert found(SearchFilter(lifecycles=["draft", "deprecated"])) == {1, 4}
    assert found(SearchFilter(sources=["clickup"])) == {3}
    assert found(SearchFilter(kinds=["doc", "task"], lifecycles=None)) == {0, 1, 2, 4}
    assert found(SearchFilter(doc_ids=[chunks[0].doc_id, chunks[2].doc_id])) == {0, 2}
    assert found(SearchFilter(confidentiality=["internal"])) == {0, 3}
    assert found(
        SearchFilter(date_from=date(2024, 1, 2), date_to=date(2024, 1, 3), lifecycles=None)
    ) == {1, 2}
    assert found(SearchFilter(date_from=date(2025, 1, 1))) == {3}
    assert found(SearchFilter(date_to=date(2024, 1, 1))) == {0}
    assert found(SearchFilter(sources=[])) == set()


def test_a_document_named_by_number_or_path_is_looked_up_by_its_name_keys(store: VectorStore):
    """The named-document lookup reads the named record's chunks only, not the collection."""
    rng = random.Random(2)
    adr = dict(source="git_docs", kind="decision", lifecycle="deprecated")
    chunks = [
        make_chunk(n=n, source_id=f"notes/day-{n}.md", title=f"Day {n}") for n in range(40)
    ] + [make_chunk(n=40, source_id="decisions/0007-monthly-reports.md", title="ADR 7", **adr)]
    named = [
        c.model_copy(update={"names": name_keys(c.title, c.source_id, c.kind)}) for c in chunks
    ]
    write(store, [make_point(c, rng) for c in named])

    def looked_up(question: str) -> list[str]:
        keys = sorted(question_keys(question))
        return [
            c.source_id for c in store.scroll("internal", SearchFilter(names=keys, lifecycles=None))
        ]

    path = "decisions/0007-monthly-reports.md"
    assert looked_up("What does decisions/0007-monthly-reports.md say?") == [path]
    assert looked_up("What did ADR 7 decide?") == [path]
    assert looked_up("What did document 7 say?") == [path]  # any family
    assert looked_up("What did runbook 7 say?") == []  # another family's number 7
    assert looked_up("What did ADR 70 decide?") == []
    assert looked_up("see notes/day-12.md") == ["notes/day-12.md"]


def test_a_window_in_force_takes_standing_texts_said_before_it(store: VectorStore):
    """Events dated inside the window, and standing texts dated before its end or undated;
    never an event outside it, nor a standing text said after it."""
    rng = random.Random(5)
    chunks = [
        make_chunk(n=0, time_kind="event", date=date(2024, 3, 5)),  # inside
        make_chunk(n=1, time_kind="event", date=date(2024, 2, 5)),  # before
        make_chunk(n=2, time_kind="standing", date=date(2024, 1, 10)),  # in force
        make_chunk(n=3, time_kind="standing", date=None),  # undated: in force
        make_chunk(n=4, time_kind="standing", date=date(2024, 4, 2)),  # said after
        make_chunk(n=5, time_kind="event", date=None),  # undated event
    ]
    write(store, [make_point(c, rng) for c in chunks])
    window = SearchFilter(date_from=date(2024, 3, 1), date_to=date(2024, 3, 31))
    hits = store.search(
        "internal",
        [1.0] * DIM,
        None,
        limit=10,
        mode="dense",
        flt=window.model_copy(update={"in_force": True}),
    )
    assert {int(h.chunk.title.split()[1]) for h in hits} == {0, 2, 3}
    strict = store.search("internal", [1.0] * DIM, None, limit=10, mode="dense", flt=window)
    assert {int(h.chunk.title.split()[1]) for h in strict} == {0}


def test_a_dated_filter_takes_only_texts_with_a_date(store: VectorStore):
    """`dated`: any date, however old, and nothing undated; with a window in force too (its
    undated standing texts are not dated)."""
    rng = random.Random(6)
    chunks = [
        make_chunk(n=0, time_kind="event", date=date(2024, 3, 5)),
        make_chunk(n=1, time_kind="standing", date=date(1970, 1, 1)),
        make_chunk(n=2, time_kind="standing", date=None),
        make_chunk(n=3, time_kind="event", date=None),
    ]
    write(store, [make_point(c, rng) for c in chunks])

    def found(flt: SearchFilter) -> set[int]:
        hits = store.search("internal", [1.0] * DIM, None, limit=10, mode="dense", flt=flt)
        return {int(h.chunk.title.split()[1]) for h in hits}

    assert found(SearchFilter()) == {0, 1, 2, 3}
    assert found(SearchFilter(dated=True)) == {0, 1}
    window = SearchFilter(date_to=date(2024, 3, 31), in_force=True)
    assert found(window) == {0, 1, 2}
    assert found(window.model_copy(update={"dated": True})) == {0, 1}


def test_point_hashes_cover_one_source_only(store: VectorStore):
    mine = make_points(4, source="memory_files")
    theirs = make_points(3, source="clickup", seed=2)
    write(store, mine + theirs)
    hashes = store.point_hashes("internal", "memory_files")
    assert hashes == {p.id: p.payload["fingerprint"] for p in mine}
    assert all(hashes.values())
    assert store.point_hashes("internal", "nobody") == {}
    assert store.point_hashes("client_less", "memory_files") == {}


def test_writer_sees_its_own_pending_changes(store: VectorStore):
    points = make_points(3)
    write(store, points)
    with store.writer("internal", MODEL, DIM) as w:
        w.delete([points[0].id])
        w.upsert(make_points(1, seed=5, start=10))
        assert set(w.point_hashes("memory_files")) == {
            points[1].id,
            points[2].id,
            make_points(1, start=10)[0].id,
        }


def test_scroll_and_count_per_source(store: VectorStore):
    write(store, make_points(1200, source="memory_files") + make_points(7, source="clickup"))
    assert store.count("internal") == 1207
    assert store.count("internal", "clickup") == 7
    assert store.count("internal", "memory_files") == 1200
    assert len(list(store.scroll("internal", SearchFilter(sources=["memory_files"])))) == 1200


def test_exists_answers_per_published_version(store: VectorStore):
    drafts = SearchFilter(lifecycles=["draft"])
    assert not store.exists("internal", drafts)  # no collection yet
    write(store, make_points(1200, source="memory_files"))
    assert store.exists("internal", SearchFilter())
    assert not store.exists("internal", drafts)
    assert not store.exists("internal", SearchFilter(sources=[]))  # matches nothing
    write(store, make_points(1, source="clickup", start=5000, lifecycle="draft"))
    assert store.exists("internal", drafts)  # the next version's answer, not a kept one
    assert not store.exists("internal", drafts.model_copy(update={"sources": ["memory_files"]}))


def test_ready_in_process_once_the_published_version_is_open(store: VectorStore):
    assert not store.ready_in_process("internal")
    write(store, make_points(3))
    assert not store.ready_in_process("internal")  # nothing opened yet
    store.count("internal")
    assert store.ready_in_process("internal") is isinstance(store, EdgeStore)  # a server: never
    write(store, make_points(1, start=10))
    assert not store.ready_in_process("internal")  # a new version to open first
    store.count("internal")
    assert store.ready_in_process("internal") is isinstance(store, EdgeStore)


def test_an_exception_inside_the_writer_publishes_nothing(store: VectorStore):
    with pytest.raises(RuntimeError), store.writer("internal", MODEL, DIM) as w:
        w.upsert(make_points(3))
        raise RuntimeError("boom")
    assert store.info("internal") is None
    write(store, make_points(2))
    with pytest.raises(RuntimeError), store.writer("internal", MODEL, DIM) as w:
        w.upsert(make_points(5, seed=3, start=100))
        w.delete([make_points(2)[0].id])
        raise RuntimeError("boom")
    assert store.count("internal") == 2


def test_scopes_are_isolated(store: VectorStore):
    a = make_points(5, scope="acme")
    write(store, a, scope="acme")
    write(store, make_points(5, scope="hot", seed=4), scope="hot")
    for p in a:
        assert p.id not in ids(store.search("hot", p.dense, p.sparse, limit=10))
    assert store.count("acme") == 5
    assert store.count("globex") == 0
    assert list(store.scroll("globex")) == []


@pytest.mark.parametrize(
    "scope", ["../x", "", "Client", "a" * 70, "intern\u0430l", "a b", "x/y", "_lead"]
)
def test_hostile_scopes_are_rejected(store: VectorStore, scope: str):
    with pytest.raises(StoreError, match="invalid scope"):
        collection_name(scope)
    with pytest.raises(StoreError, match="invalid scope"):
        store.search(scope, [1.0] * DIM, None, limit=1)
    with pytest.raises(StoreError, match="invalid scope"), store.writer(scope, MODEL, DIM):
        pass


def test_bad_queries_are_refused(store: VectorStore):
    write(store, make_points(2))
    with pytest.raises(StoreError, match="limit"):
        store.search("internal", [1.0] * DIM, None, limit=0)
    with pytest.raises(StoreError, match="dense query"):
        store.search(
            "internal", None, SparseVector(indices=[1], values=[1.0]), limit=1, mode="dense"
        )
    assert store.search("internal", None, SparseVector(indices=[], values=[]), limit=1) == []


def test_factory_builds_both_engines(tmp_path: Path):
    edge = make_store("edge", path=tmp_path, url=None, api_key=None)
    server = make_store("qdrant", path=None, url=":memory:", api_key=None)
    assert isinstance(edge, EdgeStore)
    assert isinstance(server, QdrantServerStore)
    with pytest.raises(StoreError, match="shards directory"):
        make_store("edge", path=None, url=None, api_key=None)
    with pytest.raises(StoreError, match="server URL"):
        make_store("qdrant", path=None, url=None, api_key=None)
    server.close()
    edge.close()


def test_server_sessions_of_two_sources_do_not_drop_each_other():
    store = QdrantServerStore(QdrantClient(":memory:"))
    write(store, make_points(3))
    a = store.writer("internal", MODEL, DIM)
    b = store.writer("internal", MODEL, DIM)
    wa, wb = a.__enter__(), b.__enter__()  # both open at once: no lock on the server
    wa.upsert(make_points(4, source="clickup", seed=1))
    wb.upsert(make_points(5, source="website", seed=2))
    wb.delete(list(wb.point_hashes("memory_files"))[:1])
    b.__exit__(None, None, None)
    a.__exit__(None, None, None)
    assert (
        store.count("internal", "clickup"),
        store.count("internal", "website"),
        store.count("internal", "memory_files"),
    ) == (4, 5, 2)
