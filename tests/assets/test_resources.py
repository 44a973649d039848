"""The assets use the resources they are given and nothing behind them: a test double swapped
in `materialize(resources=...)` is what the run embeds with, what the collection records and
what the checks compare against."""

from __future__ import annotations

from dagster import materialize

from assets.checks import build_collection_checks
from assets.factory import build_source_assets
from assets.partitions import ensure_scopes
from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.embeddings.deterministic import HashEmbedder
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from resources.platform import EmbedderResource, platform_resources
from tests.assets.conftest import Materializer


def test_an_embedder_double_swapped_in_is_the_one_the_run_uses(kp_env: Settings) -> None:
    double = HashEmbedder(dim=32)  # the registry configures the 64-dimension one

    class EmbedderDouble(EmbedderResource):
        def get(self) -> Embedder:
            return double

    run = Materializer(kp_env)
    ensure_scopes(run.instance, "memory_files", ["internal"])
    resources = platform_resources(kp_env)
    resources["embedder"] = EmbedderDouble(**resources["embedder"].model_dump())
    result = materialize(
        [*build_source_assets("memory_files"), *build_collection_checks("memory_files")],
        partition_key="internal",
        instance=run.instance,
        resources=resources,
    )

    assert result.success
    embeddings = Materializer.metadata(result, "embeddings")
    assert (embeddings["model"], embeddings["dim"]) == ("test-hash-bow-32", 32)
    assert double.texts_embedded == embeddings["embedded"] > 0
    checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
    assert checks["memory_files_single_embedding_model"], checks
    runtime = Runtime(kp_env)
    try:
        info = runtime.store.info("internal")
    finally:
        runtime.close()
    assert info is not None and (info.model_id, info.dim) == ("test-hash-bow-32", 32)
