"""Throughput of `knowledge_search` over MCP HTTP against a bare FastMCP tool, in one run.

(a) a bare FastMCP server (same FastMCP, same HTTP options as ours, no auth) whose one tool
returns a constant: the structured content of one of our real answers, so
both answers are the same size; (b) `kp mcp` over a collection of `--size` chunks (SciFact
chunks with their real vectors, scaled as bench/speed.py does), under two loads: the SciFact
test claims in turn (repeating, as bench/speed.py sends them) and claims never sent before
(fresh: every query embedded). The same `--clients` concurrent sessions drive each, in
interleaved slices so the machine's other load falls on all three alike. Reported: requests/s,
errors, p50/p95, service CPU per request (from /proc, every worker), RSS, the load
generator's own CPU, and the 1-minute load average during each.

Both servers run with the same number of processes, at each of `--processes` in turn
(default 2, then 1: ours `kp mcp` with KP_MCP_WORKERS=N, the bare one uvicorn with N
workers). One line per process count, `req_s=<ours> bare_req_s=<bare> ratio=<ours/bare>
cpu_ms_per_req=<ours> processes=<N>:<N>` for the repeating load, the last one last (1:1 by
default); before them, the fresh queries' line of each count.

    .venv/bin/python bench/mcp_throughput.py [--size 50000] [--clients 8] [--seconds 30]
        [--processes 2 1] [--home DIR (kept; a second run reuses its index)]
        [--max-documents N]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import DEFAULT_DATA, bench_home, index, load_average, markdown_table, write_results
from _common import platform_runtime as runtime_of
from speed import (
    LIMIT,
    MCP_VERSION,
    cpu_seconds,
    free_port,
    rss_mb,
    start_mcp,
    stop,
    wait_listening,
    write_scale,
)

from knowledge_platform.serve.evaluation import read_qrels, read_queries

TOOL = "knowledge_search"


# -- the load -------------------------------------------------------------------------------------


@dataclass
class Target:
    """One server under one kind of load, with what its slices of load measured."""

    name: str
    url: str
    token: str | None
    calls: list[dict[str, Any]]
    pids: list[int]
    turn: Iterator[int] = field(default_factory=itertools.count)  # next call, across slices
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    server_cpu_s: float = 0.0
    client_cpu_s: float = 0.0
    rss_mb: float = 0.0
    load_avgs: list[float] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return len(self.latencies) + len(self.errors)

    @property
    def req_s(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def cpu_ms(self) -> float:
        return 1000 * self.server_cpu_s / max(1, self.requests)

    def ms(self, q: float) -> float:
        ordered = sorted(self.latencies) or [float("nan")]
        return 1000 * ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]

    def row(self) -> list[str]:
        loads = self.load_avgs or [float("nan")]
        return [
            self.name,
            f"{self.req_s:.1f}",
            str(len(self.errors)),
            f"{self.ms(50):.1f} / {self.ms(95):.1f}",
            f"{self.cpu_ms:.2f}",
            f"{1000 * self.client_cpu_s / max(1, self.requests):.2f}",
            f"{self.rss_mb:.0f}",
            f"{sum(loads) / len(loads):.1f} ({min(loads):.1f}-{max(loads):.1f})",
        ]


def call_body(i: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MCP_VERSION,
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    return {
        "jsonrpc": "2.0",
        "id": i,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": meta},
    }


async def _session(
    target: Target, calls: list[dict[str, Any]], turn: Iterator[int], deadline: float, record: bool
) -> None:
    """One client: JSON-RPC `tools/call` POSTs on one keep-alive connection, as an MCP client
    speaking the stateless HTTP revision sends them, without an SDK client's own work."""
    import httpx

    headers = {
        "MCP-Protocol-Version": MCP_VERSION,
        "Mcp-Method": "tools/call",
        "Mcp-Name": TOOL,
        "Accept": "application/json, text/event-stream",
    }
    if target.token:
        headers["Authorization"] = f"Bearer {target.token}"
    async with httpx.AsyncClient(timeout=60, headers=headers) as http:
        while time.monotonic() < deadline:
            i = next(turn)  # shared by the clients: the calls are sent in order, each once
            started = time.perf_counter()
            try:
                reply = await http.post(target.url, json=call_body(i, TOOL, calls[i % len(calls)]))
                elapsed = time.perf_counter() - started
                result = reply.json().get("result") or {}
            except Exception as exc:  # a transport failure is an error, the load goes on
                target.errors.append(f"{type(exc).__name__}: {exc}"[:300])
                continue
            if reply.status_code != 200 or result.get("isError", True):
                target.errors.append(f"{reply.status_code}: {reply.text[:300]}")
            elif record:
                target.latencies.append(elapsed)


def run_slice(target: Target, clients: int, seconds: float) -> None:
    """`clients` concurrent sessions sending the target's calls for `seconds`."""
    cpu0 = sum(cpu_seconds(p) for p in target.pids)
    mine0 = _own_cpu()
    started = time.monotonic()

    async def many() -> None:
        await asyncio.gather(
            *(
                _session(target, target.calls, target.turn, started + seconds, True)
                for _ in range(clients)
            )
        )

    asyncio.run(many())
    target.seconds += time.monotonic() - started
    target.server_cpu_s += sum(cpu_seconds(p) for p in target.pids) - cpu0
    target.client_cpu_s += _own_cpu() - mine0
    target.rss_mb = max(target.rss_mb, *(rss_mb(p)[0] for p in target.pids))
    target.load_avgs.append(os.getloadavg()[0])


