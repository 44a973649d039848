"""The embedded engine: Qdrant Edge shards in versioned directories (see `shard_dirs`).

A writer holds the collection's lock, copies the published version, applies its upserts and
deletes to the copy, flushes, optimizes and closes it, and only then moves CURRENT. A reader
keeps a private copy of the version CURRENT names, checks the pointer (one stat) on every
call and swaps to the new version when it moves. Searches never see a half-written index
and never wait for a writer.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from knowledge_platform.errors import ModelMismatchError, StoreError
from knowledge_platform.models import Chunk, Hit, Point, SparseVector
from knowledge_platform.store import shard_dirs as sd
from knowledge_platform.store.base import (
    DENSE,
    EVER,
    FILTER_FIELDS,
    HASH_FIELD,
    KEYWORD_FILTERS,
    RRF_K,
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

_PAGE = 1000
#: Search-pool threads of a reader's shard. A search holds its collection's lock and the GIL
#: (the binding does not release it), so the pool's only parallelism is over one search's
#: segments; at 50k chunks on 2 cores that bought nothing and cost a thread hand-off per
#: segment, and the default (4 per cpu, per open shard) waits longest on a loaded machine.
READER_SEARCH_THREADS = 1
#: `exists` answers kept per published version (distinct filters, e.g. date ranges).
_FOUND_KEPT = 256


def _err(action: str, exc: Exception) -> StoreError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return StoreError(f"edge {action} failed: {first}")


def edge_filter(flt: SearchFilter) -> qe.Filter | None:
    conds: list[Any] = []
    for attr, key in KEYWORD_FILTERS.items():
        values = getattr(flt, attr)
        if values is not None:
            conds.append(qe.FieldCondition(key, match=qe.MatchAny(list(values))))
    if (dates := date_range(flt)) is not None:
        lower, upper = dates
        dated = qe.FieldCondition(
            "date",
            range=qe.RangeDateTime(
                gte=lower.isoformat() if lower else None, lt=upper.isoformat() if upper else None
            ),
        )
        if flt.in_force:
            before = qe.FieldCondition(
                "date", range=qe.RangeDateTime(lt=upper.isoformat() if upper else None)
            )
            standing = qe.Filter(
                must=[qe.FieldCondition("time_kind", match=qe.MatchValue("standing"))],
                should=[before, qe.IsEmptyCondition("date")],
            )
            conds.append(qe.Filter(should=[dated, standing]))
        else:
            conds.append(dated)
    if flt.dated:
        conds.append(qe.FieldCondition("date", range=qe.RangeDateTime(gte=EVER.isoformat())))
    return qe.Filter(must=conds) if conds else None


def _source_filter(source: str) -> qe.Filter:
    return qe.Filter(must=[qe.FieldCondition("source", match=qe.MatchValue(source))])


def _scroll(shard: qe.EdgeShard, flt: qe.Filter | None, payload: Any) -> Iterator[qe.Record]:
    offset: Any = None
    while True:
        records, offset = shard.scroll(
            qe.ScrollRequest(
                offset=offset, limit=_PAGE, filter=flt, with_payload=payload, with_vector=False
            )
        )
        yield from records
        if offset is None:
            return


def _hashes(shard: qe.EdgeShard, source: str) -> dict[str, str]:
    return {
        str(r.id): str((r.payload or {}).get(HASH_FIELD, ""))
        for r in _scroll(shard, _source_filter(source), [HASH_FIELD])
    }


class EdgeWriter(CollectionWriter):
    """Applies operations to the writer's private copy as they come."""

    def __init__(self, shard: qe.EdgeShard, dim: int) -> None:
        self._shard = shard
        self._dim = dim

    def upsert(self, points: Sequence[Point]) -> None:
        batch = []
        for p in points:
            if len(p.dense) != self._dim:
                raise ModelMismatchError(
                    f"point {p.id} has a {len(p.dense)}-d vector; the collection holds "
                    f"{self._dim}-d vectors"
                )
            vector: dict[str, Any] = {
                DENSE: p.dense,
                SPARSE: qe.SparseVector(p.sparse.indices, p.sparse.values),
            }
            batch.append(qe.Point(p.id, vector, p.payload))
        try:
            for i in range(0, len(batch), _PAGE):
                self._shard.update(qe.UpdateOperation.upsert_points(batch[i : i + _PAGE]))
        except Exception as exc:
            raise _err("upsert", exc) from exc

    def delete(self, ids: Sequence[str]) -> None:
        try:
            for i in range(0, len(ids), _PAGE):
                self._shard.update(qe.UpdateOperation.delete_points(list(ids[i : i + _PAGE])))
        except Exception as exc:
            raise _err("delete", exc) from exc

    def point_hashes(self, source: str) -> dict[str, str]:
        return _hashes(self._shard, source)


