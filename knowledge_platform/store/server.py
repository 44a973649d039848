"""The production engine: a Qdrant server through qdrant-client (tests use `:memory:`).

Collections hold named vectors `dense` (cosine) and `sparse` (IDF modifier), keyword payload
indexes on the filter fields (`date` as datetime) and, in the collection's own `metadata`,
the embedding model id and dimension (`kp_model_id`, `kp_dim`).

A write session buffers its operations (references to the caller's points, no copies) and
applies them in order when it exits cleanly: upserts and deletes by point id, in batches,
waiting for each. An exception inside the session sends nothing. Qdrant has no multi-request
transaction, so a failure while applying leaves the batches already sent in place; callers
upsert before they delete, so such a failure never loses points. Two sessions on one
collection need no lock: each touches only its own ids.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient, models

from knowledge_platform.errors import ModelMismatchError, StoreError
from knowledge_platform.models import Chunk, Hit, Point, SparseVector
from knowledge_platform.store.base import (
    DENSE,
    EVER,
    FILTER_FIELDS,
    HASH_FIELD,
    KEYWORD_FILTERS,
    SPARSE,
    CollectionInfo,
    CollectionWriter,
    Fuse,
    SearchFilter,
    SearchMode,
    VectorQuery,
    VectorStore,
    collection_name,
    date_range,
    matches_nothing,
    query_filters,
)
from knowledge_platform.store.shard_dirs import exclusive_lock

META_MODEL, META_DIM = "kp_model_id", "kp_dim"
_PAGE = 256


def _err(action: str, exc: Exception) -> StoreError:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return StoreError(f"qdrant {action} failed: {first}")


def server_filter(flt: SearchFilter) -> models.Filter | None:
    must: list[models.Condition] = []
    for attr, key in KEYWORD_FILTERS.items():
        values = getattr(flt, attr)
        if values is not None:
            must.append(models.FieldCondition(key=key, match=models.MatchAny(any=list(values))))
    if (dates := date_range(flt)) is not None:
        lower, upper = dates
        dated = models.FieldCondition(key="date", range=models.DatetimeRange(gte=lower, lt=upper))
        if flt.in_force:
            standing = models.Filter(
                must=[
                    models.FieldCondition(
                        key="time_kind", match=models.MatchValue(value="standing")
                    )
                ],
                should=[
                    models.FieldCondition(key="date", range=models.DatetimeRange(lt=upper)),
                    models.IsEmptyCondition(is_empty=models.PayloadField(key="date")),
                ],
            )
            must.append(models.Filter(should=[dated, standing]))
        else:
            must.append(dated)
    if flt.dated:
        must.append(models.FieldCondition(key="date", range=models.DatetimeRange(gte=EVER)))
    return models.Filter(must=must) if must else None


def _source_filter(source: str) -> models.Filter:
    return models.Filter(
        must=[models.FieldCondition(key="source", match=models.MatchValue(value=source))]
    )


def _struct(p: Point) -> models.PointStruct:
    vector: dict[str, Any] = {
        DENSE: p.dense,
        SPARSE: models.SparseVector(indices=p.sparse.indices, values=p.sparse.values),
    }
    return models.PointStruct(id=p.id, vector=vector, payload=p.payload)


class ServerWriter(CollectionWriter):
    """Records operations; the store applies them, in order, on a clean exit."""

    def __init__(self, store: QdrantServerStore, scope: str, dim: int) -> None:
        self._store = store
        self._scope = scope
        self._dim = dim
        self.ops: list[tuple[str, Sequence[Any]]] = []

    def upsert(self, points: Sequence[Point]) -> None:
        for p in points:
            if len(p.dense) != self._dim:
                raise ModelMismatchError(
                    f"point {p.id} has a {len(p.dense)}-d vector; the collection holds "
                    f"{self._dim}-d vectors"
                )
        self.ops.append(("upsert", list(points)))

    def delete(self, ids: Sequence[str]) -> None:
        self.ops.append(("delete", list(ids)))

    def point_hashes(self, source: str) -> dict[str, str]:
        """The published hashes with this session's pending operations laid over them."""
        hashes = self._store.point_hashes(self._scope, source)
        for kind, items in self.ops:
            for item in items:
                if kind == "delete":
                    hashes.pop(item, None)
                elif item.payload.get("source") == source:
                    hashes[item.id] = str(item.payload.get(HASH_FIELD, ""))
                else:
                    hashes.pop(item.id, None)
        return hashes


