"""Asset checks on each source's collection, per scope partition. The id-set check runs
inside the collection step (it must see exactly what was published); these run after it."""

import warnings
from dataclasses import dataclass

from dagster import (
    AssetCheckExecutionContext,
    AssetCheckResult,
    AssetChecksDefinition,
    AssetCheckSeverity,
    AssetKey,
    MetadataValue,
    PreviewWarning,
    asset_check,
)

from assets.partitions import scopes_partitions
from knowledge_platform.config.registry import Registry
from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.errors import KnowledgePlatformError
from knowledge_platform.ingest.snapshots import SnapshotStore
from knowledge_platform.serve.retrieval import Retriever
from knowledge_platform.sparse import SparseEncoder
from knowledge_platform.store.base import VectorStore
from resources.platform import EmbedderResource, RegistryResource, SnapshotResource, StoreResource

# Partitioned asset checks are a preview feature in Dagster 1.13; we rely on them knowingly.
warnings.filterwarnings(
    "ignore", message="Specifying a partitions_def on an AssetCheckSpec", category=PreviewWarning
)


def matches_chunks(
    source: str, scope: str, store: VectorStore, snaps: SnapshotStore
) -> AssetCheckResult:
    wanted = {c.id for c in snaps.read_chunks(source, scope) or []}
    stored = set(store.point_hashes(scope, source))
    missing, stray = sorted(wanted - stored), sorted(stored - wanted)
    return AssetCheckResult(
        passed=not missing and not stray,
        metadata={
            "chunks": len(wanted),
            "points": len(stored),
            "missing": len(missing),
            "stray": len(stray),
            "examples": MetadataValue.json((missing + stray)[:5]),
        },
    )


def within_guard(
    source: str, scope: str, registry: Registry, store: VectorStore, snaps: SnapshotStore
) -> AssetCheckResult:
    held = snaps.read_sync(source, scope).held
    chunk_ids = {c.id for c in snaps.read_chunks(source, scope) or []}
    points = set(store.point_hashes(scope, source))
    stale = len(points - chunk_ids)
    share = stale / len(points) if points else 0.0
    guard = registry.deletion_guard
    held_ids = held.ids if held else []
    return AssetCheckResult(
        passed=share <= guard and not held_ids,
        description=(
            f"{len(held_ids)} deletions held: {held.reason}" if held and held_ids else None
        ),
        metadata={
            "held_deletions": len(held_ids),
            "held_examples": MetadataValue.json(held_ids[:5]),
            "would_delete": stale,
            "points": len(points),
            "share": round(share, 4),
            "guard": guard,
        },
    )


def pull_completed(source: str, scope: str, snaps: SnapshotStore) -> AssetCheckResult:
    state = snaps.read_sync(source, scope)
    problems = [p for p in state.problems if p.action in ("kept", "not indexed")]
    lines = [p.line() for p in problems]
    return AssetCheckResult(
        passed=not problems,
        severity=AssetCheckSeverity.WARN,
        description="; ".join(lines)[:1000] if lines else None,
        metadata={
            "failed_sub_resources": len(problems),
            "problems": MetadataValue.md("\n".join(f"- {x}" for x in lines) or "none"),
        },
    )


def one_model(scope: str, store: VectorStore, model: Embedder) -> AssetCheckResult:
    info = store.info(scope)
    if info is None:
        return AssetCheckResult(passed=True, metadata={"collection": "not created yet"})
    passed = info.model_id == model.model_id and info.dim == model.dim
    return AssetCheckResult(
        passed=passed,
        metadata={
            "collection_model": info.model_id,
            "collection_dim": info.dim,
            "configured_model": model.model_id,
            "configured_dim": model.dim,
        },
    )


def golden(
    source: str, scope: str, registry: Registry, store: VectorStore, model: Embedder
) -> AssetCheckResult:
    questions = [q for q in registry.scope(scope).golden_questions if q.source == source]
    retriever = Retriever(store, model, SparseEncoder())
    rows, failed = [], 0
    for q in questions:
        try:
            hits = retriever.search(scope, q.question, limit=5)
        except KnowledgePlatformError as exc:
            hits, failed = [], failed + 1
            rows.append(f"- {q.question}: error {exc}")
            continue
        titles = [h.chunk.title for h in hits]
        ok = q.expect_title in titles
        failed += 0 if ok else 1
        rows.append(f"- {'ok' if ok else 'MISS'} {q.question} -> {titles[:3]}")
    return AssetCheckResult(
        passed=failed == 0,
        metadata={
            "questions": len(questions),
            "failed": failed,
            "results": MetadataValue.md("\n".join(rows) or "no golden questions"),
        },
    )


