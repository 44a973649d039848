"""A source x scope indexed without Dagster, for the tests and benchmarks that need a real
index quickly: the four steps of `knowledge_platform.ingest.steps` in order, on the runtime's
snapshots, store and model — what one run of the source's assets does, minus the run record."""

from __future__ import annotations

from knowledge_platform.ingest.runtime import IngestRuntime
from knowledge_platform.ingest.steps import PullOptions, StepsRun, run_steps


def index_source(
    runtime: IngestRuntime, source: str, scope: str = "internal", options: PullOptions | None = None
) -> StepsRun:
    """One run of `source`'s steps for `scope`: incremental from the snapshots a previous
    run left under KP_HOME, a full pull the first time."""
    return run_steps(
        runtime.registry,
        runtime.snapshots,
        runtime.store,
        runtime.embedder,
        runtime.cache,
        runtime.chunker,
        source,
        scope,
        options,
    )


def index_scope(runtime: IngestRuntime, scope: str = "internal") -> None:
    """Every source the registry configures for `scope`."""
    for source in runtime.registry.sources_for(scope):
        index_source(runtime, source, scope)