def warm(target: Target, calls: list[dict[str, Any]], seconds: float = 2.0) -> None:
    """A few seconds of `calls` (the service opens its collection on first use)."""
    asyncio.run(_session(target, calls, itertools.count(), time.monotonic() + seconds, False))
    if target.errors:
        raise SystemExit(f"{TOOL} at {target.url} fails: {target.errors[0]}")


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def one_answer(url: str, token: str, args: dict[str, Any]) -> dict[str, Any]:
    """The `result` of one real knowledge_search call (its structured content is the bare
    tool's constant)."""
    import httpx

    headers = {
        "MCP-Protocol-Version": MCP_VERSION,
        "Mcp-Method": "tools/call",
        "Mcp-Name": TOOL,
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
    }
    reply = httpx.post(url, json=call_body(0, TOOL, args), headers=headers, timeout=60)
    return reply.json()["result"]


# -- the bare server ------------------------------------------------------------------------------

#: The bare server's module (uvicorn imports it by name in each of its worker processes).
BARE_APP = textwrap.dedent('''
    import json, os
    from fastmcp import FastMCP
    from mcp_service.app import HTTP_APP_OPTIONS

    ANSWER = json.loads(open(os.environ["KP_BENCH_ANSWER"], encoding="utf-8").read())
    mcp = FastMCP("bare")

    @mcp.tool
    def knowledge_search(query: str, scope: str = "internal", limit: int = 5) -> dict:
        """A constant answer as large as a real one."""
        return ANSWER

    app = mcp.http_app(**HTTP_APP_OPTIONS)
''')
BARE_RUN = textwrap.dedent("""
    import sys
    import uvicorn
    from mcp_service.app import UVICORN_OPTIONS

    uvicorn.run("bare_app:app", host="127.0.0.1", port=int(sys.argv[1]),
                workers=int(sys.argv[2]), **UVICORN_OPTIONS)
""")


def start_bare(
    answer: dict[str, Any], workdir: Path, processes: int
) -> tuple[subprocess.Popen[bytes], str]:
    """The bare server with `processes` worker processes (1: uvicorn serves in-process)."""
    path = workdir / "answer.json"
    path.write_text(json.dumps(answer), encoding="utf-8")
    (workdir / "bare_app.py").write_text(BARE_APP, encoding="utf-8")
    port = free_port()
    root = Path(__file__).resolve().parent.parent
    log = (workdir / "bare.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-c", BARE_RUN, str(port), str(processes)],
        cwd=workdir,
        env={**os.environ, "KP_BENCH_ANSWER": str(path), "PYTHONPATH": f"{root}:{workdir}"},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = wait_listening(proc, port, workdir / "bare.log", "bare server", 60)
    deadline = time.monotonic() + 60
    while processes > 1 and len(_tree(proc.pid)) <= processes:  # its workers started
        if time.monotonic() > deadline:
            raise SystemExit(f"bare server: {processes} workers did not start")
        time.sleep(0.2)
    return proc, url


# -- the collection -------------------------------------------------------------------------------


