"""Retrieval quality metrics (nDCG@k, Recall@k) over ranked document ids, the BEIR file
readers they are fed from, and the chunk-to-document step: a document ranks by its best chunk.

Definitions follow trec_eval as BEIR runs it: gains are the judged relevance grades (linear),
discount log2(rank + 1); the ideal ranking is every judged-relevant document by grade; recall
is the share of a query's relevant documents found. A query with judgments but no results
scores 0; queries without judgments are not evaluated."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from knowledge_platform.models import Hit

Qrels = Mapping[str, Mapping[str, int]]


def dcg(gains: Iterable[float]) -> float:
    return sum(g / math.log2(rank + 2) for rank, g in enumerate(gains))


def ndcg_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    """nDCG@k of one ranking; `judged` maps document id -> relevance grade (0: not)."""
    ideal = dcg(sorted((g for g in judged.values() if g > 0), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return dcg(max(judged.get(d, 0), 0) for d in _dedup(ranked)[:k]) / ideal


def recall_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int) -> float:
    relevant = {d for d, g in judged.items() if g > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(_dedup(ranked)[:k])) / len(relevant)


def evaluate(
    run: Mapping[str, Sequence[str]], qrels: Qrels, *, ks: Sequence[int] = (10, 100)
) -> dict[str, float]:
    """Mean `nDCG@k` and `Recall@k` over the queries of `qrels` that have a relevant document.
    `run` maps query id -> ranked document ids (best first)."""
    queries = [q for q, judged in qrels.items() if any(g > 0 for g in judged.values())]
    out: dict[str, float] = {}
    for k in ks:
        out[f"nDCG@{k}"] = _mean(ndcg_at_k(run.get(q, []), qrels[q], k) for q in queries)
        out[f"Recall@{k}"] = _mean(recall_at_k(run.get(q, []), qrels[q], k) for q in queries)
    return out


def rank_documents(hits: Iterable[Hit]) -> list[str]:
    """Document ids ranked by their best chunk's score (ties: first seen wins)."""
    best: dict[str, float] = {}
    for hit in hits:
        doc = hit.chunk.source_id
        if doc not in best or hit.score > best[doc]:
            best[doc] = hit.score
    return sorted(best, key=lambda d: -best[d])


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """BEIR qrels TSV (`query-id  corpus-id  score`, with a header row)."""
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        rows = csv.reader(fh, delimiter="\t")
        for row in rows:
            if len(row) < 3 or row[0] == "query-id":
                continue
            qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    return qrels


def read_queries(path: Path) -> dict[str, str]:
    """BEIR queries JSONL: query id -> text."""
    queries: dict[str, str] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                queries[str(row["_id"])] = str(row["text"])
    return queries


def _dedup(ranked: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ranked))


def _mean(values: Iterable[float]) -> float:
    vals = list(values)
    return sum(vals) / len(vals) if vals else 0.0
