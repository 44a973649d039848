"""The per-source Dagster names, written once: the assets define them, the MCP service and
`kp` launch runs and read partitions by them (the service must not import Dagster code).
Plain strings, like run_tags, so the core stays free of Dagster."""


def scopes_partitions_name(source: str) -> str:
    """The dynamic partition set of `source`'s four assets and checks: exactly the scopes
    whose registry entry configures the source (the registry sensor keeps it so)."""
    return f"{source}_scopes"


def reindex_job_name(source: str) -> str:
    """The job running `source`'s four assets for one scope (a job spans one partition set)."""
    return f"{source}_reindex_job"


#: The one partition set every source shared before each source had its own; an instance
#: that has it keeps it (nothing reads it any more).
LEGACY_SCOPES_PARTITIONS = "scopes"
