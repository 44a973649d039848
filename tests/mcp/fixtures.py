"""A tiny multi-scope corpus indexed through the core pipeline (hash embedder, Edge store):
internal + two clients, with draft / deprecated / restricted documents, decision records and
memory entries dated relative to today (UTC)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from knowledge_platform.config.registry import Registry, hash_token
from knowledge_platform.ingest.pipeline import chunk_documents, embed_chunks, reconcile
from knowledge_platform.ingest.runtime import IngestRuntime
from knowledge_platform.models import Document
from knowledge_platform.serve.access import ensure_admin_token
from knowledge_platform.serve.clock import local_today
from knowledge_platform.settings import Settings
from knowledge_platform.supersession import link_successors

TOKENS = {
    "maya": "maya-secret-token-1",
    "jonas": "jonas-secret-token-2",
    "rita": "rita-secret-token-3",
    "ops": "ops-secret-token-4",
}
#: The service's today: the registry's timezone decides it (between 00:00 UTC and midnight in
#: New York the UTC date is a day ahead).
TODAY = local_today(Registry.model_fields["timezone"].default)


def days_ago(n: int) -> dt.date:
    return TODAY - dt.timedelta(days=n)


def registry_data() -> dict[str, Any]:
    def principal(name: str, **extra: Any) -> dict[str, Any]:
        return {"name": name, "token_sha256": hash_token(TOKENS[name]), **extra}

    return {
        "embedding": {"provider": "hash"},
        "store": {"engine": "edge"},
        "answer": {"api_key_env": "KP_TEST_NO_SUCH_KEY"},
        "internal": {"name": "Surefoot", "sources": {"memory_files": {}, "git_docs": {}}},
        "clients": {
            "shade_store": {
                "name": "The Shade Store",
                "director": "maya",
                "sources": {"memory_files": {}, "clickup": {"space_ids": ["s1"]}},
            },
            "hot": {"name": "HOT", "director": "jonas", "sources": {"memory_files": {}}},
        },
        "principals": [
            principal("maya"),
            principal("jonas"),
            principal("rita", role="restricted"),
            principal("ops", admin=True),
        ],
    }


LONG_SECTION = " ".join(
    f"Step {i}: the operator checks the lantern dashboard, confirms the nightly pipeline "
    f"finished, and records the outcome in the operations journal before moving on."
    for i in range(1, 61)
)


def _doc(scope: str, source: str, sid: str, title: str, text: str, **kw: Any) -> Document:
    kind = kw.pop("kind", "memory")
    return Document(
        source=source,
        source_id=sid,
        scope=scope,
        title=title,
        text=text,
        kind=kind,
        uri=kw.pop("uri", f"file:///ws/{scope}/{sid}"),
        **kw,
    )


def corpus() -> dict[str, list[Document]]:
    internal = [
        _doc(
            "internal",
            "memory_files",
            "MEMORY.md",
            "Surefoot standing memory",
            "# Surefoot standing memory\n\n## Standing rules\nEvery experiment needs a written "
            "hypothesis. Tests run for at least fourteen days and are never stopped early.",
            date=days_ago(40),
        ),
        _doc(
            "internal",
            "memory_files",
            f"memory/{days_ago(2)}.md",
            f"{days_ago(2)} ops sync",
            "# Weekly ops sync\n\n## Decisions\nDecision: We standardise on 95% significance "
            "and a 14-day minimum\nfor every client test.\n\nDecision: Holiday freeze runs "
            "from December 20 to January 4.\n\n## Notes\nThe kiwi audit starts next week.",
            date=days_ago(2),
        ),
        _doc(
            "internal",
            "memory_files",
            f"memory/{days_ago(20)}.md",
            f"{days_ago(20)} notes",
            "# Notes\n\n## Decision: reporting cadence\nClient reports go out every second "
            "Monday with a one-page summary.",
            date=days_ago(20),
        ),
        _doc(
            "internal",
            "memory_files",
            "drafts/plan.md",
            "Zebra migration plan",
            "# Zebra migration plan\n\nDraft: migrate the zebra pipeline next quarter.",
            lifecycle="draft",
            date=days_ago(1),
        ),
        _doc(
            "internal",
            "memory_files",
            "old/process.md",
            "Walrus process",
            "# Walrus process\n\nThe walrus tool exported reports by hand.",
            lifecycle="deprecated",
            date=days_ago(300),
        ),
        _doc(
            "internal",
            "memory_files",
            "hr/salaries.md",
            "Salary bands",
            "# Salary bands\n\nThe ocelot salary bands are reviewed every spring.",
            confidentiality="restricted",
            date=days_ago(3),
        ),
        _doc(
            "internal",
            "memory_files",
            "platform-ops.md",
            "Knowledge platform operations",
            "# Knowledge platform operations\n\n## Schedules\nThe weekly reindex runs every "
            "Sunday at 02:00 America/New_York.\n\n## Runbook\n"
            + LONG_SECTION
            + "\n\n## Escalation\nPage the on-call engineer when the pipeline fails twice.",
            date=days_ago(60),
        ),
    ]
    decisions = [
        _doc(
            "internal",
            "git_docs",
            "adr/0001-monthly-reports.md",
            "ADR 1: monthly reports",
            "# ADR 1: monthly reports\n\nStatus: superseded\n\nReports go out monthly.",
            kind="decision",
            date=days_ago(200),
            url="https://git.example/adr/0001",
            extra={
                "decision": {"status": "superseded", "summary": "Reports go out monthly."},
                "superseded_by": "git_docs:adr/0002-biweekly-reports.md",
            },
        ),
        _doc(
            "internal",
            "git_docs",
            "adr/0002-biweekly-reports.md",
            "ADR 2: biweekly reports",
            "# ADR 2: biweekly reports\n\nStatus: accepted\n\nReports go out every second Monday.",
            kind="decision",
            date=days_ago(25),
            url="https://git.example/adr/0002",
            extra={
                "decision": {
                    "status": "accepted",
                    "summary": "Reports go out every second Monday.",
                },
                "supersedes": ["adr/0001-monthly-reports.md"],
            },
        ),
    ]
    shade = [
        _doc(
            "shade_store",
            "memory_files",
            "shade.md",
            "Shade Store account notes",
            "# Shade Store account notes\n\n## Checkout\nThe kumquat swatch banner test is "
            "paused until the new payment provider ships.",
            date=days_ago(4),
        ),
    ]
    shade_tasks = [
        _doc(
            "shade_store",
            "clickup",
            "task-1",
            "Pause the checkout test",
            "Pause the kumquat checkout test until the payment provider ships.",
            kind="decision",
            date=days_ago(5),
            url="https://app.clickup.example/t/task-1",
            uri=None,
            extra={
                "chunking": "whole",
                "decision": {"status": "complete", "summary": "Pause the checkout test."},
            },
        ),
    ]
    hot = [
        _doc(
            "hot",
            "memory_files",
            "hot.md",
            "HOT account notes",
            "# HOT account notes\n\n## PDP\nThe kumquat bundle test on product detail pages "
            "lifted conversion for HOT.",
            date=days_ago(6),
        ),
    ]
    return {
        "internal/memory_files": internal,
        "internal/git_docs": decisions,
        "shade_store/memory_files": shade,
        "shade_store/clickup": shade_tasks,
        "hot/memory_files": hot,
    }


def make_settings(root: Path) -> Settings:
    return Settings.model_validate(
        {
            "KP_HOME": str(root / "home"),
            "KP_CONFIG": str(root / "registry.yaml"),
            "KP_DAGSTER_URL": "http://127.0.0.1:9",
        }
    )


def make_runtime(root: Path) -> IngestRuntime:
    registry = Registry.model_validate({**registry_data(), "base_dir": root})
    return IngestRuntime(make_settings(root), registry=registry)


def index_documents(runtime: IngestRuntime, scope: str, source: str, docs: list[Document]) -> None:
    """Chunk, embed and publish `docs` as `source` in `scope` through the core pipeline."""
    chunks = chunk_documents(link_successors(docs), runtime.chunker)
    hashes, dense, sparse, _ = embed_chunks(chunks, runtime.embedder, runtime.cache, runtime.sparse)
    vectors = {h: (dense[i], sparse[i]) for i, h in enumerate(hashes)}
    reconcile(
        runtime.store,
        scope,
        source,
        chunks,
        vectors,
        model_id=runtime.embedder.model_id,
        dim=runtime.embedder.dim,
    )


def build_corpus(root: Path) -> Path:
    """Index the corpus under `root` (KP_HOME = root/home); returns root."""
    runtime = make_runtime(root)
    ensure_admin_token(runtime.settings)
    try:
        for key, docs in corpus().items():
            scope, source = key.split("/")
            index_documents(runtime, scope, source, docs)
    finally:
        runtime.close()
    return root