@dataclass
class _Reader:
    stamp: tuple[int, int, int]
    pointer: sd.Pointer
    shard: qe.EdgeShard
    copy: Path
    owner_fd: int
    #: `exists` answers by filter: a published version never changes.
    found: dict[str, bool] = field(default_factory=dict)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.shard.close()
        sd.remove_tree(self.copy)
        with contextlib.suppress(OSError):
            self.copy.with_suffix(".lock").unlink()
        os.close(self.owner_fd)


class EdgeStore(VectorStore):
    """Qdrant Edge shards under `root`, one directory per collection."""

    def __init__(
        self,
        root: Path,
        *,
        lock_timeout: float = 600.0,
        keep_versions: int = 2,
        gc_grace: float = 600.0,
        optimize: bool = True,
        link_immutable: bool = True,
        indexing_threshold_kb: int | None = None,
        search_threads: int | None = READER_SEARCH_THREADS,
    ) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.lock_timeout = lock_timeout
        self.keep_versions = keep_versions
        self.gc_grace = gc_grace
        self.optimize = optimize
        self.link_immutable = link_immutable
        self.indexing_threshold_kb = indexing_threshold_kb
        #: readers' search-pool threads (None: the engine's default)
        self.search_threads = search_threads
        self._readers: dict[str, _Reader] = {}
        #: scope -> collection name, its directory, its pointer file (asked per search)
        self._places: dict[str, tuple[str, Path, str]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    # -- writing -------------------------------------------------------------------------

    def _config(self, dim: int, search_threads: int | None = None) -> qe.EdgeConfig:
        optimizers = (
            qe.EdgeOptimizersConfig(indexing_threshold=self.indexing_threshold_kb)
            if self.indexing_threshold_kb is not None
            else None
        )
        return qe.EdgeConfig(
            vectors={DENSE: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine)},
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
            optimizers=optimizers,
            max_search_threads=search_threads,
            wal_enabled=False,  # a version is durable once flushed; a crashed build is discarded
        )

    def _create(self, path: Path, dim: int) -> qe.EdgeShard:
        shard = qe.EdgeShard.create(str(path), self._config(dim))
        _index_filter_fields(shard)
        return shard

    @contextlib.contextmanager
    def writer(self, scope: str, model_id: str, dim: int) -> Iterator[CollectionWriter]:
        name = collection_name(scope)
        cdir = self.root / name
        cdir.mkdir(exist_ok=True)
        with sd.exclusive_lock(cdir / ".lock", self.lock_timeout):
            ptr = sd.read_pointer(cdir)
            if ptr and (ptr.model_id, ptr.dim) != (model_id, dim):
                raise ModelMismatchError(
                    f"collection {name} holds {ptr.model_id} ({ptr.dim}-d) vectors, not "
                    f"{model_id} ({dim}-d); rebuild it to change models"
                )
            current = ptr.number if ptr else 0
            sd.clean_abandoned_builds(cdir, current)
            number = sd.next_version(cdir, current)
            build, final = sd.build_dir(cdir, number), cdir / f"v{number}"
            try:
                yield from self._build(cdir, ptr, build, dim)
                os.utime(build)
                os.rename(build, final)
                sd.fsync_dir(cdir)
                sd.write_pointer(cdir, sd.Pointer(final.name, model_id, dim, time.time()))
            except BaseException:
                sd.remove_tree(build)
                if sd.read_pointer(cdir) == ptr:
                    sd.remove_tree(final)
                raise
            sd.collect_garbage(cdir, keep=self.keep_versions, grace=self.gc_grace)

    def _build(
        self, cdir: Path, ptr: sd.Pointer | None, build: Path, dim: int
    ) -> Iterator[CollectionWriter]:
        try:
            if ptr is None:
                shard = self._create(build, dim)
            else:
                sd.copy_shard(cdir / ptr.version, build, link_immutable=self.link_immutable)
                shard = qe.EdgeShard.load(str(build))
                _index_filter_fields(shard)  # a collection made before a field was filtered on
        except Exception as exc:
            raise _err("open for writing", exc) from exc
        try:
            yield EdgeWriter(shard, dim)
            try:
                shard.flush()
                if self.optimize:
                    shard.optimize()
            except Exception as exc:
                raise _err("flush", exc) from exc
        finally:
            with contextlib.suppress(Exception):
                shard.close()
        sd.fsync_tree(build)

    # -- reading -------------------------------------------------------------------------

    def _lock_for(self, name: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(name, threading.Lock())

    @contextlib.contextmanager
    def _reading(self, scope: str) -> Iterator[_Reader | None]:
        """The open reader of `scope`'s published version, swapped if CURRENT moved."""
        try:
            name, cdir, pointer = self._places[scope]
        except KeyError:
            name = collection_name(scope)
            cdir = self.root / name
            name, cdir, pointer = self._places.setdefault(
                scope, (name, cdir, str(cdir / sd.POINTER))
            )
        with self._lock_for(name):
            reader = self._readers.get(name)
            stamp = sd.pointer_stamp(pointer)
            if stamp is None:
                yield None
                return
            if reader is None or reader.stamp != stamp:
                ptr = sd.read_pointer(cdir)
                if ptr is None:
                    yield None
                    return
                if reader is not None and reader.pointer.version == ptr.version:
                    reader.stamp = stamp
                else:
                    fresh = self._open_reader(cdir, stamp)
                    self._readers[name] = fresh
                    if reader is not None:
                        reader.close()
                    reader = fresh
            yield reader

    def ready_in_process(self, scope: str) -> bool:
        """True once `scope`'s published version is open here (qdrant-edge searches holding
        the GIL); False before its first search or after a publish (one stat call)."""
        if (place := self._places.get(scope)) is None:
            return False
        name, _, pointer = place
        reader = self._readers.get(name)
        return reader is not None and reader.stamp == sd.pointer_stamp(pointer)

    def _open_reader(self, cdir: Path, stamp: tuple[int, int, int]) -> _Reader:
        readers = cdir / "readers"
        readers.mkdir(exist_ok=True)
        with sd.shared_lock(cdir / ".gc.lock", self.lock_timeout, "garbage collection of"):
            ptr = sd.read_pointer(cdir)
            if ptr is None:
                raise StoreError(f"collection {cdir.name} lost its pointer; re-run a writer")
            copy = readers / f"{ptr.version}-{os.getpid()}-{secrets.token_hex(4)}"
            fd = sd.try_exclusive(_touch(copy.with_suffix(".lock")))
            if fd is None:
                raise StoreError(f"could not own reader copy {copy.name}")
            try:
                sd.copy_shard(cdir / ptr.version, copy, link_immutable=self.link_immutable)
                # the copy's own config is rewritten (edge_config.json is never hard-linked)
                shard = qe.EdgeShard.load(str(copy), self._config(ptr.dim, self.search_threads))
            except Exception as exc:
                sd.remove_tree(copy)
                copy.with_suffix(".lock").unlink(missing_ok=True)
                os.close(fd)
                raise _err(f"open {cdir.name}/{ptr.version}", exc) from exc
        return _Reader(stamp=stamp, pointer=ptr, shard=shard, copy=copy, owner_fd=fd)

    def info(self, scope: str) -> CollectionInfo | None:
        with self._reading(scope) as r:
            if r is None:
                return None
            return CollectionInfo(
                name=collection_name(scope),
                model_id=r.pointer.model_id,
                dim=r.pointer.dim,
                points=r.shard.count(qe.CountRequest(exact=True)),
                version=r.pointer.version,
            )

    def point_hashes(self, scope: str, source: str) -> dict[str, str]:
        with self._reading(scope) as r:
            return {} if r is None else _hashes(r.shard, source)

    def count(self, scope: str, source: str | None = None) -> int:
        with self._reading(scope) as r:
            if r is None:
                return 0
            flt = _source_filter(source) if source is not None else None
            return r.shard.count(qe.CountRequest(exact=True, filter=flt))

    def exists(self, scope: str, flt: SearchFilter) -> bool:
        if matches_nothing(flt):
            return False
        key = flt.model_dump_json()
        with self._reading(scope) as r:
            if r is None:
                return False
            if (found := r.found.get(key)) is None:
                try:
                    records, _ = r.shard.scroll(
                        qe.ScrollRequest(
                            limit=1, filter=edge_filter(flt), with_payload=False, with_vector=False
                        )
                    )
                except Exception as exc:
                    raise _err("scroll", exc) from exc
                if len(r.found) >= _FOUND_KEPT:
                    r.found.clear()
                found = r.found[key] = bool(records)
            return found

    def scroll(self, scope: str, flt: SearchFilter | None = None) -> Iterator[Chunk]:
        flt = flt or SearchFilter()
        if matches_nothing(flt):
            return iter(())
        with self._reading(scope) as r:
            if r is None:
                return iter(())
            chunks = [
                Chunk.from_payload(rec.payload or {})
                for rec in _scroll(r.shard, edge_filter(flt), True)
            ]
        return iter(chunks)

    def search_batch(
        self, scope: str, queries: Sequence[VectorQuery], *, flt: SearchFilter | None = None
    ) -> list[list[Hit]]:
        requests = self._requests(queries, flt or SearchFilter(), payload=True)
        if all(r is None for r in requests):
            return [[] for _ in queries]
        with self._reading(scope) as r:
            results = [[] for _ in queries] if r is None else _query(r.shard, requests)
        return [
            [Hit(chunk=Chunk.from_payload(p.payload or {}), score=p.score) for p in points]
            for points in results
        ]

    def search_fused(
        self,
        scope: str,
        queries: Sequence[VectorQuery],
        fuse: Fuse,
        *,
        flt: SearchFilter | None = None,
    ) -> list[Hit]:
        requests = self._requests(queries, flt or SearchFilter(), payload=False)
        if all(r is None for r in requests):
            return []
        with self._reading(scope) as r:
            if r is None:
                return []
            ranked = fuse(
                [[(p.id, p.score) for p in points] for points in _query(r.shard, requests)]
            )
            try:
                records = r.shard.retrieve([i for i, _ in ranked], True, False) if ranked else []
            except Exception as exc:
                raise _err("search", exc) from exc
        payloads = {str(rec.id): rec.payload or {} for rec in records}
        return [
            Hit(chunk=Chunk.from_payload(payloads[key]), score=score)
            for i, score in ranked
            if (key := str(i)) in payloads
        ]

    def _requests(
        self, queries: Sequence[VectorQuery], flt: SearchFilter, payload: bool
    ) -> list[qe.QueryRequest | None]:
        """Each query's request under its own filter or `flt` (each checked even so); None
        where that filter matches nothing."""
        filters = query_filters(queries, flt, edge_filter)
        requests = [
            self._request(q.dense, q.sparse, q.limit, qflt, q.mode, q.prefetch, payload)
            for q, (qflt, _) in zip(queries, filters, strict=True)
        ]
        return [None if nothing else r for r, (_, nothing) in zip(requests, filters, strict=True)]

    @staticmethod
    def _request(
        dense: Sequence[float] | None,
        sparse: SparseVector | None,
        limit: int,
        flt: qe.Filter | None,
        mode: SearchMode,
        prefetch: int,
        payload: bool,
    ) -> qe.QueryRequest | None:
        if limit < 1:
            raise StoreError(f"limit must be at least 1, got {limit}")
        queries = []
        if mode in ("hybrid", "dense") and dense is not None:
            queries.append(qe.Query.Nearest(list(dense), using=DENSE))
        if mode in ("hybrid", "sparse") and sparse is not None and sparse.indices:
            sv = qe.SparseVector(sparse.indices, sparse.values)
            queries.append(qe.Query.Nearest(sv, using=SPARSE))
        if mode == "dense" and dense is None:
            raise StoreError("dense search needs a dense query vector")
        if mode == "sparse" and sparse is None:
            raise StoreError("sparse search needs a sparse query vector")
        if dense is None and sparse is None:
            raise StoreError("hybrid search needs a dense or a sparse query vector")
        if not queries:
            return None
        if len(queries) == 1:
            return qe.QueryRequest(limit=limit, query=queries[0], filter=flt, with_payload=payload)
        prefetches = [qe.Prefetch(limit=max(prefetch, limit), query=q, filter=flt) for q in queries]
        return qe.QueryRequest(
            limit=limit, prefetches=prefetches, query=_rrf(), filter=flt, with_payload=payload
        )

    def collect_garbage(self, scope: str) -> list[str]:
        """Remove old versions and dead readers' copies now (writers do this after publish)."""
        cdir = self.root / collection_name(scope)
        return (
            sd.collect_garbage(cdir, keep=self.keep_versions, grace=self.gc_grace)
            if cdir.is_dir()
            else []
        )

    def close(self) -> None:
        for name in list(self._readers):
            with self._lock_for(name):
                reader = self._readers.pop(name, None)
                if reader is not None:
                    reader.close()


def _query(shard: qe.EdgeShard, requests: list[qe.QueryRequest | None]) -> list[list[Any]]:
    """The scored points of each request, in order ([] for a request that matches nothing)."""
    live = [r for r in requests if r is not None]
    try:
        found = iter(shard.query_batch(qe.QueryBatchRequest(live)) if live else [])
    except Exception as exc:
        raise _err("search", exc) from exc
    return [[] if req is None else next(found) for req in requests]


def _rrf() -> Any:
    return qe.Fusion.Rrf(k=RRF_K)  # the stubs' ScoringQueryType omits Fusion.Rrf


def _touch(path: Path) -> Path:
    path.touch()
    return path


def _index_filter_fields(shard: qe.EdgeShard) -> None:
    """A payload index on every FILTER_FIELDS field the shard lacks: without one, a filter that
    few points match (marks: change) scans every point's payload on each query."""
    have = set(shard.info().payload_schema)
    kinds = qe.PayloadSchemaType
    for name in FILTER_FIELDS:
        if name not in have:
            schema = kinds.Datetime if name == "date" else kinds.Keyword
            shard.update(qe.UpdateOperation.create_field_index(name, schema))
