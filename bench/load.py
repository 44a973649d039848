"""MCP search under load: N concurrent clients over streamable HTTP, each calling
`knowledge_search` in a loop for a fixed time (loopback only). Prints requests/s and latency
percentiles and writes the table to bench/results/load.md. tests/e2e/test_load.py drives the
same loop against a `kp mcp` process while a reindex of the same scope runs.

    .venv/bin/python bench/load.py --url http://127.0.0.1:8001/mcp --token "$(cat .kp/admin-token)"
        [--clients 16] [--seconds 60] [--scope internal] [--query "weekly reindex"]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

RESULTS = Path(__file__).resolve().parent / "results" / "load.md"
QUERIES = (
    "when does the weekly reindex run",
    "standing rules for experiments",
    "decisions from the ops sync",
    "how long does every experiment run",
)
#: A check of one answer: an error description, or None when the answer is acceptable.
Check = Callable[[dict[str, Any]], "str | None"]


@dataclass
class LoadStats:
    clients: int
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return len(self.latencies) + len(self.errors)

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        """Latency in ms at percentile `p` (nearest rank)."""
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        rank = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
        return ordered[rank] * 1000

    def table(self, title: str = "") -> str:
        rows = [
            ("clients", str(self.clients)),
            ("duration", f"{self.seconds:.1f} s"),
            ("requests", str(self.requests)),
            ("errors", str(len(self.errors))),
            ("requests/s", f"{self.rps:.1f}"),
            ("p50 / p95 / p99", " / ".join(f"{self.percentile(p):.0f} ms" for p in (50, 95, 99))),
            ("max", f"{max(self.latencies, default=0) * 1000:.0f} ms"),
        ]
        head = f"{title}\n\n" if title else ""
        return head + "| | |\n|---|---|\n" + "\n".join(f"| {k} | {v} |" for k, v in rows)


async def _client_loop(
    url: str,
    token: str,
    deadline: float,
    queries: Sequence[str],
    args: dict[str, Any],
    check: Check | None,
    stats: LoadStats,
    offset: int,
) -> None:
    from fastmcp import Client

    cycle = itertools.islice(itertools.cycle(queries), offset, None)
    async with Client(url, auth=token, timeout=120) as client:
        while time.monotonic() < deadline:
            query = next(cycle)
            started = time.perf_counter()
            try:
                result = await client.call_tool(
                    "knowledge_search", {"query": query, **args}, raise_on_error=False
                )
            except Exception as exc:  # transport failures count as errors, the loop goes on
                stats.errors.append(f"{type(exc).__name__}: {exc}"[:300])
                continue
            elapsed = time.perf_counter() - started
            data = result.structured_content or {}
            problem = (
                f"tool error: {result.content}"[:300]
                if result.is_error
                else check(data)
                if check
                else None
            )
            if problem:
                stats.errors.append(problem)
            else:
                stats.latencies.append(elapsed)


async def run_load(
    url: str,
    token: str,
    *,
    clients: int = 16,
    seconds: float = 60.0,
    queries: Sequence[str] = QUERIES,
    scope: str = "internal",
    limit: int = 5,
    check: Check | None = None,
) -> LoadStats:
    """`clients` concurrent sessions searching for `seconds`; every answer is timed and
    passed to `check`. Loopback URLs only: this is a load generator."""
    host = urlsplit(url).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"refusing to load {host}: loopback only")
    stats = LoadStats(clients=clients)
    started = time.monotonic()
    deadline = started + seconds
    args = {"scope": scope, "limit": limit}
    await asyncio.gather(
        *(
            _client_loop(url, token, deadline, queries, args, check, stats, i)
            for i in range(clients)
        )
    )
    stats.seconds = time.monotonic() - started
    return stats


def write_results(stats: LoadStats, title: str) -> None:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(f"## load\n\n{stats.table(f'{title} ({stamp})')}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8001/mcp")
    parser.add_argument("--token", required=True, help="bearer token (e.g. the admin token)")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--scope", default="internal")
    parser.add_argument("--query", action="append", help="repeatable; default: a few demo ones")
    args = parser.parse_args()
    stats = asyncio.run(
        run_load(
            args.url,
            args.token,
            clients=args.clients,
            seconds=args.seconds,
            queries=args.query or QUERIES,
            scope=args.scope,
        )
    )
    title = f"knowledge_search, {args.clients} clients, scope {args.scope}"
    print(stats.table(title))
    for error in stats.errors[:10]:
        print("error:", error)
    write_results(stats, title)


if __name__ == "__main__":
    main()
