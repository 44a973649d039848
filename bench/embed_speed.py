"""Local embedding speed: all-MiniLM-L6-v2 fp32 vs dynamic-int8 ONNX on SciFact abstracts
(most fill the 256-token window). Reports docs/s per batch size with length-sorted batches,
unsorted batches for comparison, single-query latency, load time and int8-vs-fp32 cosine.
Prints a table and writes it to bench/results/embed_speed.md.

    .venv/bin/python bench/embed_speed.py [--n 200] [--batch-sizes 8,16,32,64] [--threads N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from knowledge_platform.embeddings.local import LocalOnnxEmbedder

ROOT = Path(__file__).resolve().parent.parent
SCIFACT = ROOT.parent / "shared" / "data" / "scifact"
RESULTS = Path(__file__).resolve().parent / "results" / "embed_speed.md"


def load_texts(name: str, field: str, n: int) -> list[str]:
    texts = []
    with (SCIFACT / name).open() as fh:
        for line, _ in zip(fh, range(n), strict=False):
            row = json.loads(line)
            texts.append(f"{row.get('title', '')} {row[field]}".strip())
    return texts


def docs_per_s(
    emb: LocalOnnxEmbedder, docs: list[str], batch: int, *, sort: bool
) -> tuple[float, float]:
    """(docs per wall second, docs per CPU second of this process): on a shared, busy machine
    the second is the steadier number."""
    emb.batch_size = batch
    emb.embed_documents(docs[:batch])  # warm-up
    wall, cpu = time.perf_counter(), time.process_time()
    if sort:
        emb.embed_documents(docs)
    else:  # original order: each batch padded to its own longest text
        pieces = [e.ids for e in emb._tokenizer.encode_batch(docs)]
        for i in range(0, len(pieces), batch):
            emb._run(pieces[i : i + batch])
    return len(docs) / (time.perf_counter() - wall), len(docs) / (time.process_time() - cpu)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--batch-sizes", default="8,16,32,64")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(os.environ.get("KP_MODEL_CACHE", ROOT / ".kp-models")),
    )
    args = parser.parse_args()
    docs = load_texts("corpus.jsonl", "text", args.n)
    queries = load_texts("queries.jsonl", "text", 50)
    batches = [int(b) for b in args.batch_sizes.split(",")]

    rows, vectors = [], {}
    for quantized in (False, True):
        start = time.perf_counter()
        emb = LocalOnnxEmbedder(args.cache_dir, quantized=quantized, threads=args.threads)
        load_s = time.perf_counter() - start
        tokens = [emb.count_tokens(d) for d in docs]
        speeds = {b: docs_per_s(emb, docs, b, sort=True) for b in batches}
        unsorted = docs_per_s(emb, docs, 32, sort=False)
        emb.embed_query(queries[0])
        lat = []
        cpu = time.process_time()
        for q in queries:
            t = time.perf_counter()
            emb.embed_query(q)
            lat.append((time.perf_counter() - t) * 1000)
        query_cpu_ms = (time.process_time() - cpu) * 1000 / len(queries)
        emb.batch_size = 32
        vectors[quantized] = emb.embed_documents(docs)
        rows.append(
            (
                emb.model_id,
                load_s,
                speeds,
                unsorted,
                statistics.median(lat),
                sorted(lat)[int(0.95 * len(lat)) - 1],
                query_cpu_ms,
            )
        )
    cosine = (vectors[True] * vectors[False]).sum(axis=1)

    head = "| model | load s | " + " | ".join(f"docs/s b{b}" for b in batches)
    head += " | docs/s b32 unsorted | query ms p50 | query ms p95 | query CPU ms |"
    lines = [head, "|" + "---|" * (len(batches) + 6)]
    for model_id, load_s, speeds, unsorted, p50, p95, q_cpu in rows:
        cells = " | ".join(f"{speeds[b][0]:.1f} ({speeds[b][1]:.1f})" for b in batches)
        lines.append(
            f"| {model_id} | {load_s:.2f} | {cells} | {unsorted[0]:.1f} ({unsorted[1]:.1f}) | "
            f"{p50:.1f} | {p95:.1f} | {q_cpu:.1f} |"
        )
    n_long = sum(t > 256 for t in tokens)
    lines += [
        "",
        "docs/s: per wall second (per CPU second in brackets).",
        f"{len(docs)} SciFact abstracts, mean {statistics.mean(tokens):.0f} word-pieces, "
        f"{n_long} over the 256 window; threads {args.threads or 'all cpus'} of "
        f"{os.cpu_count()}; load average at end {os.getloadavg()[0]:.1f}.",
        f"int8 vs fp32 cosine over these documents: min {cosine.min():.4f}, "
        f"mean {cosine.mean():.4f}.",
    ]
    table = "\n".join(lines)
    print(table)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("# Local embedding speed\n\n" + table + "\n")


if __name__ == "__main__":
    main()
