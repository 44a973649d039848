"""Jobs: `<source>_reindex_job` runs one source's four assets for one scope partition (a
partitioned job spans one partition set, and each source has its own: `<source>_scopes`,
taken from its assets)."""

from functools import cache

from dagster import AssetSelection, define_asset_job

from assets.factory import asset_keys
from knowledge_platform.dagster_names import reindex_job_name


@cache
def reindex_job(source: str):
    return define_asset_job(
        reindex_job_name(source),
        selection=AssetSelection.assets(*asset_keys(source)),
        description=f"Pull, chunk, embed and publish {source} for one scope.",
    )
