"""The chunks step keeps a document's previous chunks while the document and the chunker's
settings are unchanged, and re-chunks (tokenizes) only what changed."""

from __future__ import annotations

from pathlib import Path

from knowledge_platform.ingest.chunking import Chunker
from knowledge_platform.ingest.pipeline import chunk_documents, rechunk
from knowledge_platform.ingest.snapshots import SnapshotStore
from knowledge_platform.ingest.tokens import TokenCounter, WordPieceCounter
from knowledge_platform.models import Document

WORDPIECE = WordPieceCounter()


class CountingCounter(TokenCounter):
    """The real tokenizer, counting the texts it is asked to tokenize."""

    def __init__(self, name: str = "counting") -> None:
        self._name = name
        self.texts: list[str] = []

    @property
    def name(self) -> str:
        return self._name

    def offsets(self, text: str) -> list[int]:
        self.texts.append(text)
        return WORDPIECE.offsets(text)


def docs() -> list[Document]:
    return [
        Document(
            source="memory_files",
            source_id=f"{i}.md",
            scope="internal",
            title=f"Note {i}",
            kind="memory",
            text=f"# Note {i}\nfirst part {i}\n## More\n" + "lantern " * 300,
        )
        for i in range(3)
    ]


def run_twice(
    tmp_path: Path, second_docs: list[Document], second: Chunker, first: Chunker | None = None
):
    """Chunk `docs()` with `first` and store them; then chunk `second_docs` with `second`
    against what was stored. Returns (first chunks, the second run's Chunked)."""
    snaps = SnapshotStore(tmp_path)
    chunked = rechunk(docs(), first or Chunker(CountingCounter(), 256), {})
    snaps.write_chunks("memory_files", "internal", chunked.chunks, chunked.keys)
    return chunked.chunks, rechunk(
        second_docs, second, snaps.read_chunks_by_key("memory_files", "internal")
    )


def test_unchanged_documents_reuse_their_chunks_without_tokenizing(tmp_path: Path) -> None:
    counter = CountingCounter()
    before, after = run_twice(tmp_path, docs(), Chunker(counter, 256))
    assert after.reused == 3 and counter.texts == []
    assert after.chunks == before
    assert [(c.id, c.content_hash, c.fingerprint) for c in after.chunks] == [
        (c.id, c.content_hash, c.fingerprint) for c in before
    ]


def test_a_changed_document_is_rechunked_alone(tmp_path: Path) -> None:
    edited = docs()
    edited[1] = edited[1].model_copy(update={"text": edited[1].text + " revised"})
    counter = CountingCounter()
    before, after = run_twice(tmp_path, edited, Chunker(counter, 256))
    assert after.reused == 2
    alone = CountingCounter()
    Chunker(alone, 256).chunk(edited[1])
    assert counter.texts == alone.texts  # the tokenizer saw that document and nothing else
    assert after.chunks == chunk_documents(edited, Chunker(WORDPIECE, 256))
    changed = {c.id for c in after.chunks if c not in before}
    assert changed and all(c.source_id == "1.md" for c in after.chunks if c.id in changed)


def test_a_provenance_change_alone_rechunks_that_document(tmp_path: Path) -> None:
    edited = docs()
    edited[0] = edited[0].model_copy(update={"lifecycle": "deprecated", "version": "v2"})
    _, after = run_twice(tmp_path, edited, Chunker(CountingCounter(), 256))
    assert after.reused == 2
    assert {c.lifecycle for c in after.chunks if c.source_id == "0.md"} == {"deprecated"}


def test_a_chunker_setting_change_rechunks_everything(tmp_path: Path) -> None:
    for second in (
        Chunker(CountingCounter(), 128),  # window (a different model)
        Chunker(CountingCounter(), 256, overlap=0.1),
        Chunker(CountingCounter("another tokenizer"), 256),
    ):
        _, after = run_twice(tmp_path, docs(), second)
        assert after.reused == 0
        assert isinstance(second.counter, CountingCounter) and second.counter.texts
        assert after.chunks == chunk_documents(docs(), second)


def test_a_snapshot_without_keys_reuses_nothing(tmp_path: Path) -> None:
    snaps = SnapshotStore(tmp_path)
    snaps.write_chunks("memory_files", "internal", chunk_documents(docs(), Chunker(WORDPIECE, 256)))
    assert snaps.read_chunks_by_key("memory_files", "internal") == {}
    assert SnapshotStore(tmp_path / "empty").read_chunks_by_key("memory_files", "internal") == {}


def test_tokenizers_have_distinct_names() -> None:
    assert WORDPIECE.name.startswith("wordpiece:")
    assert Chunker(WORDPIECE, 256).fingerprint != Chunker(CountingCounter(), 256).fingerprint
