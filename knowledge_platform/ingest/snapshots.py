"""Intermediate data of each (source, scope) under KP_HOME, written atomically.

Layout: <data>/<source>/<scope>/raw.jsonl (documents), chunks.jsonl (chunks, and the doc key
each document was chunked under), embeddings.npz (vectors by content hash), cursor.json (the
connector's) and sync.json (the pipeline's: what to retry, deletions held or confirmed, the
last pull's problems). A failed step never replaces the last good file. The file formats are
snapshot_files.py's.

Earlier versions wrote raw/chunks/embeddings as Parquet, which this one cannot read (its
reader was the 175 MB polars; README "Dependencies"). Such a file counts as absent, and while
raw.parquet stands without raw.jsonl the connector's cursor counts as absent too: the next
pull is a full one, so a snapshot that cannot be read never turns an incremental pull into
deletions. The embedding cache keeps every vector, so only the pull and the chunking run
again. Each step's write removes its own Parquet file."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from knowledge_platform.ingest import snapshot_files as files
from knowledge_platform.ingest.sync_state import SyncState
from knowledge_platform.models import Chunk, Document, SparseVector

RAW, CHUNKS, EMBEDDINGS = "raw.jsonl", "chunks.jsonl", "embeddings.npz"
#: What earlier versions wrote in their place.
LEGACY = {RAW: "raw.parquet", CHUNKS: "chunks.parquet", EMBEDDINGS: "embeddings.parquet"}


class SnapshotStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def dir(self, source: str, scope: str) -> Path:
        return self.root / source / scope

    def _path(self, source: str, scope: str, name: str) -> Path:
        return self.dir(source, scope) / name

    # documents -------------------------------------------------------------------------
    def write_documents(self, source: str, scope: str, docs: Sequence[Document]) -> None:
        self._replace(
            source,
            scope,
            RAW,
            lambda tmp: files.write_lines(tmp, "documents", [d.model_dump_json() for d in docs]),
        )

    def read_documents(self, source: str, scope: str) -> list[Document] | None:
        read = files.read_lines(self._path(source, scope, RAW), "documents")
        return None if read is None else [Document.model_validate_json(r) for r in read.rows]

    # chunks ----------------------------------------------------------------------------
    def write_chunks(
        self,
        source: str,
        scope: str,
        chunks: Sequence[Chunk],
        doc_keys: Mapping[str, str] | None = None,
    ) -> None:
        """`doc_keys`: doc_id -> the Chunker.doc_key its chunks were made under (for reuse)."""
        self._replace(
            source,
            scope,
            CHUNKS,
            lambda tmp: files.write_lines(
                tmp, "chunks", [c.model_dump_json() for c in chunks], doc_keys=dict(doc_keys or {})
            ),
        )

    def read_chunks(self, source: str, scope: str) -> list[Chunk] | None:
        read = files.read_lines(self._path(source, scope, CHUNKS), "chunks")
        return None if read is None else [Chunk.model_validate_json(r) for r in read.rows]

    def read_chunks_by_key(self, source: str, scope: str) -> dict[str, list[Chunk]]:
        """The last chunks grouped by their document's doc key; {} before the first run (or
        from a snapshot written without keys)."""
        read = files.read_lines(self._path(source, scope, CHUNKS), "chunks")
        keys: dict[str, str] = dict(read.header.get("doc_keys") or {}) if read else {}
        grouped: dict[str, list[Chunk]] = {}
        for row in read.rows if read and keys else ():
            chunk = Chunk.model_validate_json(row)
            key = keys.get(chunk.doc_id)
            if key:
                grouped.setdefault(key, []).append(chunk)
        return grouped

    # embeddings ------------------------------------------------------------------------
    def write_embeddings(
        self,
        source: str,
        scope: str,
        hashes: Sequence[str],
        dense: np.ndarray,
        sparse: Sequence[SparseVector],
        model_id: str,
    ) -> None:
        vectors = files.Vectors(
            model_id,
            list(hashes),
            dense.astype(np.float32),
            [s.indices for s in sparse],
            [s.values for s in sparse],
        )
        self._replace(source, scope, EMBEDDINGS, lambda tmp: files.write_vectors(tmp, vectors))

    def read_embeddings(
        self, source: str, scope: str
    ) -> tuple[str, dict[str, tuple[np.ndarray, SparseVector]]] | None:
        """(model id, content_hash -> (dense, sparse)), or None before the first run."""
        vectors = files.read_vectors(self._path(source, scope, EMBEDDINGS))
        if vectors is None:
            return None
        out = {
            h: (
                vectors.dense[i],
                # our own file, written from validated vectors: no need to validate again
                SparseVector.model_construct(indices=ix, values=vs),
            )
            for i, (h, ix, vs) in enumerate(
                zip(vectors.hashes, vectors.indices, vectors.values, strict=True)
            )
        }
        return (vectors.model_id if out else ""), out

    # cursor ----------------------------------------------------------------------------
    def read_cursor(self, source: str, scope: str) -> dict[str, Any] | None:
        """The connector's cursor as stored (JSON; `Connector.load_cursor` types it with the
        connector's model); None before the first pull, and while the documents it belongs to
        are only in a Parquet snapshot this version cannot read."""
        if self._legacy(source, scope, RAW):
            return None
        return self._read_json(self._path(source, scope, "cursor.json"))

    def write_cursor(self, source: str, scope: str, cursor: dict[str, Any]) -> None:
        self._write_json(self._path(source, scope, "cursor.json"), cursor)

    # sync state (the pipeline's own, beside the connector's cursor) ----------------------
    def read_sync(self, source: str, scope: str) -> SyncState:
        return SyncState.model_validate(
            self._read_json(self._path(source, scope, "sync.json")) or {}
        )

    def write_sync(self, source: str, scope: str, state: SyncState) -> None:
        self._write_json(self._path(source, scope, "sync.json"), state.model_dump(mode="json"))

    # io --------------------------------------------------------------------------------
    def _legacy(self, source: str, scope: str, name: str) -> bool:
        """`name` exists only as an earlier version's Parquet file."""
        return (
            not self._path(source, scope, name).exists()
            and self._path(source, scope, LEGACY[name]).exists()
        )

    def _replace(self, source: str, scope: str, name: str, write: files.Writer) -> None:
        """Write `name` through a temporary file, then drop the Parquet file it replaces."""
        path = self._path(source, scope, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        write(tmp)
        os.replace(tmp, path)
        self._path(source, scope, LEGACY[name]).unlink(missing_ok=True)

    @staticmethod
    def _read_json(path: Path) -> dict[str, Any] | None:
        return json.loads(path.read_text()) if path.exists() else None

    @staticmethod
    def _write_json(path: Path, data: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, sort_keys=True, default=str))
        os.replace(tmp, path)
