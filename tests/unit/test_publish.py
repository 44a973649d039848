"""`kp publish`: Edge shards copied, vectors and payload intact, into a Qdrant server (here
qdrant-client's `:memory:` mode); idempotent; refused when the target holds another model."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from qdrant_client import QdrantClient
from typer.testing import CliRunner

from knowledge_platform.errors import ModelMismatchError
from knowledge_platform.store.base import DENSE, SPARSE
from knowledge_platform.store.edge import EdgeStore
from knowledge_platform.store.migrate import edge_scopes, publish
from knowledge_platform.store.server import QdrantServerStore
from kp.app import app
from tests.store_fixtures import DIM, MODEL, make_points


@pytest.fixture
def shards(tmp_path: Path) -> Iterator[Path]:
    """internal (two sources, 700 points: more than one page) and client acme (3 points)."""
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else tmp_path) as root:
        edge = EdgeStore(Path(root), optimize=False)
        with edge.writer("internal", MODEL, DIM) as w:
            w.upsert(make_points(600, source="memory_files"))
            w.upsert(make_points(100, source="clickup", seed=1))
        with edge.writer("acme", MODEL, DIM) as w:
            w.upsert(make_points(3, scope="acme", seed=2))
        edge.close()
        yield Path(root)


@pytest.fixture
def edge(shards: Path) -> Iterator[EdgeStore]:
    store = EdgeStore(shards)
    yield store
    store.close()


@pytest.fixture
def client() -> Iterator[QdrantClient]:
    qc = QdrantClient(":memory:")
    yield qc
    qc.close()


def test_publish_copies_every_collection_with_vectors_and_payload(
    edge: EdgeStore, client: QdrantClient
) -> None:
    target = QdrantServerStore(client)
    results = publish(edge, target, page=256)

    assert [(r.collection, r.source_points, r.published, r.target_points) for r in results] == [
        ("internal", 700, 700, 700),
        ("client_acme", 3, 3, 3),
    ]
    assert edge_scopes(edge) == ["internal", "acme"]
    info = target.info("internal")
    assert info is not None and (info.model_id, info.dim) == (MODEL, DIM)
    for source in ("memory_files", "clickup"):
        assert target.point_hashes("internal", source) == edge.point_hashes("internal", source)

    original = {p.id: p for p in make_points(3, scope="acme", seed=2)}
    stored = client.retrieve("client_acme", list(original), with_vectors=True, with_payload=True)
    assert len(stored) == 3
    for rec in stored:
        want = original[str(rec.id)]
        assert isinstance(rec.vector, dict)
        assert rec.vector[DENSE] == pytest.approx(want.dense, abs=1e-6)
        sparse = rec.vector[SPARSE]
        got = dict(zip(sparse.indices, sparse.values, strict=True))
        assert sorted(got) == want.sparse.indices
        assert [got[i] for i in want.sparse.indices] == pytest.approx(want.sparse.values)
        assert rec.payload == want.payload

    # the published collection answers the same hybrid query as the shards
    probe = original[next(iter(original))]
    hits = target.search("acme", probe.dense, probe.sparse, limit=1)
    assert hits[0].chunk.id == probe.id


def test_publish_is_idempotent(edge: EdgeStore, client: QdrantClient) -> None:
    target = QdrantServerStore(client)
    first = publish(edge, target)
    again = publish(edge, target)
    assert [r.target_points for r in again] == [r.target_points for r in first] == [700, 3]
    assert client.count("internal").count == 700


def test_publish_refuses_a_target_with_another_model(edge: EdgeStore, client: QdrantClient) -> None:
    target = QdrantServerStore(client)
    with target.writer("acme", "text-embedding-3-small", DIM) as w:
        w.upsert(make_points(1, scope="acme", seed=9))

    with pytest.raises(ModelMismatchError, match="client_acme records text-embedding-3-small"):
        publish(edge, target)
    # checked before writing: internal (planned first) was not published either
    assert not client.collection_exists("internal")
    assert client.count("client_acme").count == 1


def test_publish_cli(shards: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = shards.parent / f"{shards.name}-home"
    home.mkdir()
    (home / "qdrant").symlink_to(shards)
    monkeypatch.setenv("KP_HOME", str(home))
    monkeypatch.delenv("QDRANT_URL", raising=False)

    missing = CliRunner().invoke(app, ["publish"])
    assert missing.exit_code == 2
    assert "pass --url or set QDRANT_URL" in missing.output

    result = CliRunner().invoke(app, ["publish", "--url", ":memory:", "--scope", "acme"])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.stdout.splitlines() if "client_acme" in line)
    assert [cell.strip() for cell in row.strip("│ ").split("│")] == [
        "client_acme",
        MODEL,
        str(DIM),
        "3",
        "3",
        "3",
    ]
    assert "internal" not in result.stdout.replace("kp publish", "")