@dataclass(frozen=True)
class CheckOutcome:
    name: str
    blocking: bool
    result: AssetCheckResult


def evaluate_checks(
    source: str,
    scope: str,
    registry: Registry,
    store: VectorStore,
    snaps: SnapshotStore,
    model: Embedder,
) -> list[CheckOutcome]:
    """Every collection check of `source` x `scope`, as a run after it would evaluate them
    (the hooks sensor's hot path records these)."""
    return [
        CheckOutcome(
            f"{source}_collection_matches_chunks", True, matches_chunks(source, scope, store, snaps)
        ),
        CheckOutcome(
            f"{source}_deletions_within_guard",
            False,
            within_guard(source, scope, registry, store, snaps),
        ),
        CheckOutcome(f"{source}_pull_complete", False, pull_completed(source, scope, snaps)),
        CheckOutcome(f"{source}_single_embedding_model", True, one_model(scope, store, model)),
        CheckOutcome(
            f"{source}_golden_questions", True, golden(source, scope, registry, store, model)
        ),
    ]


def build_collection_checks(source: str) -> list[AssetChecksDefinition]:
    key = AssetKey([source, "collection"])

    @asset_check(
        asset=key,
        name=f"{source}_collection_matches_chunks",
        partitions_def=scopes_partitions(source),
        blocking=True,
        description="The set of this source's point ids in the scope's collection "
        "equals the set of its chunk ids.",
    )
    def collection_matches_chunks(
        context: AssetCheckExecutionContext, store: StoreResource, snapshots: SnapshotResource
    ) -> AssetCheckResult:
        return matches_chunks(source, context.partition_key, store.get(), snapshots.get())

    @asset_check(
        asset=key,
        name=f"{source}_deletions_within_guard",
        partitions_def=scopes_partitions(source),
        # Fails loudly but never fails the run: the run's other changes are already applied.
        blocking=False,
        description="No deletion inferred from a listing is held back by the deletion guard, "
        "and the current chunks would not delete more than deletion_guard of the points.",
    )
    def deletions_within_guard(
        context: AssetCheckExecutionContext,
        registry: RegistryResource,
        store: StoreResource,
        snapshots: SnapshotResource,
    ) -> AssetCheckResult:
        return within_guard(
            source, context.partition_key, registry.get(), store.get(), snapshots.get()
        )

    @asset_check(
        asset=key,
        name=f"{source}_pull_complete",
        partitions_def=scopes_partitions(source),
        blocking=False,
        description="The last pull read every sub-resource of the source (a failed one keeps "
        "its last good version and is retried; this check warns until it reads).",
    )
    def pull_complete(
        context: AssetCheckExecutionContext, snapshots: SnapshotResource
    ) -> AssetCheckResult:
        return pull_completed(source, context.partition_key, snapshots.get())

    @asset_check(
        asset=key,
        name=f"{source}_single_embedding_model",
        partitions_def=scopes_partitions(source),
        blocking=True,
        description="The scope's collection records the configured embedding model "
        "and dimension (vectors of two models never mix).",
    )
    def single_embedding_model(
        context: AssetCheckExecutionContext, store: StoreResource, embedder: EmbedderResource
    ) -> AssetCheckResult:
        return one_model(context.partition_key, store.get(), embedder.get())

    @asset_check(
        asset=key,
        name=f"{source}_golden_questions",
        partitions_def=scopes_partitions(source),
        blocking=True,
        description="Each golden question of the scope that names this source finds "
        "its expected document in the top 5.",
    )
    def golden_questions(
        context: AssetCheckExecutionContext,
        registry: RegistryResource,
        store: StoreResource,
        embedder: EmbedderResource,
    ) -> AssetCheckResult:
        return golden(source, context.partition_key, registry.get(), store.get(), embedder.get())

    return [
        collection_matches_chunks,
        deletions_within_guard,
        pull_complete,
        single_embedding_model,
        golden_questions,
    ]
