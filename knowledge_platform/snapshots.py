"""Intermediate data of each (source, scope) as Parquet under KP_HOME, written atomically.

Layout: <data>/<source>/<scope>/raw.parquet, chunks.parquet, embeddings.parquet,
cursor.json (the connector's) and sync.json (the pipeline's: what to retry, deletions held
or confirmed, the last pull's problems). A failed step never replaces the last good file."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from knowledge_platform.models import Chunk, Document, SparseVector


class SnapshotStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def dir(self, source: str, scope: str) -> Path:
        return self.root / source / scope

    def _path(self, source: str, scope: str, name: str) -> Path:
        return self.dir(source, scope) / name

    # documents -------------------------------------------------------------------------
    def write_documents(self, source: str, scope: str, docs: Sequence[Document]) -> None:
        frame = pl.DataFrame(
            {
                "source_id": [d.source_id for d in docs],
                "title": [d.title for d in docs],
                "json": [d.model_dump_json() for d in docs],
            },
            schema={"source_id": pl.String, "title": pl.String, "json": pl.String},
        )
        self._write(frame, self._path(source, scope, "raw.parquet"))

    def read_documents(self, source: str, scope: str) -> list[Document] | None:
        frame = self._read(self._path(source, scope, "raw.parquet"))
        if frame is None:
            return None
        return [Document.model_validate_json(j) for j in frame["json"]]

    # chunks ----------------------------------------------------------------------------
    def write_chunks(
        self,
        source: str,
        scope: str,
        chunks: Sequence[Chunk],
        doc_keys: Mapping[str, str] | None = None,
    ) -> None:
        """`doc_keys`: doc_id -> the Chunker.doc_key its chunks were made under (for reuse)."""
        keys = doc_keys or {}
        frame = pl.DataFrame(
            {
                "id": [c.id for c in chunks],
                "doc_id": [c.doc_id for c in chunks],
                "content_hash": [c.content_hash for c in chunks],
                "doc_key": [keys.get(c.doc_id, "") for c in chunks],
                "json": [c.model_dump_json() for c in chunks],
            },
            schema={
                name: pl.String for name in ("id", "doc_id", "content_hash", "doc_key", "json")
            },
        )
        self._write(frame, self._path(source, scope, "chunks.parquet"))

    def read_chunks(self, source: str, scope: str) -> list[Chunk] | None:
        frame = self._read(self._path(source, scope, "chunks.parquet"))
        if frame is None:
            return None
        return [Chunk.model_validate_json(j) for j in frame["json"]]

    def read_chunks_by_key(self, source: str, scope: str) -> dict[str, list[Chunk]]:
        """The last chunks grouped by their document's doc key; {} before the first run (or
        from a snapshot written without keys)."""
        frame = self._read(self._path(source, scope, "chunks.parquet"))
        if frame is None or "doc_key" not in frame.columns:
            return {}
        grouped: dict[str, list[Chunk]] = {}
        for key, data in zip(frame["doc_key"], frame["json"], strict=True):
            if key:
                grouped.setdefault(key, []).append(Chunk.model_validate_json(data))
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
        frame = pl.DataFrame(
            {
                "content_hash": list(hashes),
                "dense": dense.astype(np.float32),
                "sparse_indices": [s.indices for s in sparse],
                "sparse_values": [s.values for s in sparse],
            },
            schema={
                "content_hash": pl.String,
                "dense": pl.Array(pl.Float32, dense.shape[1]),
                "sparse_indices": pl.List(pl.UInt32),
                "sparse_values": pl.List(pl.Float32),
            },
        )
        self._write(
            frame.with_columns(pl.lit(model_id).alias("model_id")),
            self._path(source, scope, "embeddings.parquet"),
        )

    def read_embeddings(
        self, source: str, scope: str
    ) -> tuple[str, dict[str, tuple[np.ndarray, SparseVector]]] | None:
        """(model id, content_hash -> (dense, sparse)), or None before the first run."""
        frame = self._read(self._path(source, scope, "embeddings.parquet"))
        if frame is None:
            return None
        model_id = frame["model_id"][0] if frame.height else ""
        dense = frame["dense"].to_numpy()
        out = {
            h: (dense[i], SparseVector(indices=list(ix), values=list(vs)))
            for i, (h, ix, vs) in enumerate(
                zip(
                    frame["content_hash"],
                    frame["sparse_indices"],
                    frame["sparse_values"],
                    strict=True,
                )
            )
        }
        return model_id, out

    # cursor ----------------------------------------------------------------------------
    def read_cursor(self, source: str, scope: str) -> dict[str, Any] | None:
        return self._read_json(self._path(source, scope, "cursor.json"))

    def write_cursor(self, source: str, scope: str, cursor: dict[str, Any]) -> None:
        self._write_json(self._path(source, scope, "cursor.json"), cursor)

    # sync state (the pipeline's own, beside the connector's cursor) ----------------------
    def read_sync(self, source: str, scope: str) -> dict[str, Any]:
        return self._read_json(self._path(source, scope, "sync.json")) or {}

    def write_sync(self, source: str, scope: str, state: dict[str, Any]) -> None:
        self._write_json(self._path(source, scope, "sync.json"), state)

    # io --------------------------------------------------------------------------------
    @staticmethod
    def _read_json(path: Path) -> dict[str, Any] | None:
        return json.loads(path.read_text()) if path.exists() else None

    @staticmethod
    def _write_json(path: Path, data: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, sort_keys=True, default=str))
        os.replace(tmp, path)

    @staticmethod
    def _write(frame: pl.DataFrame, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        frame.write_parquet(tmp)
        os.replace(tmp, path)

    @staticmethod
    def _read(path: Path) -> pl.DataFrame | None:
        return pl.read_parquet(path) if path.exists() else None
