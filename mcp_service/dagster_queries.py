"""The GraphQL documents sent to Dagster (1.13). Values always travel as variables; the only
generated text is aliases (p0, p1, ... / c0, c1, ...) and their variable names."""

from __future__ import annotations

IN_FLIGHT = ["QUEUED", "NOT_STARTED", "STARTING", "STARTED", "CANCELING"]
CHECK_HISTORY = 100

_RUN_FIELDS = """results {
        runId status creationTime startTime
        tags { key value }
        assetSelection { path }
      }"""

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
query KpIndexStatus($keys: [AssetKeyInput!], $partitions: [String!],
                    $inFlight: [RunStatus!] __PARTITION_VARS__ __CHECK_VARS__) {
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
  __CHECK_EXECUTIONS__
  instance {
    concurrencyLimits {
      concurrencyKey
      claimedSlots { runId }
      pendingSteps { runId stepKey enqueuedTimestamp assignedTimestamp }
    }
  }
  runsOrError(filter: {statuses: $inFlight}, limit: 500) {
    __typename
    ... on Runs {
      __RUN_FIELDS__
    }
    ... on PythonError { message }
  }
}
"""


def status_query(n_partitions: int, n_checks: int) -> str:
    """Aliases: `p<i>` = latest run for partition variable $p<i>; `c<j>` = recent executions
    of check $cn<j> on asset $ck<j> (their `partition` is often null for a partitioned
    asset's check, so the run's `dagster/partition` tag says which scope they checked)."""
    variables = "".join(f", $p{i}: String!" for i in range(n_partitions))
    check_vars = "".join(f", $ck{j}: AssetKeyInput!, $cn{j}: String!" for j in range(n_checks))
    runs = "\n    ".join(
        f"p{i}: latestRunForPartition(partition: $p{i}) {{ runId status startTime endTime }}"
        for i in range(n_partitions)
    )
    checks = "\n  ".join(
        f"c{j}: assetCheckExecutions(assetKey: $ck{j}, checkName: $cn{j}, limit: {CHECK_HISTORY})"
        " { runId status partition timestamp run { tags { key value } } }"
        for j in range(n_checks)
    )
    return (
        STATUS_TEMPLATE.replace("__PARTITION_VARS__", variables)
        .replace("__CHECK_VARS__", check_vars)
        .replace("__MATERIALIZATION__", _MATERIALIZATION)
        .replace("__LATEST_RUNS__", runs)
        .replace("__CHECK_EXECUTIONS__", checks)
        .replace("__RUN_FIELDS__", _RUN_FIELDS)
    )


IN_FLIGHT_RUNS = """
query KpInFlightRuns($inFlight: [RunStatus!], $tags: [ExecutionTag!]) {
  runsOrError(filter: {statuses: $inFlight, tags: $tags}, limit: 50) {
    __typename
    ... on Runs {
      __RUN_FIELDS__
    }
    ... on PythonError { message }
  }
}
"""


def in_flight_request(scope: str) -> tuple[str, dict[str, object]]:
    """The queued and running runs of one scope's partition (any source)."""
    variables: dict[str, object] = {
        "inFlight": IN_FLIGHT,
        "tags": [{"key": "dagster/partition", "value": scope}],
    }
    return IN_FLIGHT_RUNS.replace("__RUN_FIELDS__", _RUN_FIELDS), variables


PARTITION_KEYS = """
query KpPartitionKeys($key: AssetKeyInput!) {
  assetNodeOrError(assetKey: $key) {
    __typename
    ... on AssetNode { partitionKeys }
  }
}
"""


def check_name(source: str) -> str:
    return f"{source}_collection_matches_chunks"


def status_request(sources: list[str], scopes: list[str]) -> tuple[str, dict[str, object]]:
    variables: dict[str, object] = {
        "keys": [{"path": [s, "collection"]} for s in sources],
        "partitions": scopes,
        "inFlight": IN_FLIGHT,
    }
    for i, scope in enumerate(scopes):
        variables[f"p{i}"] = scope
    for j, source in enumerate(sources):
        variables[f"ck{j}"] = {"path": [source, "collection"]}
        variables[f"cn{j}"] = check_name(source)
    return status_query(len(scopes), len(sources)), variables


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
