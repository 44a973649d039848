"""Vector-store speed: write N random 384-d + sparse points, then time dense, sparse and
hybrid queries, on Qdrant Edge and on qdrant-client (`:memory:` local mode unless --url
names a server). Prints a table and writes it to bench/results/store_speed.md.

    .venv/bin/python bench/store_speed.py [--n 50000] [--queries 100] [--url URL]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from knowledge_platform.models import Point, SparseVector
from knowledge_platform.store import shard_dirs as sd
from knowledge_platform.store.base import SearchFilter, SearchMode, VectorStore
from knowledge_platform.store.edge import EdgeStore
from knowledge_platform.store.server import QdrantServerStore
from tests.store_fixtures import make_chunk

DIM, VOCAB, TERMS, MODEL = 384, 30_000, 30, "bench-random-384"
RESULTS = Path(__file__).resolve().parent / "results" / "store_speed.md"


def make_data(n: int, seed: int = 0) -> tuple[list[Point], np.ndarray]:
    rng = np.random.default_rng(seed)
    dense = rng.standard_normal((n, DIM)).astype(np.float32)
    dense /= np.linalg.norm(dense, axis=1, keepdims=True)
    sources = ["memory_files", "clickup", "google_drive", "website"]
    points = []
    for i in range(n):
        idx = np.sort(rng.choice(VOCAB, TERMS, replace=False))
        chunk = make_chunk(source=sources[i % 4], n=i, source_id=f"doc-{i}")
        points.append(
            Point(
                id=chunk.id,
                dense=dense[i].tolist(),
                sparse=SparseVector(
                    indices=idx.tolist(), values=rng.random(TERMS).round(3).tolist()
                ),
                payload=chunk.payload(),
            )
        )
    return points, dense


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def write(store: VectorStore, points: list[Point], deletes: list[str] = ()) -> None:  # type: ignore[assignment]
    with store.writer("internal", MODEL, DIM) as w:
        for i in range(0, len(points), 1000):
            w.upsert(points[i : i + 1000])
        if deletes:
            w.delete(list(deletes))


def latencies(store: VectorStore, points: list[Point], queries: int) -> dict[str, str]:
    rng = random.Random(1)
    flt = SearchFilter(sources=["clickup", "memory_files"])
    out: dict[str, str] = {}
    modes: dict[str, SearchMode] = {
        "dense": "dense",
        "sparse": "sparse",
        "hybrid": "hybrid",
        "hybrid+filter": "hybrid",
    }
    for mode, engine_mode in modes.items():
        ms = []
        for _ in range(queries):
            p = points[rng.randrange(len(points))]
            sparse = SparseVector(indices=p.sparse.indices[:6], values=[1.0] * 6)
            f = flt if mode.endswith("filter") else None
            ms.append(
                1000
                * timed(
                    lambda p=p, s=sparse, m=engine_mode, f=f: store.search(
                        "internal", p.dense, s, limit=10, mode=m, flt=f
                    )
                )
            )
        ms.sort()
        out[mode] = f"{statistics.median(ms):.2f} / {ms[int(len(ms) * 0.95) - 1]:.2f}"
    return out


def bench_edge(points: list[Point], queries: int, root: Path) -> dict[str, str]:
    row: dict[str, str] = {"engine": "Qdrant Edge (EdgeStore)"}
    store = EdgeStore(root, optimize=False)
    row["write all"] = f"{timed(lambda: write(store, points)):.1f} s (no optimize)"
    row["first read (copy+load)"] = f"{timed(lambda: store.count('internal')):.2f} s"
    row.update({f"{k} [plain]": v for k, v in latencies(store, points, queries).items()})
    store.close()
    store = EdgeStore(root, optimize=True)
    row["optimize (HNSW) + publish"] = f"{timed(lambda: write(store, [])):.1f} s"
    cdir = root / "internal"
    v2 = cdir / sd.read_pointer(cdir).version  # type: ignore[union-attr]
    row["reader swap (copy+load)"] = f"{timed(lambda: store.count('internal')):.2f} s"
    row.update(latencies(store, points, queries))
    changed = [
        p.model_copy(update={"payload": {**p.payload, "text": "changed"}}) for p in points[:1000]
    ]
    row["write 1k + delete 1k"] = (
        f"{timed(lambda: write(store, changed, [p.id for p in points[1000:2000]])):.2f} s"
    )
    v3 = cdir / sd.read_pointer(cdir).version  # type: ignore[union-attr]
    v2_inodes = {f.stat().st_ino for f in v2.rglob("*") if f.is_file()}
    apparent = sum(f.stat().st_size for f in v2.rglob("*") if f.is_file())
    row["version on disk"] = f"{sd.disk_usage(v2) / 1e6:.0f} MB (apparent {apparent / 1e6:.0f} MB)"
    row["next version, new blocks"] = (
        f"{sd.disk_usage(v3, exclude_inodes=v2_inodes) / 1e6:.0f} MB "
        f"(without links {sd.disk_usage(v3) / 1e6:.0f} MB)"
    )
    store.close()
    return row


def bench_server(points: list[Point], queries: int, url: str) -> dict[str, str]:
    label = "qdrant-client :memory: (local mode)" if url == ":memory:" else f"Qdrant {url}"
    row: dict[str, str] = {"engine": label}
    store = QdrantServerStore(url=url)
    row["write all"] = f"{timed(lambda: write(store, points)):.1f} s"
    row.update(latencies(store, points, queries))
    store.close()
    return row


def table(rows: list[dict[str, str]]) -> str:
    """One row per measurement, one column per engine."""
    keys = [k for k in dict.fromkeys(k for r in rows for k in r) if k != "engine"]
    lines = ["| | " + " | ".join(r["engine"] for r in rows) + " |", "|---|" + "---|" * len(rows)]
    lines += ["| " + k + " | " + " | ".join(r.get(k, "-") for r in rows) + " |" for k in keys]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--server-queries", type=int, default=20)
    ap.add_argument("--url", default=":memory:")
    ap.add_argument("--skip-server", action="store_true")
    args = ap.parse_args()
    points, _ = make_data(args.n)
    rows = []
    with tempfile.TemporaryDirectory(prefix="kp-bench-") as tmp:
        rows.append(bench_edge(points, args.queries, Path(tmp)))
    if not args.skip_server:
        rows.append(bench_server(points, args.server_queries, args.url))
    title = (
        f"{args.n} points, {DIM}-d dense + {TERMS}-term sparse; query ms p50 / p95, "
        "limit 10, prefetch 50"
    )
    text = f"## store_speed\n\n{title}\n\n{table(rows)}\n"
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text)


if __name__ == "__main__":
    main()