def ensure_collection(bh: Any, scope: str, size: int) -> str:
    """Index SciFact (unless this home already has it) and publish `size` scaled points
    into `scope` (unless already there)."""
    runtime = runtime_of(bh.settings)
    try:
        if runtime.store.info(scope) is not None and runtime.store.count(scope) == size:
            return f"reused {size:,} points in {scope}"
        if not runtime.snapshots.read_chunks("beir", "internal"):
            run = index(bh.settings)
            print(f"indexed SciFact in {run.seconds:.0f} s ({load_average()})", flush=True)
        seconds = write_scale(runtime, scope, size)
        return f"published {size:,} points in {seconds:.0f} s"
    finally:
        runtime.close()


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="BEIR dataset directory")
    ap.add_argument("--size", type=int, default=50_000, help="chunks in the collection")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument(
        "--seconds",
        type=float,
        default=30.0,
        help="load per server and kind of load, in --rounds interleaved slices",
    )
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument(
        "--home", type=Path, default=None, help="keep the index here and reuse it on the next run"
    )
    ap.add_argument(
        "--processes",
        type=int,
        nargs="+",
        default=[2, 1],
        help="server processes, each side, one comparison per value, in order",
    )
    ap.add_argument(
        "--max-documents",
        type=int,
        default=None,
        help="index only the first N SciFact documents (default: all)",
    )
    args = ap.parse_args()

    all_queries = read_queries(args.data / "queries.jsonl")
    test = read_qrels(args.data / "qrels" / "test.tsv")
    queries = [all_queries[q] for q in test if q in all_queries]
    random.Random(0).shuffle(queries)
    scope = f"scale{args.size}"
    calls = [{"query": q, "scope": scope, "limit": LIMIT} for q in queries]
    # Never sent before (the service keeps recent query embeddings): claim + a number.
    fresh = [
        {"query": f"{q} ({n})", "scope": scope, "limit": LIMIT}
        for n in range(1, 100)
        for q in queries
    ]
    workdir = Path(tempfile.mkdtemp(prefix="kp-throughput-"))
    corpus = args.data
    if args.max_documents:
        corpus = workdir / "scifact"
        corpus.mkdir()
        lines = (args.data / "corpus.jsonl").read_text(encoding="utf-8").splitlines(True)
        (corpus / "corpus.jsonl").write_text("".join(lines[: args.max_documents]), encoding="utf-8")
    levels: dict[int, list[Target]] = {}
    answer: dict[str, Any] = {}
    with bench_home(corpus, home=args.home, clients=(scope,)) as bh:
        print(ensure_collection(bh, scope, args.size), f"({load_average()})", flush=True)
        for processes in args.processes:
            levels[processes], answer = compare(bh, processes, calls, fresh, workdir, args)

    size = len(json.dumps(answer))
    table = markdown_table(
        [
            "processes",
            "server and load",
            "req/s",
            "errors",
            "p50 / p95 ms",
            "service CPU ms/req",
            "load generator CPU ms/req",
            "RSS MB (largest process)",
            "1-min load average: mean (range)",
        ],
        [[f"{n}:{n}", *t.row()] for n, targets in levels.items() for t in targets],
    )
    notes = [
        f"{args.clients} concurrent clients; {args.seconds:.0f} s per line in {args.rounds} "
        f"interleaved slices; limit {LIMIT}; one answer is {size:,} bytes of JSON-RPC result.",
        f"Repeating: the {len(queries)} SciFact test claims in turn (as bench/speed.py sends "
        "them; the service's query-embedding LRU answers most of them after the first pass). "
        "Fresh: each request a claim with a number appended, never sent before, so every "
        "query is embedded.",
        "Processes N:N: ours `kp mcp` with KP_MCP_WORKERS=N; bare: FastMCP's HTTP app with "
        "the same options (JSON responses, no access log), no auth, no work, under uvicorn "
        "with N workers. Service CPU counts every process of the server.",
        "Clients are JSON-RPC POSTs on keep-alive connections (httpx) in this process; servers "
        f"and clients share the machine's {os.cpu_count()} cores with whatever else runs.",
    ]
    text = table + "\n\n" + "\n".join(f"- {n}" for n in notes)
    print(text)
    path = write_results("mcp_throughput", "MCP throughput: knowledge_search vs a bare tool", text)
    print(f"written to {path.relative_to(path.parents[2])}")
    for n, (bare_t, _, fresh_t) in levels.items():
        print(
            f"fresh queries: req_s={fresh_t.req_s:.1f} ratio={fresh_t.req_s / bare_t.req_s:.2f} "
            f"cpu_ms_per_req={fresh_t.cpu_ms:.2f} processes={n}:{n}"
        )
    for n, (bare_t, repeating, _) in levels.items():
        print(
            f"req_s={repeating.req_s:.1f} bare_req_s={bare_t.req_s:.1f} "
            f"ratio={repeating.req_s / bare_t.req_s:.2f} cpu_ms_per_req={repeating.cpu_ms:.2f} "
            f"processes={n}:{n}"
        )


def compare(
    bh: Any,
    processes: int,
    calls: list[dict[str, Any]],
    fresh: list[dict[str, Any]],
    workdir: Path,
    args: argparse.Namespace,
) -> tuple[list[Target], dict[str, Any]]:
    """Ours and the bare server, each with `processes` processes, under the same slices:
    [bare, ours repeating, ours fresh], and the answer the bare one returns."""
    os.environ["KP_MCP_WORKERS"] = str(processes)  # start_mcp passes the environment on
    ours, url = start_mcp(bh, workdir / f"mcp-{processes}.log")
    try:
        token = (bh.home / "admin-token").read_text().strip()
        answer = one_answer(url, token, calls[0])
        bare, bare_url = start_bare(answer["structuredContent"], workdir, processes)
        try:
            targets = [
                Target(
                    "bare FastMCP tool (constant answer)", bare_url, None, calls, _tree(bare.pid)
                ),
                Target(
                    f"knowledge_search, {args.size:,} chunks, repeating queries",
                    url,
                    token,
                    calls,
                    _tree(ours.pid),
                ),
                Target(
                    f"knowledge_search, {args.size:,} chunks, fresh queries",
                    url,
                    token,
                    fresh,
                    _tree(ours.pid),
                ),
            ]
            for target in targets:
                warm(target, calls)
            # Interleaved slices: a change in the machine's other load hits all alike.
            for _ in range(args.rounds):
                for target in targets:
                    run_slice(target, args.clients, args.seconds / args.rounds)
        finally:
            stop(bare)
    finally:
        stop(ours)
    return targets, answer


def _tree(pid: int) -> list[int]:
    """`pid` and its descendants (worker processes)."""
    out = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True, check=False
    ).stdout.split()
    return [pid, *(q for p in out for q in _tree(int(p)))]


if __name__ == "__main__":
    main()
