"""Ingest and query speed of the embedded default on BEIR SciFact.

Ingest: the `beir` source's four assets materialized by Dagster (sqlite instance under a
temporary KP_HOME, as `kp index` runs them): documents/s, chunks/s, the share of the run
spent in the embedding model, and the run's time over the time of embedding the same chunk
texts alone. Then a no-op re-run (embedding calls must be 0) and a re-run after editing 1% of
the documents (must embed exactly those documents' chunks).

Query: collections of 5k / 50k (/ 200k) chunks built from SciFact's real chunks and vectors
(copies get new ids, a marked text and small noise on both vectors) written through the
store's writer; `kp mcp` started as a subprocess on a free port; knowledge_search over HTTP
with the admin bearer token: one FastMCP client's p50/p95/p99 (one session, as an agent keeps
it) and the same calls as bare JSON-RPC POSTs (the service without the client's own work),
8 concurrent clients' throughput, errors and the service's CPU per request, the service's RSS,
and the same queries in-process (Retriever, store alone).

    .venv/bin/python bench/speed.py [--sizes 5000,50000] [--max-documents N] [--queries 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _common import (
    DEFAULT_DATA,
    SCOPE,
    SOURCE,
    bench_home,
    index,
    load_average,
    markdown_table,
    platform_runtime,
    write_results,
)

from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.ingest.runtime import IngestRuntime
from knowledge_platform.models import Chunk, Point, SparseVector, chunk_id
from knowledge_platform.serve.evaluation import read_qrels, read_queries
from knowledge_platform.serve.retrieval import DEFAULT_FUSION, blend

STEPS = ("raw", "chunks", "embeddings", "collection")
NOISE = 0.01  # per-dimension noise on copies' dense vectors: cosine to the original ~0.98
LIMIT = 10  # hits per knowledge_search call
PREFETCH = 50  # Retriever.search's default: the depth of each list the blend fuses
MCP_VERSION = "2026-07-28"  # the protocol revision the FastMCP client speaks


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def ms3(values: list[float]) -> str:
    return f"{pct(values, 50):.1f} / {pct(values, 95):.1f} / {pct(values, 99):.1f}"


# -- ingest -------------------------------------------------------------------------------------


class EmbedTimer:
    """Seconds inside the model, calls and texts sent, of every embedder of the embedder's
    class in this process: a Dagster run builds its own (the embedder resource), so the
    class's method is wrapped, not one instance's."""

    def __init__(self, embedder: Embedder) -> None:
        self.seconds = 0.0
        self.calls = 0
        self.texts = 0
        cls = type(embedder)
        inner = cls.embed_documents

        def timed(this: Embedder, texts: Sequence[str]) -> np.ndarray:
            started = time.perf_counter()
            try:
                return inner(this, texts)
            finally:
                self.seconds += time.perf_counter() - started
                self.calls += 1
                self.texts += len(texts)

        setattr(cls, "embed_documents", timed)  # noqa: B010 - a method of the class, for the run
        self.alone = lambda texts: inner(embedder, texts)


def per_step(run: Any) -> str:
    return " / ".join(f"{run.step_seconds.get(s, 0):.1f}" for s in STEPS) + " s"


def edit_corpus(corpus: Path, share: float) -> set[str]:
    """Change title and text of every (1/share)-th document; their ids."""
    import json

    lines = corpus.read_text(encoding="utf-8").splitlines()
    step = round(1 / share)
    changed: set[str] = set()
    for i in range(0, len(lines), step):
        row = json.loads(lines[i])
        row["title"] = f"{row['title']} (revised)"
        row["text"] = f"{row['text']} Revised in the benchmark."
        lines[i] = json.dumps(row)
        changed.add(str(row["_id"]))
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return changed


def bench_ingest(
    bh: Any, runtime: IngestRuntime, corpus: Path
) -> tuple[list[list[str]], list[str]]:
    from dagster import DagsterInstance

    from kp.indexing import ensure_dagster_home

    ensure_dagster_home(bh.settings)
    instance = DagsterInstance.from_config(str(bh.settings.dagster_home))
    started = time.perf_counter()
    embedder = runtime.embedder
    load_s = time.perf_counter() - started
    timer = EmbedTimer(embedder)

    full = index(bh.settings, instance)
    docs = full.metadata["raw"]["documents"]
    n_chunks = full.metadata["chunks"]["chunks"]
    embed_s, embed_calls = timer.seconds, timer.calls
    texts = list(
        {
            c.content_hash: c.embedding_text()
            for c in runtime.snapshots.read_chunks(SOURCE, SCOPE) or []
        }.values()
    )
    started = time.perf_counter()
    timer.alone(texts)
    alone_s = time.perf_counter() - started

    before = (timer.calls, timer.texts)
    noop = index(bh.settings, instance)
    noop_calls = timer.calls - before[0]

    changed = edit_corpus(corpus, 0.01)
    before = (timer.calls, timer.texts)
    edit = index(bh.settings, instance)
    chunks_after = runtime.snapshots.read_chunks(SOURCE, SCOPE) or []
    expected = sum(1 for c in chunks_after if c.source_id in changed)
    sent = timer.texts - before[1]
    rows = [
        [
            "full ingest",
            f"{full.seconds:.1f} s",
            f"{docs} docs, {n_chunks} chunks: {docs / full.seconds:.1f} docs/s, "
            f"{n_chunks / full.seconds:.1f} chunks/s",
        ],
        [
            "  per step",
            per_step(full),
            "raw / chunks / embeddings / collection (checks: "
            f"{'all passed' if all(full.checks.values()) else full.checks})",
        ],
        [
            "  in the embedding model",
            f"{embed_s:.1f} s",
            f"{100 * embed_s / full.seconds:.0f}% of the run ({embed_calls} calls)",
        ],
        [
            "embedding the same chunks alone",
            f"{alone_s:.1f} s",
            f"ingest / embed-alone = {full.seconds / alone_s:.2f} (target <= 1.15); model load "
            f"{load_s:.1f} s before the run",
        ],
        [
            "no-op reindex",
            f"{noop.seconds:.1f} s",
            f"{noop_calls} embedding calls, embedded {noop.metadata['embeddings']['embedded']} "
            f"(must be 0); {noop.metadata['chunks']['reused_documents']} of {docs} documents' "
            f"chunks reused; {100 * noop.seconds / full.seconds:.1f}% of full ingest "
            f"(target <= 5%); per step {per_step(noop)}",
        ],
        [
            "reindex after editing 1% of documents",
            f"{edit.seconds:.1f} s",
            f"{len(changed)} docs edited; embedded {edit.metadata['embeddings']['embedded']} "
            f"chunks, texts sent to the model {sent}, chunks of those docs {expected} "
            f"({'exact' if sent == expected else 'MISMATCH'}); collection "
            f"updated {edit.metadata['collection']['updated']}, added "
            f"{edit.metadata['collection']['added']}, deleted "
            f"{edit.metadata['collection']['deleted']}",
        ],
    ]
    return rows, texts


# -- scaled collections -------------------------------------------------------------------------


def scale_points(runtime: IngestRuntime, scope: str, size: int, seed: int = 0) -> list[Point]:
    """`size` points from SciFact's chunks and their real vectors; copy r > 0 of a chunk gets
    its own ids, ' [copy r]' in its text, noise on the dense vector and jittered sparse weights."""
    chunks = runtime.snapshots.read_chunks(SOURCE, SCOPE) or []
    loaded = runtime.snapshots.read_embeddings(SOURCE, SCOPE)
    if loaded is None:
        raise SystemExit("no embeddings to scale from")
    _, vectors = loaded
    rng = np.random.default_rng(seed)
    points = []
    for i in range(size):
        base: Chunk = chunks[i % len(chunks)]
        copy = i // len(chunks)
        dense, sparse = vectors[base.content_hash]
        source_id = base.source_id if copy == 0 else f"{base.source_id}-copy{copy}"
        fields: dict[str, Any] = {
            "scope": scope,
            "source_id": source_id,
            "doc_id": f"{SOURCE}:{source_id}",
            "id": chunk_id(scope, SOURCE, source_id, base.ordinal),
        }
        if copy:
            dense = dense + rng.normal(0, NOISE, dense.shape).astype(np.float32)
            dense = dense / np.linalg.norm(dense)
            jitter = rng.uniform(0.9, 1.1, len(sparse.values))
            sparse = SparseVector(
                indices=sparse.indices,
                values=[float(v * j) for v, j in zip(sparse.values, jitter, strict=True)],
            )
            fields["text"] = f"{base.text} [copy {copy}]"
        chunk = base.model_copy(update=fields)
        points.append(
            Point(id=chunk.id, dense=dense.tolist(), sparse=sparse, payload=chunk.payload())
        )
    return points


def write_scale(runtime: IngestRuntime, scope: str, size: int) -> float:
    points = scale_points(runtime, scope, size)
    started = time.perf_counter()
    with runtime.store.writer(scope, runtime.embedder.model_id, runtime.embedder.dim) as w:
        for i in range(0, len(points), 1000):
            w.upsert(points[i : i + 1000])
    return time.perf_counter() - started


# -- the MCP service over HTTP ------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_mcp(bh: Any, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    kp = Path(sys.executable).with_name("kp")
    cmd = [str(kp)] if kp.exists() else [sys.executable, "-m", "kp"]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [*cmd, "mcp", "--port", str(port)],
            env=bh.env(),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return proc, wait_listening(proc, port, log, "kp mcp", 180)


def wait_listening(
    proc: subprocess.Popen[bytes], port: int, log: Path, what: str, seconds: float
) -> str:
    """The MCP URL once `proc` listens on `port`; exits with its log's tail if it dies."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{what} exited {proc.returncode}: {log.read_text()[-2000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return f"http://127.0.0.1:{port}/mcp"
        time.sleep(0.1)
    stop(proc)
    raise SystemExit(f"{what} did not listen within {seconds:g} s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time `pid` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> tuple[float, float]:
    """(current, peak) resident set of `pid` in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


def search_args(query: str, scope: str) -> dict[str, Any]:
    return {"query": query, "scope": scope, "limit": LIMIT}


async def one_client(url: str, token: str, scope: str, queries: list[str]) -> list[float]:
    from fastmcp import Client

    ms = []
    async with Client(url, auth=token) as client:
        for q in queries[:5]:  # warm-up: the service opens the collection on first use
            await client.call_tool("knowledge_search", search_args(q, scope))
        for q in queries:
            started = time.perf_counter()
            await client.call_tool("knowledge_search", search_args(q, scope))
            ms.append(1000 * (time.perf_counter() - started))
    return ms


async def bare_client(url: str, token: str, scope: str, queries: list[str]) -> list[float]:
    """The same calls as bare JSON-RPC POSTs on one keep-alive connection: what the service
    takes, without an MCP SDK client's own work (e.g. validating each result's schema)."""
    import httpx

    headers = {
        "Authorization": f"Bearer {token}",
        "MCP-Protocol-Version": MCP_VERSION,
        "Accept": "application/json, text/event-stream",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "knowledge_search",
    }
    meta = {
        "io.modelcontextprotocol/protocolVersion": MCP_VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    ms = []
    async with httpx.AsyncClient(timeout=60) as http:
        for i, q in enumerate([*queries[:5], *queries]):
            body = {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {
                    "name": "knowledge_search",
                    "arguments": search_args(q, scope),
                    "_meta": meta,
                },
            }
            started = time.perf_counter()
            reply = await http.post(url, json=body, headers=headers)
            if reply.status_code != 200 or reply.json().get("result", {}).get("isError", True):
                raise SystemExit(f"bare knowledge_search failed: {reply.text[:500]}")
            if i >= 5:
                ms.append(1000 * (time.perf_counter() - started))
    return ms


async def many_clients(
    url: str, token: str, scope: str, queries: list[str], clients: int, per_client: int
) -> tuple[float, int, int]:
    """(requests/s, ok, errors) of `clients` sessions each sending `per_client` searches."""
    from fastmcp import Client

    async def worker(offset: int) -> tuple[int, int]:
        ok = errors = 0
        async with Client(url, auth=token) as client:
            for i in range(per_client):
                q = queries[(offset * 37 + i) % len(queries)]
                try:
                    result = await client.call_tool(
                        "knowledge_search", search_args(q, scope), raise_on_error=False
                    )
                    ok, errors = (ok, errors + 1) if result.is_error else (ok + 1, errors)
                except Exception:
                    errors += 1
        return ok, errors

    started = time.perf_counter()
    results = await asyncio.gather(*(worker(i) for i in range(clients)))
    seconds = time.perf_counter() - started
    ok = sum(r[0] for r in results)
    errors = sum(r[1] for r in results)
    return (ok + errors) / seconds, ok, errors


def in_process(runtime: IngestRuntime, scope: str, queries: list[str]) -> tuple[list[float], ...]:
    """Retriever.search (query embedding included), the store's part alone, RRF alone."""
    retriever, store = runtime.retriever, runtime.store
    vectors = [
        (runtime.embedder.embed_query(q).tolist(), runtime.sparse.encode_query(q)) for q in queries
    ]
    retriever.search(scope, queries[0], limit=LIMIT)
    full, blended, rrf = [], [], []
    for q, (dense, sparse) in zip(queries, vectors, strict=True):
        started = time.perf_counter()
        retriever.search(scope, q, limit=LIMIT)
        full.append(1000 * (time.perf_counter() - started))
        started = time.perf_counter()
        depth = max(PREFETCH, LIMIT)
        blend(
            store.search(scope, dense, None, limit=depth, mode="dense"),
            store.search(scope, None, sparse, limit=depth, mode="sparse"),
            DEFAULT_FUSION.dense_weight,
        )
        blended.append(1000 * (time.perf_counter() - started))
        started = time.perf_counter()
        store.search(scope, dense, sparse, limit=LIMIT, mode="hybrid")
        rrf.append(1000 * (time.perf_counter() - started))
    return full, blended, rrf


