"""Retrieval quality on BEIR SciFact through the real pipeline.

The corpus is indexed by the `beir` source's Dagster assets (raw -> chunks -> embeddings ->
collection, with their checks) into a temporary KP_HOME; every query then goes through
`Retriever.search`, the code knowledge_search runs, and chunk hits are ranked per document by
their best chunk. Prints nDCG@10 / Recall@10 / Recall@100 for sparse only, dense only, the
store's RRF and the Retriever's default blend, beside published rows, and writes the table to
bench/results/quality-<date>.md. The last line printed is the default configuration's score.

    .venv/bin/python bench/quality.py --split test
    .venv/bin/python bench/quality.py --split train --provider openai   # OPENAI_API_KEY set

Tune only on `--split train`; report `--split test`. `--embedding-cache DIR` keeps the dense
vectors between runs (everything else is rebuilt), so repeated runs skip the embedding.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from _common import (
    DEFAULT_DATA,
    SCOPE,
    bench_home,
    index,
    load_average,
    markdown_table,
    platform_runtime,
    write_results,
)

from knowledge_platform.serve.evaluation import evaluate, rank_documents, read_qrels, read_queries
from knowledge_platform.serve.retrieval import DEFAULT_FUSION, Fusion, Retriever
from knowledge_platform.store.base import SearchMode

#: Published SciFact test rows (from the data README): system, nDCG@10, Recall@100.
PUBLISHED = [
    ("BM25 flat (Pyserini/Anserini)", "0.679", "0.925"),
    ("BM25 (BEIR paper)", "0.665", "-"),
    ("BM25 + cross-encoder rerank (BEIR paper)", "0.688", "-"),
    ("all-MiniLM-L6-v2 (MTEB)", "0.645", "0.925"),
    ("bge-small-en-v1.5 (MTEB)", "0.713", "0.945"),
    ("OpenAI text-embedding-3-small (MTEB)", "0.734", "-"),
    ("RRF hybrid: BM25 + bge-base-en-v1.5 (quackir)", "0.744", "-"),
]
#: Chunks per query for Recall@100: enough for 100 distinct documents (~2 chunks each).
DEEP_LIMIT = 300
#: nDCG@10 and Recall@10 come from knowledge_search's own path at its largest limit.
TOOL_LIMIT = 50


def configs() -> list[tuple[str, SearchMode, Fusion | None]]:
    tuned = DEFAULT_FUSION.dense_weight
    rows: list[tuple[str, SearchMode, Fusion | None]] = [
        ("sparse", "sparse", None),
        ("dense", "dense", None),
        ("hybrid-rrf", "hybrid", Fusion(method="rrf")),
        ("hybrid-blend(w=0.5)", "hybrid", Fusion(method="blend", dense_weight=0.5)),
        (f"hybrid-blend(w={tuned})", "hybrid", Fusion(method="blend", dense_weight=tuned)),
    ]
    return [
        (f"{name} (default)" if fusion == DEFAULT_FUSION else name, mode, fusion)
        for name, mode, fusion in rows
    ]


def run_queries(
    retriever: Retriever, queries: dict[str, str], mode: SearchMode, fusion: Fusion | None
) -> tuple[dict[str, list[str]], dict[str, list[str]], list[float]]:
    """(top documents at the tool's limit, top documents of a deep search, ms per query)."""
    shallow: dict[str, list[str]] = {}
    deep: dict[str, list[str]] = {}
    ms: list[float] = []
    for qid, text in queries.items():
        started = time.perf_counter()
        hits = retriever.search(SCOPE, text, limit=TOOL_LIMIT, mode=mode, fusion=fusion)
        ms.append(1000 * (time.perf_counter() - started))
        shallow[qid] = rank_documents(hits)
        hits = retriever.search(
            SCOPE, text, limit=DEEP_LIMIT, prefetch=DEEP_LIMIT, mode=mode, fusion=fusion
        )
        deep[qid] = rank_documents(hits)[:100]
    return shallow, deep, ms


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="BEIR dataset directory")
    ap.add_argument("--split", choices=("test", "train"), default="test")
    ap.add_argument("--provider", choices=("local", "openai"), default="local")
    ap.add_argument("--model", default=None, help="embedding model of the provider")
    ap.add_argument(
        "--base-url",
        default=None,
        help="openai: an OpenAI-compatible endpoint instead of the default",
    )
    ap.add_argument(
        "--max-documents",
        type=int,
        default=None,
        help="index only the first N documents (a smoke run; scores not comparable)",
    )
    ap.add_argument(
        "--embedding-cache",
        type=Path,
        default=None,
        help="keep dense vectors in DIR across runs (default: a temporary home)",
    )
    args = ap.parse_args()
    if args.provider == "openai" and not os.environ.get("OPENAI_API_KEY"):
        raise SystemExit("--provider openai needs an API key in OPENAI_API_KEY")

    qrels = read_qrels(args.data / "qrels" / f"{args.split}.tsv")
    all_queries = read_queries(args.data / "queries.jsonl")
    queries = {q: all_queries[q] for q in qrels if q in all_queries}
    with bench_home(
        args.data,
        provider=args.provider,
        model=args.model,
        base_url=args.base_url,
        max_documents=args.max_documents,
        cache=args.embedding_cache,
    ) as bh:
        indexed = index(bh.settings)
        runtime = platform_runtime(bh.settings)
        model_id = runtime.embedder.model_id
        rows, results = [], {}
        for name, mode, fusion in configs():
            shallow, deep, ms = run_queries(runtime.retriever, queries, mode, fusion)
            scores = {**evaluate(shallow, qrels, ks=(10,)), **evaluate(deep, qrels, ks=(100,))}
            results[name] = scores
            rows.append(
                [
                    name,
                    f"{scores['nDCG@10']:.3f}",
                    f"{scores['Recall@10']:.3f}",
                    f"{scores['Recall@100']:.3f}",
                    f"{statistics.median(ms):.1f}",
                ]
            )
        runtime.close()

    chunks = indexed.metadata["chunks"]
    embeddings = indexed.metadata["embeddings"]
    ours = markdown_table(
        [
            "configuration (ours, " + args.split + ")",
            "nDCG@10",
            "Recall@10",
            "Recall@100",
            "ms/query p50",
        ],
        rows,
    )
    published = markdown_table(
        ["published (test split)", "nDCG@10", "Recall@100"], [list(r) for r in PUBLISHED]
    )
    default = DEFAULT_FUSION
    notes = [
        f"SciFact {args.split}: {len(queries)} queries with judgments; corpus "
        f"{indexed.metadata['raw']['documents']} documents -> {chunks['chunks']} chunks "
        f"(title + abstract, cut to the model window), model {model_id}.",
        f"Indexed through Dagster (beir/raw -> chunks -> embeddings -> collection) in "
        f"{indexed.seconds:.0f} s ({embeddings['embedded']} embedded, {embeddings['cached']} "
        f"cached); checks: {'all passed' if all(indexed.checks.values()) else indexed.checks}.",
        "Each query goes through Retriever.search, as knowledge_search does; documents rank by "
        f"their best chunk. nDCG@10 and Recall@10: limit {TOOL_LIMIT} chunks with the default "
        f"prefetch (knowledge_search's largest limit); Recall@100: limit and prefetch "
        f"{DEEP_LIMIT}. ms/query: the first search (query embedding included).",
        "hybrid-rrf: the store's in-engine RRF (k=2). hybrid-blend: the Retriever's blend of "
        "the dense and sparse lists, each scaled by its top score, weighted w dense / 1-w "
        f"sparse; w={default.dense_weight} was tuned on train.",
        f"{load_average()} at the end of the run.",
    ]
    text = "\n\n".join([ours, published, "\n".join(f"- {n}" for n in notes)])
    print(text)
    if args.max_documents:
        print("\nsmoke run on part of the corpus: results not written")
    else:
        path = write_results("quality", f"Retrieval quality: BEIR SciFact ({args.split})", text)
        print(f"\nwritten to {path.relative_to(path.parents[2])}")
    name = next(n for n in results if n.endswith("(default)"))
    print(
        f"nDCG@10={results[name]['nDCG@10']:.4f} split={args.split} "
        f"config={name.removesuffix(' (default)')}"
    )


if __name__ == "__main__":
    main()
