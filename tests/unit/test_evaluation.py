import math
from pathlib import Path

import pytest

from knowledge_platform.models import Hit
from knowledge_platform.serve.evaluation import (
    evaluate,
    ndcg_at_k,
    rank_documents,
    read_qrels,
    read_queries,
    recall_at_k,
)
from tests.store_fixtures import make_chunk

LOG3 = math.log2(3)


def test_ndcg_single_relevant_document_at_rank_two():
    # DCG = 1/log2(3); IDCG = 1/log2(2) = 1
    assert ndcg_at_k(["a", "b", "c"], {"b": 1}, 10) == pytest.approx(1 / LOG3)


def test_ndcg_perfect_ranking_is_one_and_missing_relevant_lowers_it():
    assert ndcg_at_k(["a", "c", "x"], {"a": 1, "c": 1}, 10) == pytest.approx(1.0)
    # only `a` found, at rank 1: DCG = 1; IDCG = 1 + 1/log2(3)
    assert ndcg_at_k(["a", "x"], {"a": 1, "c": 1}, 10) == pytest.approx(1 / (1 + 1 / LOG3))


def test_ndcg_uses_linear_grades():
    # ranked b(1), a(2): DCG = 1 + 2/log2(3); ideal a(2), b(1): 2 + 1/log2(3)
    expected = (1 + 2 / LOG3) / (2 + 1 / LOG3)
    assert ndcg_at_k(["b", "a"], {"a": 2, "b": 1}, 10) == pytest.approx(expected)
    assert expected == pytest.approx(0.8597, abs=1e-4)


def test_cutoff_applies_to_ranking_and_ideal():
    ranked = [f"d{i}" for i in range(10)] + ["hit"]
    assert ndcg_at_k(ranked, {"hit": 1}, 10) == 0.0
    assert recall_at_k(ranked, {"hit": 1}, 10) == 0.0
    assert recall_at_k(ranked, {"hit": 1}, 100) == 1.0
    # ideal DCG@1 holds one of the two relevant documents only
    assert ndcg_at_k(["a"], {"a": 1, "b": 1}, 1) == pytest.approx(1.0)


def test_recall_counts_share_of_relevant_found_and_ignores_grade_zero():
    judged = {"a": 1, "b": 1, "c": 1, "z": 0}
    assert recall_at_k(["a", "z", "c"], judged, 10) == pytest.approx(2 / 3)
    assert recall_at_k(["a", "z", "c"], judged, 1) == pytest.approx(1 / 3)


def test_duplicate_ids_in_a_ranking_count_once():
    assert ndcg_at_k(["a", "a", "b"], {"b": 1}, 10) == pytest.approx(1 / LOG3)
    assert recall_at_k(["a"] * 20 + ["b"], {"b": 1}, 2) == 1.0  # b is the second document


def test_evaluate_averages_over_judged_queries_and_scores_missing_runs_zero():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}}
    run = {"q1": ["a"], "q3": ["c"]}  # q2 returned nothing; q3 has no relevant doc: skipped
    scores = evaluate(run, qrels, ks=(10,))
    assert scores == {"nDCG@10": pytest.approx(0.5), "Recall@10": pytest.approx(0.5)}


def test_rank_documents_by_best_chunk():
    def hit(source_id: str, n: int, score: float) -> Hit:
        return Hit(chunk=make_chunk(source_id=source_id, n=n), score=score)

    hits = [hit("x", 0, 0.9), hit("y", 1, 0.5), hit("y", 2, 0.95), hit("x", 3, 0.1)]
    assert rank_documents(hits) == ["y", "x"]


def test_readers_parse_beir_files(tmp_path: Path):
    qrels = tmp_path / "test.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\n1\t31715818\t1\n1\t42\t2\n3\t14717500\t1\n")
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        '{"_id": "1", "text": "a claim", "metadata": {}}\n\n{"_id": 3, "text": "another"}\n'
    )
    assert read_qrels(qrels) == {"1": {"31715818": 1, "42": 2}, "3": {"14717500": 1}}
    assert read_queries(queries) == {"1": "a claim", "3": "another"}
