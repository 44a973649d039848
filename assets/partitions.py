"""One dynamic partition per scope (`internal` or a client id), shared by every source."""

from dagster import DynamicPartitionsDefinition

SCOPES = "scopes"
scopes_partitions = DynamicPartitionsDefinition(name=SCOPES)
