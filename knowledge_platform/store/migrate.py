"""Copy published Qdrant Edge collections — ids, both vectors, payload — into another store
(in practice a Qdrant server): how `kp publish` moves the embedded index to production.

Point ids are chunk ids, so a re-run overwrites what an earlier one wrote and never
duplicates. Every target collection is checked before anything is written: one that records
another embedding model (or dimension) stops the whole publish with ModelMismatchError.
Points the target holds that the Edge shards no longer have are left alone (the next
collection materialization reconciles them).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import qdrant_edge as qe

from knowledge_platform.errors import ModelMismatchError, StoreError
from knowledge_platform.models import Point, SparseVector
from knowledge_platform.store import shard_dirs as sd
from knowledge_platform.store.base import (
    DENSE,
    SPARSE,
    CollectionInfo,
    VectorStore,
    collection_name,
)
from knowledge_platform.store.edge import EdgeStore

PAGE = 512


@dataclass(frozen=True)
class PublishResult:
    scope: str
    collection: str
    model_id: str
    dim: int
    #: Points in the Edge collection, points upserted, points in the target afterwards.
    source_points: int
    published: int
    target_points: int


def edge_scopes(edge: EdgeStore) -> list[str]:
    """Scopes with a published collection under the Edge root, `internal` first."""
    scopes = []
    for cdir in edge.root.iterdir():
        scope = cdir.name.removeprefix("client_")
        if (cdir / sd.POINTER).is_file() and _names(scope, cdir.name):
            scopes.append(scope)
    return sorted(scopes, key=lambda s: (s != "internal", s))


def _names(scope: str, name: str) -> bool:
    try:
        return collection_name(scope) == name
    except StoreError:
        return False


def read_points(edge: EdgeStore, scope: str, page: int = PAGE) -> Iterator[list[Point]]:
    """Every point of `scope`'s published collection with both vectors, a page at a time.

    The VectorStore interface reads payloads only; this uses the engine's reader (a private
    copy of the published version, so a concurrent writer is never seen or blocked).
    Do not call other methods of `edge` for this scope while iterating: the reader's lock
    is held until the iterator is exhausted or closed.
    """
    with edge._reading(scope) as reader:
        if reader is None:
            return
        offset = None
        while True:
            records, offset = reader.shard.scroll(
                qe.ScrollRequest(offset=offset, limit=page, with_payload=True, with_vector=True)
            )
            yield [_point(r) for r in records]
            if offset is None:
                return


def _point(record: qe.Record) -> Point:
    vectors = record.vector if isinstance(record.vector, dict) else {}
    dense, sparse = vectors.get(DENSE), vectors.get(SPARSE)
    if not isinstance(dense, list) or not isinstance(sparse, qe.SparseVector):
        raise StoreError(f"edge point {record.id} lacks the {DENSE!r}/{SPARSE!r} vectors")
    return Point.model_validate(
        {  # validation rejects a multivector where `dense` should be
            "id": str(record.id),
            "dense": dense,
            "sparse": SparseVector(indices=list(sparse.indices), values=list(sparse.values)),
            "payload": dict(record.payload or {}),
        }
    )


def plan(
    edge: EdgeStore, target: VectorStore, scopes: Sequence[str] | None = None
) -> list[tuple[str, CollectionInfo]]:
    """The collections to publish with their model; raises before anything is written."""
    chosen = list(scopes) if scopes else edge_scopes(edge)
    if not chosen:
        raise StoreError(
            f"no published Edge collections under {edge.root}; run `kp index` "
            "first (or point KP_HOME at the embedded data)"
        )
    planned = []
    for scope in chosen:
        info = edge.info(scope)
        if info is None:
            raise StoreError(f"scope {scope!r} has no published collection under {edge.root}")
        existing = target.info(scope)
        if existing is not None and (existing.model_id, existing.dim) != (info.model_id, info.dim):
            raise ModelMismatchError(
                f"target collection {existing.name} records {existing.model_id} "
                f"({existing.dim}-d) vectors, the Edge shards hold {info.model_id} "
                f"({info.dim}-d); nothing published. Drop or rename the target collection, "
                "or reindex into it instead of publishing"
            )
        planned.append((scope, info))
    return planned


def publish(
    edge: EdgeStore, target: VectorStore, scopes: Sequence[str] | None = None, *, page: int = PAGE
) -> list[PublishResult]:
    """Upsert every point of the chosen (default: all) Edge collections into `target`."""
    results = []
    for scope, info in plan(edge, target, scopes):
        published = 0
        for batch in read_points(edge, scope, page):
            with target.writer(scope, info.model_id, info.dim) as writer:
                writer.upsert(batch)  # an empty batch still creates the collection
            published += len(batch)
        results.append(
            PublishResult(
                scope=scope,
                collection=collection_name(scope),
                model_id=info.model_id,
                dim=info.dim,
                source_points=info.points,
                published=published,
                target_points=target.count(scope),
            )
        )
    return results
