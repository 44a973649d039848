"""One factory for every source: `<source>/raw -> chunks -> embeddings -> collection`,
partitioned by the scopes that configure the source (`assets/partitions.py`). Each step
persists its snapshot under KP_HOME (snapshots.py) and records its figures."""

from dagster import (
    AssetExecutionContext,
    AssetKey,
    AssetsDefinition,
    AutomationCondition,
    Failure,
    FreshnessPolicy,
    MaterializeResult,
    asset,
)

from assets.partitions import scopes_partitions
from assets.records import (
    chunks_metadata,
    chunks_version,
    collection_metadata,
    embeddings_metadata,
    raw_metadata,
    raw_version,
)
from knowledge_platform import run_tags
from knowledge_platform.connectors.catalog import spec
from knowledge_platform.connectors.webhooks.events import decode_hint
from knowledge_platform.errors import KnowledgePlatformError
from knowledge_platform.ingest.steps import (
    PullOptions,
    chunk_step,
    embed_step,
    publish_step,
    pull_step,
)
from knowledge_platform.sparse import SparseEncoder
from resources.platform import EmbedderResource, RegistryResource, SnapshotResource, StoreResource
from resources.signals import SignalsResource

FULL_PULL_TAG = run_tags.FULL_PULL
FULL_RECONCILE_TAG = run_tags.FULL_RECONCILE
#: A source whose spec declares a pin: rebuild the partition from exactly this version.
AT_TAG = run_tags.AT
#: Ids webhooks named (hooks_sensor): a connector that can read by id reads only those.
HINT_TAG = run_tags.HINT
STEPS = ("raw", "chunks", "embeddings", "collection")


def freshness_policy(source: str) -> FreshnessPolicy:
    fresh = spec(source).freshness
    return FreshnessPolicy.time_window(fail_window=fresh.fail_after, warn_window=fresh.warn_after)


def asset_keys(source: str) -> list[AssetKey]:
    return [AssetKey([source, step]) for step in STEPS]


def _tag(context: AssetExecutionContext, tag: str) -> bool:
    return context.run.tags.get(tag, "").lower() in ("1", "true", "yes")


def _fail(exc: KnowledgePlatformError) -> Failure:
    return Failure(description=str(exc), allow_retries=False)


def build_source_assets(source: str) -> list[AssetsDefinition]:
    """Every asset takes `signals` (unused in its body): set up for the run, it lets SIGTERM
    and Ctrl-C stop the run even while it waits for a pool slot."""
    group = source
    kinds = {"python", "json"}
    eager = AutomationCondition.eager()

    @asset(
        key=[source, "raw"],
        partitions_def=scopes_partitions(source),
        group_name=group,
        kinds=kinds,
        pool=spec(source).api_pool,
        description=f"Documents pulled from {source}.",
    )
    def raw(
        context: AssetExecutionContext,
        registry: RegistryResource,
        snapshots: SnapshotResource,
        signals: SignalsResource,
    ) -> MaterializeResult:
        scope = context.partition_key
        options = PullOptions(
            full=_tag(context, FULL_PULL_TAG),
            full_reconcile=_tag(context, FULL_RECONCILE_TAG),
            hint=decode_hint(context.run.tags.get(HINT_TAG)),
            at=context.run.tags.get(AT_TAG),
        )
        try:
            result, merged = pull_step(registry.get(), snapshots.get(), source, scope, options)
        except KnowledgePlatformError as exc:
            raise _fail(exc) from exc
        for problem in merged.problems:
            context.log.warning(problem.line())
        return MaterializeResult(
            metadata=raw_metadata(result, merged), data_version=raw_version(merged.documents)
        )

    @asset(
        key=[source, "chunks"],
        deps=[raw],
        partitions_def=scopes_partitions(source),
        group_name=group,
        kinds=kinds,
        automation_condition=eager,
        description="Sections sized to the embedding model's window, with provenance.",
    )
    def chunks(
        context: AssetExecutionContext,
        embedder: EmbedderResource,
        snapshots: SnapshotResource,
        signals: SignalsResource,
    ) -> MaterializeResult:
        docs, chunked = chunk_step(
            snapshots.get(), source, context.partition_key, embedder.chunker()
        )
        return MaterializeResult(
            metadata=chunks_metadata(docs, chunked), data_version=chunks_version(chunked)
        )

    @asset(
        key=[source, "embeddings"],
        deps=[chunks],
        partitions_def=scopes_partitions(source),
        group_name=group,
        kinds={"python", "numpy", "onnx"},
        automation_condition=eager,
        description="Dense vectors (cached by model id + content hash) and BM25 sparse ones.",
    )
    def embeddings(
        context: AssetExecutionContext,
        embedder: EmbedderResource,
        snapshots: SnapshotResource,
        signals: SignalsResource,
    ) -> MaterializeResult:
        model = embedder.get()
        try:
            stats = embed_step(
                snapshots.get(),
                source,
                context.partition_key,
                model,
                embedder.cache(),
                SparseEncoder(),
            )
        except KnowledgePlatformError as exc:
            raise _fail(exc) from exc
        return MaterializeResult(metadata=embeddings_metadata(stats, model))

    @asset(
        key=[source, "collection"],
        deps=[embeddings],
        partitions_def=scopes_partitions(source),
        group_name=group,
        kinds={"qdrant"},
        automation_condition=eager,
        # No Dagster pool: writers of one collection queue on the store's own lock (a flock on
        # the collection, held from copy to publish, gone with its process); other scopes'
        # collections never wait for it.
        freshness_policy=freshness_policy(source),
        description="The source's points in the scope's Qdrant collection.",
    )
    def collection(
        context: AssetExecutionContext,
        store: StoreResource,
        embedder: EmbedderResource,
        snapshots: SnapshotResource,
        signals: SignalsResource,
    ) -> MaterializeResult:
        scope = context.partition_key
        vector_store = store.get()
        try:
            published = publish_step(
                vector_store,
                snapshots.get(),
                source,
                scope,
                embedder.get(),
                full_reconcile=_tag(context, FULL_RECONCILE_TAG),
            )
        except KnowledgePlatformError as exc:
            raise _fail(exc) from exc
        return MaterializeResult(metadata=collection_metadata(published, vector_store.count(scope)))

    return [raw, chunks, embeddings, collection]
