"""The snapshot file formats (snapshots.py), from the standard library and numpy alone.

- Documents and chunks: JSON Lines. The first line is a header, `{"snapshot": <kind>,
  "version": 1, "count": <rows>, ...}` (chunks add `doc_keys`, doc id -> the doc key its
  chunks were made under); then one model's JSON per line. Plain text, so an operator can
  grep it and tests/leaks.py searches it as it is.
- Vectors: an uncompressed `.npz` (numpy's zip of arrays, read without pickle): `model_id`,
  `hashes`, `dense` (float32, rows x dim), and the sparse vectors as `indices` and `values`
  cut at `offsets`.

bench/snapshot_formats.py measures them against the Parquet files they replace. A file that
is not what this version writes raises SnapshotError."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from knowledge_platform.errors import KnowledgePlatformError

VERSION = 1

#: Writes one snapshot file at the path it is given.
Writer = Callable[[Path], None]


class SnapshotError(KnowledgePlatformError):
    """A snapshot file under KP_HOME is not one this version can read."""


def _unreadable(path: Path, why: str) -> SnapshotError:
    return SnapshotError(
        f"{path} is not a snapshot this version can read ({why}); remove "
        f"{path.parent} to rebuild it with a full pull on the next run"
    )


@dataclass(frozen=True)
class Lines:
    header: dict[str, Any]
    rows: list[bytes]


def write_lines(path: Path, kind: str, rows: Sequence[str], **header: Any) -> None:
    """`rows`: one JSON text each (JSON has no raw line breaks, so one line each)."""
    head = json.dumps(
        {"snapshot": kind, "version": VERSION, "count": len(rows), **header}, sort_keys=True
    )
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        fh.write(head + "\n")
        for row in rows:
            fh.write(row + "\n")


def read_lines(path: Path, kind: str) -> Lines | None:
    """The header and the rows (bytes, for `model_validate_json`); None if there is no file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    head, _, body = data.partition(b"\n")
    try:
        header = json.loads(head)
    except ValueError:
        raise _unreadable(path, "no header line") from None
    if not isinstance(header, dict) or header.get("snapshot") != kind:
        raise _unreadable(path, f"not a {kind} snapshot")
    if header.get("version") != VERSION:
        raise _unreadable(path, f"format version {header.get('version')!r}")
    rows = body.split(b"\n")
    if rows.pop() != b"" or len(rows) != header.get("count"):  # ends with a newline, whole
        raise _unreadable(path, f"{len(rows)} rows of {header.get('count')}: cut short")
    return Lines(header, rows)


@dataclass(frozen=True)
class Vectors:
    model_id: str
    hashes: list[str]
    dense: np.ndarray
    indices: list[list[int]]
    values: list[list[float]]


def write_vectors(path: Path, vectors: Vectors) -> None:
    sizes = [len(ix) for ix in vectors.indices]
    with path.open("wb") as fh:
        np.savez(
            fh,
            version=np.array(VERSION),
            model_id=np.array(vectors.model_id),
            hashes=np.array(vectors.hashes, dtype=str),
            dense=vectors.dense.astype(np.float32, copy=False),
            offsets=np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]),
            indices=np.fromiter((i for ix in vectors.indices for i in ix), np.uint32),
            values=np.fromiter((v for vs in vectors.values for v in vs), np.float32),
        )


def read_vectors(path: Path) -> Vectors | None:
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            if int(z["version"]) != VERSION:
                raise _unreadable(path, f"format version {int(z['version'])}")
            offsets, indices, values = z["offsets"], z["indices"], z["values"]
            cuts = list(zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True))
            return Vectors(
                model_id=str(z["model_id"]),
                hashes=z["hashes"].tolist(),
                dense=z["dense"],
                indices=[indices[a:b].tolist() for a, b in cuts],
                values=[values[a:b].tolist() for a, b in cuts],
            )
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        raise _unreadable(path, type(exc).__name__) from None
