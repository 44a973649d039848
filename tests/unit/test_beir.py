"""The BEIR corpus connector: one document per line (title + abstract), and the same asset
graph as every source indexing it for retrieval evaluation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowledge_platform.config.registry import parse_registry
from knowledge_platform.connectors.beir.connector import BeirConnector, BeirSettings
from knowledge_platform.connectors.catalog import connector_class
from knowledge_platform.errors import ConfigError, SourceError
from knowledge_platform.ingest.chunking import Chunker
from knowledge_platform.ingest.tokens import WordPieceCounter
from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.evaluation import rank_documents
from knowledge_platform.settings import Settings
from tests.assets.conftest import Materializer

ROWS = [
    {
        "_id": "101",
        "title": "Vitamin D and bone density",
        "text": "Supplementation raised lumbar bone mineral density in older women.",
        "metadata": {},
    },
    {
        "_id": "202",
        "title": "Gut microbiota in obesity",
        "text": "Obese mice carried more Firmicutes than lean littermates.",
        "metadata": {},
    },
    {"_id": "303", "title": "", "text": "# not a heading\nKinase inhibitors slowed tumour growth."},
]


def write_corpus(directory: Path, rows: list[Any], extra_lines: str = "") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r) for r in rows]
    (directory / "corpus.jsonl").write_text("\n".join(lines) + "\n" + extra_lines)
    return directory


def pull(path: Path, **settings: Any):
    return BeirConnector(BeirSettings(path=path, **settings), "internal").pull(None)


def test_pull_reads_one_document_per_line_from_dir_or_file(tmp_path: Path):
    data = write_corpus(tmp_path / "scifact", ROWS)
    result = pull(data)
    assert result.full and not result.skipped
    docs = {d.source_id: d for d in result.documents}
    assert list(docs) == ["101", "202", "303"]
    assert docs["101"].title == "Vitamin D and bone density"
    assert docs["101"].text.startswith("Supplementation raised")
    assert docs["101"].doc_id == "beir:101" and docs["101"].kind == "doc"
    assert docs["101"].uri and docs["101"].uri.endswith("corpus.jsonl#101")
    assert [d.source_id for d in pull(data / "corpus.jsonl").documents] == ["101", "202", "303"]
    assert [d.source_id for d in pull(data, max_documents=2).documents] == ["101", "202"]


def test_bad_lines_and_duplicate_ids_are_skipped_with_reasons(tmp_path: Path):
    data = write_corpus(
        tmp_path, [*ROWS, ROWS[0], {"title": "no id"}, {"_id": "9"}], extra_lines="{not json\n"
    )
    result = pull(data)
    assert [d.source_id for d in result.documents] == ["101", "202", "303"]
    reasons = {s.source_id: s.reason for s in result.skipped}
    assert reasons["101"] == "duplicate _id"
    assert "`_id`" in reasons["line 5"]
    assert "empty title and text" in reasons["line 6"]
    assert "line 7" in reasons


def test_missing_corpus_is_a_source_error(tmp_path: Path):
    with pytest.raises(SourceError, match="no corpus"):
        pull(tmp_path / "nowhere")


def test_registry_resolves_a_relative_path_and_rejects_unknown_keys(tmp_path: Path):
    assert connector_class("beir") is BeirConnector
    registry = parse_registry(
        {"internal": {"sources": {"beir": {"path": "data/scifact"}}}}, tmp_path
    )
    settings = registry.source_settings("beir", "internal")
    assert isinstance(settings, BeirSettings)
    assert settings.path == (tmp_path / "data" / "scifact").resolve()
    with pytest.raises(ConfigError, match="colour"):
        parse_registry({"internal": {"sources": {"beir": {"path": "x", "colour": 1}}}}, tmp_path)


def test_long_abstract_is_cut_to_the_window_with_the_title_in_every_chunk(tmp_path: Path):
    sentence = "Mitochondrial uncoupling protein expression rose in brown adipose tissue. "
    data = write_corpus(
        tmp_path, [{"_id": "7", "title": "Thermogenesis", "text": sentence * 60}, ROWS[2]]
    )
    docs = pull(data).documents
    counter = WordPieceCounter()
    chunks = Chunker(counter, window_tokens=256).chunk(docs[0])
    assert len(chunks) > 3
    assert all(c.embedding_text().startswith("Thermogenesis\n") for c in chunks)
    assert all(counter.count(c.embedding_text()) + 2 <= 256 for c in chunks)
    heading_like = Chunker(counter, window_tokens=256).chunk(docs[1])
    assert len(heading_like) == 1 and heading_like[0].text.startswith("# not a heading")


@pytest.fixture
def registry_data(tmp_path: Path) -> dict[str, Any]:
    data = write_corpus(tmp_path / "scifact", ROWS)
    return {
        "embedding": {"provider": "hash"},
        "internal": {"sources": {"beir": {"path": str(data)}}},
    }


def test_assets_index_the_corpus_and_search_ranks_documents(kp_env: Settings):
    run = Materializer(kp_env)
    first = run("beir")
    assert run.metadata(first, "raw")["documents"] == 3
    assert run.metadata(first, "collection")["points"] == 3
    assert all(c.passed for c in first.get_asset_check_evaluations())
    again = run("beir")
    assert run.metadata(again, "embeddings")["embedded"] == 0
    runtime = Runtime(kp_env)
    try:
        hits = runtime.retriever.search("internal", "Firmicutes in obese mice", limit=3)
    finally:
        runtime.close()
    assert rank_documents(hits)[0] == "202"