def bench_queries(
    bh: Any,
    runtime: IngestRuntime,
    sizes: list[int],
    queries: list[str],
    clients: int,
    per_client: int,
    workdir: Path,
) -> list[list[str]]:
    token_file = bh.home / "admin-token"
    rows = []
    for size in sizes:
        scope = f"scale{size}"
        build_s = write_scale(runtime, scope, size)
        proc, url = start_mcp(bh, workdir / f"mcp-{size}.log")
        try:
            deadline = time.monotonic() + 30
            while not token_file.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            token = token_file.read_text().strip()
            single = asyncio.run(one_client(url, token, scope, queries))
            bare = asyncio.run(bare_client(url, token, scope, queries))
            cpu_before = cpu_seconds(proc.pid)
            rps, ok, errors = asyncio.run(
                many_clients(url, token, scope, queries, clients, per_client)
            )
            cpu_ms = 1000 * (cpu_seconds(proc.pid) - cpu_before) / max(1, ok + errors)
            rss, peak = rss_mb(proc.pid)
        finally:
            stop(proc)
        full, blended, rrf = in_process(runtime, scope, queries)
        rows.append(
            [
                f"{size:,}",
                f"{build_s:.0f} s",
                ms3(single),
                ms3(bare),
                f"{rps:.0f} ({errors}); {cpu_ms:.0f} ms",
                f"{rss:.0f} / {peak:.0f}",
                ms3(full),
                ms3(blended),
                ms3(rrf),
            ]
        )
        print(f"  {' | '.join(rows[-1])} ({load_average()})", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="BEIR dataset directory")
    ap.add_argument(
        "--sizes",
        default="5000,50000",
        help="collection sizes for the query benchmark (200000 takes long)",
    )
    ap.add_argument(
        "--max-documents",
        type=int,
        default=None,
        help="ingest only the first N documents (the full corpus by default)",
    )
    ap.add_argument("--queries", type=int, default=200, help="SciFact test queries per run")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--per-client", type=int, default=50, help="searches per concurrent client")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    all_queries = read_queries(args.data / "queries.jsonl")
    test = read_qrels(args.data / "qrels" / "test.tsv")
    queries = [all_queries[q] for q in test if q in all_queries][: args.queries]
    random.Random(0).shuffle(queries)
    workdir = Path(tempfile.mkdtemp(prefix="kp-speed-"))
    try:
        corpus_dir = workdir / "scifact"
        corpus_dir.mkdir()
        source_corpus = args.data / "corpus.jsonl"
        lines = source_corpus.read_text(encoding="utf-8").splitlines(keepends=True)
        (corpus_dir / "corpus.jsonl").write_text(
            "".join(lines[: args.max_documents] if args.max_documents else lines), encoding="utf-8"
        )
        with bench_home(
            corpus_dir, home=workdir / "kp", clients=tuple(f"scale{s}" for s in sizes)
        ) as bh:
            runtime = platform_runtime(bh.settings)
            print(f"ingest ({load_average()})", flush=True)
            ingest_rows, _ = bench_ingest(bh, runtime, corpus_dir / "corpus.jsonl")
            print(markdown_table(["ingest", "time", "figures"], ingest_rows), flush=True)
            print(f"queries ({load_average()})", flush=True)
            query_rows = bench_queries(
                bh, runtime, sizes, queries, args.clients, args.per_client, workdir
            )
            model_id = runtime.embedder.model_id
            runtime.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    ingest = markdown_table(["ingest (embedded default, Dagster)", "time", "figures"], ingest_rows)
    query = markdown_table(
        [
            "chunks",
            "build + publish",
            "MCP knowledge_search ms p50/p95/p99 (1 client)",
            "same as bare JSON-RPC POSTs ms",
            f"MCP req/s, {args.clients} clients (errors); service CPU per request",
            "MCP RSS MB now / peak",
            "in-process Retriever.search ms",
            "store alone: blend ms",
            "store alone: RRF ms",
        ],
        query_rows,
    )
    notes = [
        f"Queries: {len(queries)} SciFact test claims, limit {LIMIT}; "
        f"{args.clients} clients x {args.per_client} searches for throughput. Targets at 50k: "
        "p95 <= 50 ms (query embedding included), >= 100 req/s with 0 errors, RSS <= 1 GB.",
        "Scaled collections: SciFact chunks with their real vectors, copies with new ids, a "
        f"marked text, N(0, {NOISE}) noise on the dense vector and +-10% on sparse weights, "
        "written through the store writer (publish includes the HNSW optimize).",
        "Clients and service share the machine's CPUs; the service's CPU per request bounds "
        "its throughput at (cpus / CPU per request) even with free clients.",
        f"Model {model_id} on onnxruntime; {load_average()} at the end (the machine is "
        "shared: figures are pessimistic).",
    ]
    text = "\n\n".join([ingest, query, "\n".join(f"- {n}" for n in notes)])
    print(text)
    path = write_results("speed", "Ingest and query speed: BEIR SciFact, embedded default", text)
    print(f"\nwritten to {path.relative_to(path.parents[2])}")


if __name__ == "__main__":
    main()
