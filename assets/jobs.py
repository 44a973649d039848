"""Jobs: `reindex_job` runs any source's four assets for one scope partition."""

from dagster import AssetSelection, define_asset_job

reindex_job = define_asset_job(
    "reindex_job",
    selection=AssetSelection.all() - AssetSelection.groups("analytics"),
    description="Pull, chunk, embed and publish; runs request one source's four assets.",
)
