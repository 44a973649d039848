"""Index status and reindex launches through Dagster's GraphQL API (plain httpx, no dagster
import): works the same against a local `dagster dev` and a remote deployment.

Per source x scope the status is read from the `<source>/collection` asset's partition
(= scope; a source's partitions are the scopes configuring it, `<source>_scopes`): its latest
materialization (time, run id, metadata), the latest run for the partition, the asset's
freshness (`freshnessStatusInfo`, evaluated per asset by Dagster),
the partition's own age against the asset's `internalFreshnessPolicy` window, failing
checks (`AssetCheck.partitionStatuses`) and in-flight runs. Dagster unreachable -> status
"unavailable" with a warning, never an exception.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from knowledge_platform import run_tags
from knowledge_platform.dagster_names import reindex_job_name, scopes_partitions_name
from mcp_service import dagster_queries as q
from mcp_service.dagster_models import IndexStatus, LaunchedRun, Pair, RunInfo, SourceStatus
from mcp_service.dagster_parse import parse_status, runs_of, stale_pairs

#: A search of a scope with no index asks for its in-flight runs; it waits no longer than this.
IN_FLIGHT_TIMEOUT = 3.0


class DagsterUnavailable(Exception):
    """Dagster did not answer (or answered with an error); the message is one line."""


class DagsterClient:
    def __init__(
        self, url: str, *, timeout: float = 10.0, transport: httpx.BaseTransport | None = None
    ) -> None:
        self.url = url.rstrip("/")
        self.endpoint = self.url + "/graphql"
        self._timeout = timeout
        self._transport = transport

    def graphql(
        self,
        query: str,
        variables: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        try:
            with httpx.Client(
                timeout=timeout or self._timeout, transport=self._transport
            ) as client:
                response = client.post(
                    self.endpoint, json={"query": query, "variables": dict(variables or {})}
                )
        except httpx.HTTPError as exc:
            raise DagsterUnavailable(
                f"Dagster at {self.url} is not reachable ({type(exc).__name__})"
            ) from None
        if response.status_code != 200:
            raise DagsterUnavailable(f"Dagster at {self.url} answered HTTP {response.status_code}")
        try:
            body = response.json()
        except ValueError:
            raise DagsterUnavailable(f"Dagster at {self.url} answered non-JSON") from None
        if body.get("errors"):
            first = str(body["errors"][0].get("message", "error"))[:200]
            raise DagsterUnavailable(f"Dagster GraphQL error: {first}")
        return body.get("data") or {}

    # -- status -------------------------------------------------------------------------------
    def index_status(
        self,
        pairs: Sequence[Pair],
        points: Mapping[Pair, int | None] | None = None,
        now: dt.datetime | None = None,
        deadlines: Mapping[str, float] | None = None,
    ) -> IndexStatus:
        now = now or dt.datetime.now(dt.UTC)
        points = points or {}
        sources = sorted({s for s, _ in pairs})
        scopes = sorted({p for _, p in pairs})
        try:
            data = self.graphql(*q.status_request(sources, scopes)) if pairs else {}
        except DagsterUnavailable as exc:
            rows = [SourceStatus(source=s, scope=p, points=points.get((s, p))) for s, p in pairs]
            return IndexStatus(
                status="unavailable",
                health=f"unavailable: {exc}; point counts come from the store only",
                dagster_url=self.url,
                checked_at=now,
                sources=rows,
                warnings=[str(exc)],
            )
        return parse_status(
            data, pairs, sources, scopes, points, url=self.url, now=now, deadlines=deadlines
        )

    def in_flight(self, scope: str) -> list[RunInfo]:
        """The runs of `scope`'s partition queued or running now (any source). Raises
        DagsterUnavailable if Dagster cannot be asked."""
        data = self.graphql(
            *q.in_flight_request(scope), timeout=min(self._timeout, IN_FLIGHT_TIMEOUT)
        )
        return runs_of(data, {scope})

    # -- launches -----------------------------------------------------------------------------
    def _repository(self, jobs: set[str]) -> dict[str, str]:
        """The repository defining (one of) `jobs`: every source's job lives in the one code
        location; a job it lacks (a source added since it loaded) fails that launch alone."""
        data = self.graphql(q.REPOSITORIES)
        repos = data.get("repositoriesOrError") or {}
        for node in repos.get("nodes") or []:
            if jobs & {j.get("name") for j in node.get("jobs") or []}:
                return {
                    "repositoryName": node["name"],
                    "repositoryLocationName": node["location"]["name"],
                }
        raise DagsterUnavailable(
            f"no code location at {self.url} defines {', '.join(sorted(jobs))}"
        )

    def _ensure_partitions(self, repo: dict[str, str], pairs: Sequence[Pair]) -> None:
        """Scopes the registry configures for a source but its partition set lacks yet (the
        registry sensor may be stopped) are added, so the launch does not fail on them."""
        for source in sorted({s for s, _ in pairs}):
            data = self.graphql(q.PARTITION_KEYS, {"key": {"path": [source, "collection"]}})
            node = data.get("assetNodeOrError") or {}
            if node.get("__typename") != "AssetNode":
                continue
            existing = set(node.get("partitionKeys") or [])
            for scope in stale_pairs(pairs, source, existing):
                name = scopes_partitions_name(source)
                self.graphql(q.ADD_PARTITION, {"repo": repo, "name": name, "key": scope})
                existing.add(scope)

    def launch_reindex(
        self, pairs: Sequence[Pair], *, trigger: str = "mcp", principal: str = ""
    ) -> list[LaunchedRun]:
        """One run of `<source>_reindex_job` (the source's four assets) per source x scope,
        for the scope's partition. Raises DagsterUnavailable if Dagster cannot be reached."""
        repo = self._repository({reindex_job_name(source) for source, _ in pairs})
        self._ensure_partitions(repo, pairs)
        launched: list[LaunchedRun] = []
        for source, scope in pairs:
            params = {
                "selector": {**repo, "jobName": reindex_job_name(source)},
                "executionMetadata": {
                    "tags": [
                        {"key": "dagster/partition", "value": scope},
                        {"key": run_tags.TRIGGER, "value": trigger},
                        *([{"key": run_tags.PRINCIPAL, "value": principal}] if principal else []),
                    ]
                },
            }
            result = self.graphql(q.LAUNCH_RUN, {"params": params}).get("launchRun") or {}
            if result.get("__typename") == "LaunchRunSuccess":
                run = result["run"]
                launched.append(
                    LaunchedRun(
                        source=source, scope=scope, run_id=run["runId"], status=run.get("status")
                    )
                )
            else:
                launched.append(
                    LaunchedRun(source=source, scope=scope, error=_launch_error(result))
                )
        return launched


def _launch_error(result: dict[str, Any]) -> str:
    kind = result.get("__typename", "unknown error")
    message = result.get("message")
    if not message and result.get("errors"):
        message = "; ".join(str(e.get("message")) for e in result["errors"])[:300]
    return f"{kind}: {message}" if message else str(kind)