class QdrantServerStore(VectorStore):
    def __init__(
        self,
        client: QdrantClient | None = None,
        *,
        url: str | None = None,
        api_key: str | None = None,
        timeout: int = 60,
        lock_dir: Path | None = None,
        lock_timeout: float = 600.0,
    ) -> None:
        """`lock_dir`: where writers of one collection take turns (a flock per collection,
        as the Edge engine's; gone with its process). Several sources write one scope's
        collection, each reconciling only its own points, but two runs of one source x scope
        must not interleave. None: no lock (one writer at a time is the caller's affair)."""
        self.lock_dir = lock_dir
        self.lock_timeout = lock_timeout
        if client is None:
            if not url:
                raise StoreError("the qdrant engine needs a client or a server URL")
            client = (
                QdrantClient(location=":memory:")
                if url == ":memory:"
                else QdrantClient(url=url, api_key=api_key, timeout=timeout)
            )
            self._owns_client = True
        else:
            self._owns_client = False
        self.client = client

    # -- collections ---------------------------------------------------------------------

    def _meta(self, name: str) -> tuple[str, int] | None:
        try:
            if not self.client.collection_exists(name):
                return None
            meta = self.client.get_collection(name).config.metadata or {}
        except Exception as exc:
            raise _err(f"reading collection {name}", exc) from exc
        if META_MODEL not in meta or META_DIM not in meta:
            raise StoreError(
                f"collection {name} has no model metadata; it was not created "
                "by this platform (or the server is too old for metadata)"
            )
        return str(meta[META_MODEL]), int(meta[META_DIM])

    def _check(self, name: str, model_id: str, dim: int) -> bool:
        """True if the collection exists (with this model); raise if with another."""
        meta = self._meta(name)
        if meta is not None and meta != (model_id, dim):
            raise ModelMismatchError(
                f"collection {name} holds {meta[0]} ({meta[1]}-d) vectors, not {model_id} "
                f"({dim}-d); rebuild it to change models"
            )
        return meta is not None

    def _create(self, name: str, model_id: str, dim: int) -> None:
        try:
            self.client.create_collection(
                name,
                vectors_config={
                    DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE)
                },
                sparse_vectors_config={
                    SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)
                },
                metadata={META_MODEL: model_id, META_DIM: dim},
            )
        except Exception as exc:  # another writer may have created it first
            if not self._check(name, model_id, dim):
                raise _err(f"creating collection {name}", exc) from exc
            return
        self._index_filter_fields(name)

    def _index_filter_fields(self, name: str) -> None:
        """A payload index on every FILTER_FIELDS field the collection lacks (one made before
        a field was filtered on gets it at its next write)."""
        try:
            have = set(self.client.get_collection(name).payload_schema or {})
        except Exception as exc:
            raise _err(f"reading {name}", exc) from exc
        with warnings.catch_warnings():  # local mode warns that indexes do nothing there
            warnings.simplefilter("ignore", UserWarning)
            for field in FILTER_FIELDS:
                if field in have:
                    continue
                schema = (
                    models.PayloadSchemaType.DATETIME
                    if field == "date"
                    else models.PayloadSchemaType.KEYWORD
                )
                self.client.create_payload_index(name, field, schema, wait=True)

    @contextlib.contextmanager
    def writer(self, scope: str, model_id: str, dim: int) -> Iterator[CollectionWriter]:
        name = collection_name(scope)
        if self.lock_dir is None:
            yield from self._write(name, scope, model_id, dim)
            return
        self.lock_dir.mkdir(parents=True, exist_ok=True)
        with exclusive_lock(self.lock_dir / f"{name}.lock", self.lock_timeout):
            yield from self._write(name, scope, model_id, dim)

    def _write(self, name: str, scope: str, model_id: str, dim: int) -> Iterator[CollectionWriter]:
        exists = self._check(name, model_id, dim)
        session = ServerWriter(self, scope, dim)
        yield session
        if not exists:
            self._create(name, model_id, dim)
        else:
            self._index_filter_fields(name)
        try:
            for kind, items in session.ops:
                for i in range(0, len(items), _PAGE):
                    batch = items[i : i + _PAGE]
                    if kind == "upsert":
                        self.client.upsert(name, [_struct(p) for p in batch], wait=True)
                    else:
                        self.client.delete(name, models.PointIdsList(points=list(batch)), wait=True)
        except Exception as exc:
            raise _err(f"writing {name}", exc) from exc

    # -- reading -------------------------------------------------------------------------

    def info(self, scope: str) -> CollectionInfo | None:
        name = collection_name(scope)
        meta = self._meta(name)
        if meta is None:
            return None
        return CollectionInfo(
            name=name, model_id=meta[0], dim=meta[1], points=self._count(name, None)
        )

    def _count(self, name: str, flt: models.Filter | None) -> int:
        try:
            return self.client.count(name, count_filter=flt, exact=True).count
        except Exception as exc:
            raise _err(f"counting {name}", exc) from exc

    def count(self, scope: str, source: str | None = None) -> int:
        name = collection_name(scope)
        if not self.client.collection_exists(name):
            return 0
        return self._count(name, _source_filter(source) if source is not None else None)

    def _records(self, name: str, flt: models.Filter | None, payload: Any) -> Iterator[Any]:
        offset: Any = None
        while True:
            try:
                records, offset = self.client.scroll(
                    name,
                    scroll_filter=flt,
                    limit=_PAGE,
                    offset=offset,
                    with_payload=payload,
                    with_vectors=False,
                )
            except Exception as exc:
                raise _err(f"scrolling {name}", exc) from exc
            yield from records
            if offset is None:
                return

    def point_hashes(self, scope: str, source: str) -> dict[str, str]:
        name = collection_name(scope)
        if not self.client.collection_exists(name):
            return {}
        return {
            str(r.id): str((r.payload or {}).get(HASH_FIELD, ""))
            for r in self._records(name, _source_filter(source), [HASH_FIELD])
        }

    def scroll(self, scope: str, flt: SearchFilter | None = None) -> Iterator[Chunk]:
        name = collection_name(scope)
        flt = flt or SearchFilter()
        if matches_nothing(flt) or not self.client.collection_exists(name):
            return iter(())
        return (
            Chunk.from_payload(r.payload or {})
            for r in self._records(name, server_filter(flt), True)
        )

    def exists(self, scope: str, flt: SearchFilter) -> bool:
        name = collection_name(scope)
        if matches_nothing(flt) or not self.client.collection_exists(name):
            return False
        try:
            records, _ = self.client.scroll(
                name,
                scroll_filter=server_filter(flt),
                limit=1,
                with_payload=False,
                with_vectors=False,
            )
        except Exception as exc:
            raise _err(f"scrolling {name}", exc) from exc
        return bool(records)

    def search_batch(
        self, scope: str, queries: Sequence[VectorQuery], *, flt: SearchFilter | None = None
    ) -> list[list[Hit]]:
        return [
            [Hit(chunk=Chunk.from_payload(p.payload or {}), score=p.score) for p in points]
            for points in self._query(scope, queries, flt, payload=True)
        ]

    def search_fused(
        self,
        scope: str,
        queries: Sequence[VectorQuery],
        fuse: Fuse,
        *,
        flt: SearchFilter | None = None,
    ) -> list[Hit]:
        ranked = fuse(
            [
                [(str(p.id), p.score) for p in points]
                for points in self._query(scope, queries, flt, payload=False)
            ]
        )
        if not ranked:
            return []
        name = collection_name(scope)
        try:
            records = self.client.retrieve(
                name, ids=[str(i) for i, _ in ranked], with_payload=True, with_vectors=False
            )
        except Exception as exc:
            raise _err(f"reading {name}", exc) from exc
        payloads = {str(rec.id): rec.payload or {} for rec in records}
        return [
            Hit(chunk=Chunk.from_payload(payloads[key]), score=score)
            for i, score in ranked
            if (key := str(i)) in payloads
        ]

    def _query(
        self, scope: str, queries: Sequence[VectorQuery], flt: SearchFilter | None, payload: bool
    ) -> list[list[models.ScoredPoint]]:
        name = collection_name(scope)
        filters = query_filters(queries, flt or SearchFilter(), server_filter)
        built = [_request(q, qf, payload) for q, (qf, _) in zip(queries, filters, strict=True)]
        requests = [None if nothing else r for r, (_, nothing) in zip(built, filters, strict=True)]
        live = [r for r in requests if r is not None]
        if not live:
            return [[] for _ in queries]
        try:
            found = iter(self.client.query_batch_points(name, requests=live))
        except Exception as exc:
            if not self.client.collection_exists(name):  # checked only on failure: no extra
                return [[] for _ in queries]  # round trip per query
            raise _err(f"searching {name}", exc) from exc
        return [[] if req is None else next(found).points for req in requests]

    def close(self) -> None:
        if self._owns_client:
            self.client.close()


