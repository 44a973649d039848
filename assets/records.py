"""What each of a source's four assets records about a materialization (metadata, and the data
version where we compute our own), from what its step returned: one definition for the run's
assets (factory.py) and the hooks sensor's hot path (hot_path.py), so both record the same."""

from __future__ import annotations

from typing import Any

from dagster import DataVersion, MetadataValue

from knowledge_platform.connectors.base import PullResult
from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.ingest.pipeline import Chunked, EmbedStats
from knowledge_platform.ingest.steps import Published
from knowledge_platform.ingest.sync import Merged
from knowledge_platform.models import Document, content_hash

#: Metadata values as Dagster takes them (numbers, strings, MetadataValue).
Metadata = dict[str, Any]


def raw_metadata(result: PullResult, merged: Merged) -> Metadata:
    stats = merged.stats
    problems_md = "\n".join(f"- {p.line()}" for p in merged.problems)
    return {
        "documents": stats.documents,
        "changed": stats.changed,
        "deleted": stats.deleted,
        "deleted_confirmed": stats.confirmed,
        "deleted_inferred": stats.inferred,
        "deletions_held": stats.held,
        "kept_stale": stats.stale,
        "skipped": stats.skipped,
        "problems": MetadataValue.md(problems_md or "none"),
        "requests": result.requests,
        "full_pull": result.full,
        **({"sha": sha} if (sha := result.cursor.revision()) else {}),
    }


def raw_version(docs: list[Document]) -> DataVersion:
    return DataVersion(content_hash("|".join(d.version or d.content_hash for d in docs))[:16])


def chunks_metadata(docs: list[Document], chunked: Chunked) -> Metadata:
    produced = chunked.chunks
    sample = produced[0] if produced else None
    sample_md = (
        f"**{sample.title}** — {' > '.join(sample.headers)}\n\n{sample.text[:600]}"
        if sample
        else "no chunks"
    )
    return {
        "documents": len(docs),
        "reused_documents": chunked.reused,
        "chunks": len(produced),
        "tokens": sum(c.tokens for c in produced),
        "sample_chunk": MetadataValue.md(sample_md),
    }


def chunks_version(chunked: Chunked) -> DataVersion:
    return DataVersion(content_hash("|".join(c.fingerprint for c in chunked.chunks))[:16])


def embeddings_metadata(stats: EmbedStats, model: Embedder) -> Metadata:
    return {
        "chunks": stats.chunks,
        "embedded": stats.embedded,
        "cached": stats.cached,
        "tokens": stats.tokens,
        "model": model.model_id,
        "dim": model.dim,
    }


def collection_metadata(published: Published, collection_points: int) -> Metadata:
    stats = published.stats
    return {
        "added": stats.added,
        "updated": stats.updated,
        "deleted": stats.deleted,
        "unchanged": stats.unchanged,
        "points": stats.points,
        "collection_points": collection_points,
        "model": published.model_id,
        # git sources: the commit the snapshot behind these chunks was pulled at
        **({"sha": published.sha} if published.sha else {}),
    }
