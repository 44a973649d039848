"""The GraphQL documents sent to Dagster (1.13). Values always travel as variables; the only
generated text is the alias of each per-partition `latestRunForPartition` (p0, p1, ...)."""

from __future__ import annotations

IN_FLIGHT = ["QUEUED", "NOT_STARTED", "STARTING", "STARTED", "CANCELING"]

_MATERIALIZATION = """
      partition runId timestamp
      metadataEntries {
        label
        ... on IntMetadataEntry { intValue }
        ... on FloatMetadataEntry { floatValue }
        ... on TextMetadataEntry { text }
        ... on BoolMetadataEntry { boolValue }
      }"""

STATUS_TEMPLATE = """
query KpIndexStatus($keys: [AssetKeyInput!], $partitions: [String!], $job: String!,
                    $inFlight: [RunStatus!] __PARTITION_VARS__) {
  assetNodes(assetKeys: $keys) {
    assetKey { path }
    freshnessStatusInfo {
      freshnessStatus
      freshnessStatusMetadata { lastMaterializedTimestamp }
    }
    internalFreshnessPolicy {
      __typename
      ... on TimeWindowFreshnessPolicy { failWindowSeconds warnWindowSeconds }
      ... on CronFreshnessPolicy { deadlineCron lowerBoundDeltaSeconds timezone }
    }
    latestMaterializationByPartition(partitions: $partitions) { __MATERIALIZATION__ }
    dataVersionByPartition(partitions: $partitions)
    assetChecksOrError {
      __typename
      ... on AssetChecks {
        checks {
          name
          partitionStatuses {
            __typename
            ... on AssetCheckDefaultPartitionStatuses {
              succeededPartitions failedPartitions inProgressPartitions
              skippedPartitions executionFailedPartitions
            }
          }
        }
      }
    }
    __LATEST_RUNS__
  }
  runsOrError(filter: {pipelineName: $job, statuses: $inFlight}, limit: 500) {
    __typename
    ... on Runs {
      results {
        runId status creationTime startTime
        tags { key value }
        assetSelection { path }
      }
    }
    ... on PythonError { message }
  }
}
"""


def status_query(n_partitions: int) -> str:
    variables = "".join(f", $p{i}: String!" for i in range(n_partitions))
    runs = "\n    ".join(
        f"p{i}: latestRunForPartition(partition: $p{i}) {{ runId status startTime endTime }}"
        for i in range(n_partitions)
    )
    return (STATUS_TEMPLATE.replace("__PARTITION_VARS__", variables)
            .replace("__MATERIALIZATION__", _MATERIALIZATION)
            .replace("__LATEST_RUNS__", runs))


PARTITION_KEYS = """
query KpPartitionKeys($key: AssetKeyInput!) {
  assetNodeOrError(assetKey: $key) {
    __typename
    ... on AssetNode { partitionKeys }
  }
}
"""

REPOSITORIES = """
query KpRepositories {
  repositoriesOrError {
    __typename
    ... on RepositoryConnection { nodes { name location { name } jobs { name } } }
    ... on PythonError { message }
  }
}
"""

ADD_PARTITION = """
mutation KpAddPartition($repo: RepositorySelector!, $name: String!, $key: String!) {
  addDynamicPartition(repositorySelector: $repo, partitionsDefName: $name, partitionKey: $key) {
    __typename
    ... on AddDynamicPartitionSuccess { partitionKey }
    ... on DuplicateDynamicPartitionError { partitionName }
    ... on UnauthorizedError { message }
    ... on PythonError { message }
  }
}
"""

LAUNCH_RUN = """
mutation KpLaunchRun($params: ExecutionParams!) {
  launchRun(executionParams: $params) {
    __typename
    ... on LaunchRunSuccess { run { runId status } }
    ... on PythonError { message }
    ... on InvalidSubsetError { message }
    ... on PipelineNotFoundError { message }
    ... on RunConfigValidationInvalid { errors { message } }
    ... on UnauthorizedError { message }
    ... on RunConflict { message }
    ... on ConflictingExecutionParamsError { message }
    ... on PresetNotFoundError { message }
    ... on NoModeProvidedError { message }
    ... on InvalidStepError { invalidStepKey }
    ... on InvalidOutputError { invalidOutputName }
  }
}
"""
