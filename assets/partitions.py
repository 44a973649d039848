"""One dynamic partition per scope (`internal` or a client id), shared by every source."""

from dagster import DynamicPartitionsDefinition

scopes_partitions = DynamicPartitionsDefinition(name="scopes")