def _request(q: VectorQuery, qf: models.Filter | None, payload: bool) -> models.QueryRequest | None:
    queries = _queries(q.dense, q.sparse, q.mode, q.limit)
    if not queries:
        return None
    if len(queries) == 1:
        query, using = queries[0]
        return models.QueryRequest(
            query=query, using=using, filter=qf, limit=q.limit, with_payload=payload
        )
    pre = [
        models.Prefetch(query=v, using=u, filter=qf, limit=max(q.prefetch, q.limit))
        for v, u in queries
    ]
    return models.QueryRequest(
        prefetch=pre,
        query=models.FusionQuery(fusion=models.Fusion.RRF),
        filter=qf,
        limit=q.limit,
        with_payload=payload,
    )


def _queries(
    dense: Sequence[float] | None, sparse: SparseVector | None, mode: SearchMode, limit: int
) -> list[tuple[Any, str]]:
    if limit < 1:
        raise StoreError(f"limit must be at least 1, got {limit}")
    if mode == "dense" and dense is None:
        raise StoreError("dense search needs a dense query vector")
    if mode == "sparse" and sparse is None:
        raise StoreError("sparse search needs a sparse query vector")
    if dense is None and sparse is None:
        raise StoreError("hybrid search needs a dense or a sparse query vector")
    queries: list[tuple[Any, str]] = []
    if mode in ("hybrid", "dense") and dense is not None:
        queries.append((list(dense), DENSE))
    if mode in ("hybrid", "sparse") and sparse is not None and sparse.indices:
        queries.append((models.SparseVector(indices=sparse.indices, values=sparse.values), SPARSE))
    return queries
