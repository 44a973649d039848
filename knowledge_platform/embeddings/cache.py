"""Persistent embedding cache keyed by (model id, content hash): nothing is embedded twice.

One sqlite file under a directory, in WAL mode with a busy timeout, so several processes (Dagster
runs of different sources) can read and write it at once.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from knowledge_platform.embeddings.base import Embedder

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    model_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model_id, content_hash)
) WITHOUT ROWID
"""
_CHUNK = 500  # host parameters per query, well under sqlite's limit


class EmbeddingCache:
    """float32 vectors by (model_id, content_hash) in `<directory>/embeddings.sqlite3`."""

    def __init__(self, directory: Path, *, busy_timeout_s: float = 60.0) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / "embeddings.sqlite3"
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(
            self.path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        self._use_wal(time.monotonic() + busy_timeout_s)
        self._conn.execute("PRAGMA synchronous = NORMAL")
        self._conn.execute(_SCHEMA)

    def _use_wal(self, deadline: float) -> None:
        """Switch the file to WAL (persistent: later opens only read the mode). The switch
        wants an exclusive lock and sqlite does not wait for it through the busy handler,
        so processes opening the cache together retry here until `deadline`."""
        while True:
            try:
                mode = self._conn.execute("PRAGMA journal_mode").fetchone()[0]
                if str(mode).lower() != "wal":
                    self._conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def get_many(self, model_id: str, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """The cached vectors among `hashes`; misses are simply absent from the result."""
        wanted = list(dict.fromkeys(hashes))
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(wanted), _CHUNK):
                part = wanted[start : start + _CHUNK]
                marks = ",".join("?" * len(part))
                rows = self._conn.execute(
                    "SELECT content_hash, vector FROM vectors "
                    f"WHERE model_id = ? AND content_hash IN ({marks})",
                    [model_id, *part],
                )
                for content_hash, blob in rows:
                    found[content_hash] = np.frombuffer(blob, dtype=np.float32).copy()
        return found

    def put_many(self, model_id: str, vectors: Mapping[str, np.ndarray]) -> None:
        rows = [
            (model_id, h, np.ascontiguousarray(v, dtype=np.float32).tobytes())
            for h, v in vectors.items()
        ]
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def count(self, model_id: str) -> int:
        with self._lock:
            (n,) = self._conn.execute(
                "SELECT COUNT(*) FROM vectors WHERE model_id = ?", [model_id]
            ).fetchone()
        return int(n)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> EmbeddingCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CachedEmbeddings(NamedTuple):
    vectors: np.ndarray  # (len(items), dim) float32, in the order of `items`
    n_embedded: int  # texts actually sent to the embedder
    n_cached: int  # items served without embedding (from the cache or a duplicate in the call)


def embed_with_cache(
    embedder: Embedder, cache: EmbeddingCache, items: Sequence[tuple[str, str]]
) -> CachedEmbeddings:
    """Vectors for `(content_hash, text)` items, embedding only hashes the cache lacks.

    Identical hashes within one call are embedded once. New vectors are stored before return.
    """
    hashes = [h for h, _ in items]
    known = cache.get_many(embedder.model_id, hashes)
    missing: dict[str, str] = {}
    for content_hash, text in items:
        if content_hash not in known:
            missing.setdefault(content_hash, text)
    if missing:
        fresh = embedder.embed_documents(list(missing.values()))
        new = dict(zip(missing, fresh, strict=True))
        cache.put_many(embedder.model_id, new)
        known.update(new)
    vectors = np.zeros((len(items), embedder.dim), dtype=np.float32)
    for row, content_hash in enumerate(hashes):
        vectors[row] = known[content_hash]
    return CachedEmbeddings(vectors, len(missing), len(items) - len(missing))
