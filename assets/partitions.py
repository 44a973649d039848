"""One dynamic partition set per source: the scopes (`internal` or a client id) whose registry
entry configures it, so the UI shows no partition for a scope that does not use the source."""

from collections.abc import Iterable
from functools import cache

from dagster import DagsterInstance, DynamicPartitionsDefinition

from knowledge_platform.dagster_names import scopes_partitions_name


@cache
def scopes_partitions(source: str) -> DynamicPartitionsDefinition:
    """`<source>_scopes`, shared by the source's assets, checks and job."""
    return DynamicPartitionsDefinition(name=scopes_partitions_name(source))


def ensure_scopes(instance: DagsterInstance, source: str, scopes: Iterable[str]) -> None:
    """Add the scopes `source`'s partition set lacks (a run outside `kp up`: `kp index`)."""
    name = scopes_partitions_name(source)
    missing = sorted(set(scopes) - set(instance.get_dynamic_partitions(name)))
    if missing:
        instance.add_dynamic_partitions(name, missing)
