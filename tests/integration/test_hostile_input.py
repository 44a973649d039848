"""Hostile and bad source input through the real asset graph: every file is either indexed
or skipped with its reason in the raw step's `problems`, and the run succeeds.

(The chunker's own properties are in tests/unit/test_chunking.py; here the question is what
survives the whole pull -> chunk -> embed -> Edge path, and that nothing is silently lost.)
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from knowledge_platform.ingest.snapshots import SnapshotStore
from knowledge_platform.models import Chunk
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from tests.assets.conftest import Materializer
from tests.conftest import write_registry
from tests.fakes.google_server import FakeGoogle

pytestmark = pytest.mark.integration

WORDS = (
    "pelican",
    "ledger",
    "quarterly",
    "swatch",
    "checkout",
    "variant",
    "audit",
    "funnel",
    "cohort",
    "retainer",
    "onboarding",
    "hypothesis",
    "significance",
    "baseline",
)


def prose(n_words: int, seed: int = 0) -> str:
    return " ".join(WORDS[(i * 7 + seed) % len(WORDS)] + str(i % 97) for i in range(n_words))


def _chunks(settings: Settings, source: str, scope: str = "internal") -> list[Chunk]:
    return SnapshotStore(settings.data_dir).read_chunks(source, scope) or []


def _stored_ids(settings: Settings, source: str, scope: str = "internal") -> set[str]:
    runtime = Runtime(settings)
    try:
        return set(runtime.store.point_hashes(scope, source))
    finally:
        runtime.close()


def _skips(md: str) -> dict[str, str]:
    """`- id: reason -> not indexed` lines of the problems metadata -> {id: reason}."""
    out = {}
    for line in md.splitlines():
        if line.startswith("- ") and line.endswith(" -> not indexed"):
            sid, _, reason = line[2:].removesuffix(" -> not indexed").partition(": ")
            out[sid] = reason
    return out


HOSTILE: dict[str, bytes] = {
    "normal.md": b"# Pelican audit\n\nThe pelican ledger audit closes on Friday.\n",
    "binary.md": b"\x7fELF\x02\x01\x01" + bytes(4096) + bytes(range(256)) * 16,
    "png.md": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 64,
    "utf16.md": "# Sixteen\n\nWritten by a Windows editor.\n".encode("utf-16"),
    "latin1.md": "# Caf\u00e9 notes\n\nThe caf\u00e9 budget.\n".encode("latin-1"),
    # A stray NUL is tolerated once the file is long enough for the binary sniff's 1% rule.
    "nul.md": b"# Nul\x00 title\n\nA stray\x00 NUL byte in the quokka text.\n" + b"filler " * 40,
    "empty.md": b"",
    "blank.md": b"  \n\n\t\n",
    "bad-yaml.md": b"---\ntitle: [unclosed\n---\n# Body\n\nRecoverable text.\n",
    "list-yaml.md": b"---\n- a\n- b\n---\n# Body\n\nFront matter that is a list.\n",
    "bad-lifecycle.md": b"---\nlifecycle: archived\n---\n# Archived\n\nThe ibis text.\n",
    "status-done.md": b"---\nstatus: done\n---\n# Done\n\nThe tapir text.\n",
    "unterminated.md": b"---\ntitle: never closed\n# Heading\n\nThe wombat section.\n",
    "bom.md": (
        "\ufeff---\ntitle: Narwhal memo\nlifecycle: draft\n---\n# Heading\n\nThe narwhal.\n"
    ).encode(),
    "crlf.md": b"# Windows lines\r\n\r\n## Part\r\nThe axolotl text.\r\n",
    # 5000 levels of list and of quote nesting (CommonMark nests "- - - x"), then a staircase
    "nested.md": (
        "# Deep nesting\n\n"
        + "- " * 5000
        + "innermost item\n\n"
        + "> " * 5000
        + "innermost quote\n\n"
        + "".join("  " * (i % 64) + f"- level {i}\n" for i in range(5000))
    ).encode(),
}
SKIPPED = {
    "binary.md": "binary file, not markdown",
    "png.md": "not valid UTF-8 (byte 0)",
    "utf16.md": "binary file, not markdown",
    "latin1.md": "not valid UTF-8",
    "bad-yaml.md": "front matter is not valid YAML",
    "list-yaml.md": "front matter is not a mapping",
    "bad-lifecycle.md": "front matter lifecycle 'archived' is not one of stable, draft, deprecated",
}


def test_hostile_workspace_is_indexed_or_skipped_with_reasons(
    tmp_path: Path, kp_env: Settings, workspace: Path
) -> None:
    for name, data in HOSTILE.items():
        (workspace / "hostile" / name).parent.mkdir(exist_ok=True)
        (workspace / "hostile" / name).write_bytes(data)
    (workspace / "hostile" / "dangling.md").symlink_to(tmp_path / "nowhere.md")

    started = time.perf_counter()
    result = Materializer(kp_env)("memory_files")
    elapsed = time.perf_counter() - started
    assert result.success
    checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
    # Every check passes but the warning that some files could not be read.
    assert checks.pop("memory_files_pull_complete") is False
    assert all(checks.values()), checks
    raw = Materializer.metadata(result, "raw")
    skips = _skips(raw["problems"])
    assert {sid.removeprefix("hostile/") for sid in skips} == set(SKIPPED)
    for name, reason in SKIPPED.items():
        assert skips[f"hostile/{name}"].startswith(reason), (name, skips[f"hostile/{name}"])
        assert "\n" not in skips[f"hostile/{name}"]
    assert raw["skipped"] == len(SKIPPED)
    # conftest's two files + the hostile ones not skipped (the dangling link is no file)
    assert raw["documents"] == 2 + len(HOSTILE) - len(SKIPPED)

    chunks = _chunks(kp_env, "memory_files")
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.source_id.removeprefix("hostile/"), []).append(c)
    indexed = set(HOSTILE) - set(SKIPPED)
    assert indexed <= set(by_doc), indexed - set(by_doc)
    assert not set(SKIPPED) & set(by_doc)
    assert _stored_ids(kp_env, "memory_files") == {c.id for c in chunks}

    assert all("\x00" not in c.text and "\r" not in c.text for c in chunks)

    def text(name: str) -> str:
        return " ".join(c.text for c in by_doc[name])

    assert "quokka" in text("nul.md")
    assert [c.text for c in by_doc["empty.md"]] == ["empty"]  # the title stands in
    assert [c.text for c in by_doc["blank.md"]] == ["blank"]
    assert "wombat" in text("unterminated.md")
    assert by_doc["crlf.md"][-1].headers == ["Windows lines", "Part"]
    nested = text("nested.md")
    assert "innermost item" in nested and "innermost quote" in nested and "level 4999" in nested
    bom = by_doc["bom.md"][0]
    assert (bom.title, bom.lifecycle) == ("Narwhal memo", "draft"), "a BOM hid the front matter"
    assert by_doc["status-done.md"][0].lifecycle == "stable"  # a status that is no lifecycle

    runtime = Runtime(kp_env)
    try:
        hits = runtime.retriever.search("internal", "pelican ledger audit Friday", limit=3)
        # sparse: the hash test embedder's dense ranking says little about one rare word
        quokka = runtime.retriever.search("internal", "quokka", limit=3, mode="sparse")
    finally:
        runtime.close()
    assert hits[0].chunk.title == "Pelican audit"
    assert quokka[0].chunk.source_id == "hostile/nul.md"
    print(f"hostile workspace: {len(chunks)} chunks in {elapsed:.1f}s")


def test_a_2_mb_single_line_is_windowed_without_losing_words(
    kp_env: Settings, workspace: Path
) -> None:
    line = prose(225_000)  # ~2 MB, no newline anywhere
    (workspace / "one-line.md").write_text("# One line\n\n" + line)
    started = time.perf_counter()
    result = Materializer(kp_env)("memory_files")
    elapsed = time.perf_counter() - started
    assert result.success
    chunks = [c for c in _chunks(kp_env, "memory_files") if c.source_id == "one-line.md"]
    assert len(chunks) > 100 and max(c.tokens for c in chunks) <= 512
    assert {w for c in chunks for w in c.text.split()} >= set(line.split())
    assert _stored_ids(kp_env, "memory_files") >= {c.id for c in chunks}
    print(f"2 MB line: {len(chunks)} chunks in {elapsed:.1f}s")


@pytest.mark.slow
@pytest.mark.timeout(1800)  # the chunk step alone took 9 minutes on a loaded 2-core box
def test_a_20_mb_markdown_file_is_indexed(kp_env: Settings, workspace: Path) -> None:
    sections = []
    size = 0
    i = 0
    while size < 20 * 1024 * 1024:
        section = f"## Section {i}\n\n{prose(700, seed=i)}\n\n"
        sections.append(section)
        size += len(section)
        i += 1
    (workspace / "huge.md").write_text("# Huge\n\n" + "".join(sections))
    started = time.perf_counter()
    result = Materializer(kp_env)("memory_files")
    elapsed = time.perf_counter() - started
    assert result.success
    chunks = [c for c in _chunks(kp_env, "memory_files") if c.source_id == "huge.md"]
    assert {c.headers[-1] for c in chunks} == {f"Section {n}" for n in range(i)}
    assert _stored_ids(kp_env, "memory_files") >= {c.id for c in chunks}
    print(f"20 MB markdown: {len(chunks)} chunks, {elapsed:.1f}s")


def test_a_10k_row_sheet_indexes_the_header_and_100_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in (
        ("GOOGLE_CLIENT_ID", "fake-client"),
        ("GOOGLE_CLIENT_SECRET", "fake-secret"),
        ("GOOGLE_REFRESH_TOKEN", "fake-refresh"),
    ):
        monkeypatch.setenv(name, value)
    header = ["Deal", "Owner", "Stage", "Value"]
    rows = [
        [f"deal-{n:05d}", f"owner{n % 13}", "won" if n % 3 else "lost", str(n * 10)]
        for n in range(1, 10_001)
    ]
    with FakeGoogle() as fake:
        root = fake.add_folder("Acme", file_id="root")
        fake.add_sheet("Pipeline", root, {"Deals": [header, *rows]}, file_id="sheet-big")
        registry: dict[str, Any] = {
            "embedding": {"provider": "hash"},
            "store": {"engine": "edge"},
            "internal": {
                "sources": {
                    "google_drive": {
                        "folder_ids": [root],
                        **fake.endpoints(),
                        "backoff_seconds": 0.001,
                    }
                }
            },
        }
        monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("KP_CONFIG", str(write_registry(tmp_path / "registry.yaml", registry)))
        settings = Settings()
        result = Materializer(settings)("google_drive")
    assert result.success
    raw = Materializer.metadata(result, "raw")
    assert (raw["documents"], raw["skipped"]) == (1, 0)
    (doc,) = SnapshotStore(settings.data_dir).read_documents("google_drive", "internal") or []
    assert doc.extra["truncated_tabs"] == ["Deals"]
    text = " ".join(c.text for c in _chunks(settings, "google_drive"))
    assert "| Deal | Owner | Stage | Value |" in text
    assert "deal-00100" in text and "deal-00101" not in text
    assert "Only the first 100 rows are indexed" in text
