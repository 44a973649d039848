"""Looking for leaked secrets: canary values given to the platform as secrets, then searched
for in every file under a directory (KP_HOME: Dagster's sqlite event log and compute logs,
JSON Lines snapshots, shards, caches, the query log), in log files, and in captured texts (CLI
output, MCP responses, exception messages).

A canary is `<shape>CANARY<16 hex>`: the shape lets it pass for the credential it stands in
for (`pk_1_` for ClickUp, `sk-` for OpenAI), and the marker finds it even when a message
printed only part of it (from `CANARY` and 8 hex digits on). A value is also looked for in
its simple encodings: URL-encoded (a query string, a form body), JSON-escaped, and base64
(standard and URL-safe, at any offset: inside a Basic auth header or a JWT). gzip files are
searched decompressed as well as in their bytes."""

from __future__ import annotations

import base64
import errno
import gzip
import json
import os
import re
import secrets
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from urllib.parse import quote, quote_plus

_MARKER = re.compile(r"CANARY[0-9a-f]{16}")


def canary(shape: str = "") -> str:
    """A fresh canary value, e.g. `canary("sk-proj-")`."""
    return f"{shape}CANARY{secrets.token_hex(8)}"


def _base64_forms(data: bytes) -> set[str]:
    """What base64 of any text holding `data` holds, whatever `data`'s offset in it: for each
    of the three alignments, the characters that depend on `data` alone."""
    forms: set[str] = set()
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + data).decode()
        start = 4 if shift else 0  # the first quantum mixes in the bytes before `data`
        stable = encoded[start:-4]  # the last may mix in the bytes after it (or padding)
        if len(stable) >= 8:
            forms |= {stable, stable.replace("+", "-").replace("/", "_")}
    return forms


def _needles(value: str) -> list[bytes]:
    """The value, its marker cut to `CANARY` + 8 hex (a print of part of it), and its
    URL-encoded, JSON-escaped and base64 forms."""
    marker = _MARKER.search(value)
    texts = {
        value,
        marker.group(0)[:14] if marker else value,
        quote(value, safe=""),
        quote_plus(value),
        json.dumps(value)[1:-1],
        *_base64_forms(value.encode()),
    }
    return [n.encode() for n in texts]


def _decoded(path: Path, data: bytes) -> bytes:
    """What to search in a file: its bytes, plus the decompressed content of gzip."""
    if data[:2] == b"\x1f\x8b":
        try:
            return data + gzip.decompress(data)
        except (OSError, EOFError):
            return data
    return data


def data_of(path: Path) -> bytes:
    """A file's bytes, holes left out: Qdrant's shard files are sparse (a few KB of data in
    32 MB), and a hole reads as zeros, which hold no secret. The data extents are joined by a
    zero byte, so no needle is found across a hole."""
    with path.open("rb") as fh:
        fd, size, parts, pos = fh.fileno(), os.fstat(fh.fileno()).st_size, [], 0
        while pos < size:
            try:
                start = os.lseek(fd, pos, os.SEEK_DATA)
                end = os.lseek(fd, start, os.SEEK_HOLE)
            except OSError as exc:
                if exc.errno == errno.ENXIO:  # no data past `pos`
                    break
                fh.seek(0)  # no SEEK_DATA on this file system: all of it
                return fh.read()
            fh.seek(start)
            parts.append(fh.read(end - start))
            pos = end
    return b"\0".join(parts)


def files_under(root: Path) -> Iterator[Path]:
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            if path.is_file() and not path.is_symlink():
                yield path


def find_leaks(
    canaries: Mapping[str, str],
    *,
    roots: Iterable[Path] = (),
    files: Iterable[Path] = (),
    texts: Mapping[str, str] | None = None,
) -> list[str]:
    """`<where>: <canary name>` for every place a canary turns up: a file's name or content
    (every file under each of `roots`, and each of `files`), or one of `texts` (label ->
    captured text). An empty list means no leak."""
    needles = {name: _needles(value) for name, value in canaries.items()}
    hits: list[str] = []

    def scan(where: str, blob: bytes) -> None:
        hits.extend(
            f"{where}: {name}" for name, ns in needles.items() if any(n in blob for n in ns)
        )

    paths = [p for root in roots for p in files_under(Path(root))] + [Path(f) for f in files]
    for path in paths:
        scan(f"{path} (name)", str(path).encode())
        try:
            data = data_of(path)
        except OSError as exc:
            hits.append(f"{path}: unreadable ({exc.strerror})")
            continue
        scan(str(path), _decoded(path, data))
    for label, text in (texts or {}).items():
        scan(label, text.encode("utf-8", "replace"))
    return hits
