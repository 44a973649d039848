"""Freshness: an edit in the ClickUp fake until it is searchable through MCP, with webhooks
and with polling only.

The embedded default as `kp up` runs it: `dagster dev` (webserver + daemon: sensors,
schedules, the run queue; each run a subprocess, as the default run launcher starts it),
the MCP service on its own port, the local all-MiniLM model, Qdrant Edge shards, sqlite
storage and the webhook queue under a throwaway KP_HOME. The ClickUp fake stands in for
ClickUp; in webhook mode `kp hooks register` creates the webhook through the fake's API and
the fake delivers signed events to /hooks/clickup, which hooks_sensor (on every look of the
sensor daemon, every 5 s) applies in its own tick (its hot path: a few ids, no run in flight)
or turns into runs, reading the edited task by id either way. In polling mode there is no
webhook and the incremental schedule runs every 5 minutes (the shortest the registry allows).

Edits are made about every `--spacing` seconds, each a new word in one task's description
(each gap drawn from 0.75-1.25 x spacing, the same gaps every run: with a fixed gap the edits
kept one phase against the sensor daemon's 5 s loop, so a run measured one wait for the tick
instead of their spread), while a FastMCP client searches for every word not yet found, twice
a second; an edit's freshness is the time from the edit to the first knowledge_search result
holding its word.

    .venv/bin/python bench/freshness.py [--edits 20] [--mode both|webhook|polling]

The last line printed is `freshness_p95_s=<v> mode=webhook` (when webhook mode ran), the p50
just before it; webhook mode also prints where each edit's time went (bench/freshness_split.py).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from _common import ROOT, load_average, markdown_table, model_cache, write_results
from freshness_split import Edit, save, split, table_rows

from knowledge_platform.config.registry import load_registry
from knowledge_platform.hooks.register import register
from tests.fakes.clickup_server import ClickUpFake
from tests.procs import free_port, listening, stop_group

TOKEN = "pk_42_BENCH"
#: One word per edit, each a whole word to the model's tokenizer and the BM25 stemmer, so a
#: query for it ranks its task first once indexed (made-up letter strings split into word
#: pieces other tasks share, and ranked the edited task below others).
WORDS = (
    "volcano",
    "saxophone",
    "glacier",
    "pineapple",
    "lighthouse",
    "cathedral",
    "penguin",
    "tornado",
    "violin",
    "cactus",
    "harbor",
    "meteor",
    "orchard",
    "canyon",
    "falcon",
    "lantern",
    "submarine",
    "tulip",
    "walrus",
    "compass",
    "dolphin",
    "pyramid",
    "blizzard",
    "cinnamon",
    "kangaroo",
    "galaxy",
    "trumpet",
    "waterfall",
    "avalanche",
    "mosquito",
    "bamboo",
    "hurricane",
    "octopus",
    "telescope",
    "vineyard",
    "giraffe",
    "parachute",
    "lobster",
    "marathon",
    "peacock",
)
SECRET_ENV = "KP_BENCH_CLICKUP_HOOK"
TASKS = 40
POLL_MINUTES = 5


def registry(fake: ClickUpFake, mcp_port: int, mode: str) -> dict[str, Any]:
    clickup: dict[str, Any] = {
        "base_url": fake.url("/api/v2"),
        "docs_base_url": fake.url("/api/v3"),
        "team_id": "9001",
        "list_ids": ["L1"],
        "attachments": False,
    }
    data: dict[str, Any] = {
        "service": {"public_url": f"http://127.0.0.1:{mcp_port}"},
        "internal": {"sources": {"clickup": clickup}},
    }
    if mode == "webhook":
        clickup["webhook_secret_env"] = SECRET_ENV
    else:
        data["poll_minutes"] = {"clickup": POLL_MINUTES}
    return data


def populate(fake: ClickUpFake) -> list[str]:
    fake.add_hierarchy("9001", "s1", None, "L1")
    return [
        fake.add_task("L1", f"Work item {i}", description=f"Notes for item {i}: baseline{i}marker.")
        for i in range(TASKS)
    ]


async def found(client: Any, word: str) -> bool:
    result = await client.call_tool(
        "knowledge_search", {"query": word, "scope": "internal", "limit": 3}
    )
    hits = (result.structured_content or {}).get("hits", [])
    return any(word in hit.get("snippet", "") for hit in hits)


async def wait_until_found(url: str, token: str, word: str, timeout: float) -> float:
    from fastmcp import Client

    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            async with Client(url, auth=token, timeout=30) as client:
                while time.monotonic() - started < timeout:
                    if await found(client, word):
                        return time.monotonic() - started
                    await asyncio.sleep(1.0)
        except Exception:  # the service is still starting
            await asyncio.sleep(1.0)
    raise SystemExit(f"{word!r} not searchable within {timeout:.0f} s")


async def measure(
    url: str,
    token: str,
    fake: ClickUpFake,
    tasks: list[str],
    edits: int,
    spacing: float,
    timeout: float,
    tag: str,
) -> list[Edit]:
    from fastmcp import Client

    draw = random.Random(tag)
    words = draw.sample(WORDS, edits)
    gaps = [spacing * draw.uniform(0.75, 1.25) for _ in range(edits)]
    pending: dict[str, float] = {}
    latencies: dict[str, float] = {}
    clock: dict[str, Edit] = {}  # wall-clock times, to cut each edit at its run's events

    async def editor() -> None:
        for i in range(edits):
            word = words[i]
            fake.update_task(
                tasks[i % len(tasks)], description=f"Notes for item {i}: now mentions {word}."
            )
            pending[word] = time.monotonic()
            clock[word] = Edit(time.time(), 0.0, tasks[i % len(tasks)])
            await asyncio.sleep(gaps[i])

    async def watcher() -> None:
        async with Client(url, auth=token, timeout=30) as client:
            deadline = time.monotonic() + sum(gaps) + timeout
            while len(latencies) < edits and time.monotonic() < deadline:
                for word, at in list(pending.items()):
                    if await found(client, word):
                        latencies[word] = time.monotonic() - at
                        clock[word] = Edit(clock[word].at, time.time(), clock[word].task)
                        del pending[word]
                        print(
                            f"  {tag}: {word} searchable after {latencies[word]:.1f} s", flush=True
                        )
                await asyncio.sleep(0.5)

    await asyncio.gather(editor(), watcher())
    if len(latencies) < edits:
        raise SystemExit(f"{tag}: {edits - len(latencies)} edits never became searchable")
    return list(clock.values())


def run_mode(
    mode: str,
    edits: int,
    spacing: float,
) -> tuple[list[float], list[float], dict[str, list[float]]]:
    """(each edit's freshness, each webhook delivery's answer time) in seconds, and where the
    webhook edits' time went (freshness_split)."""
    tmp = Path(tempfile.mkdtemp(prefix=f"kp-fresh-{mode}-"))
    fake = ClickUpFake(personal_token=TOKEN).start()
    tasks = populate(fake)
    dagster_port, mcp_port = free_port(), free_port()
    config = tmp / "registry.yaml"
    config.write_text(yaml.safe_dump(registry(fake, mcp_port, mode), sort_keys=False))
    home = tmp / "home"
    env = {
        **os.environ,
        "KP_HOME": str(home),
        "KP_CONFIG": str(config),
        "KP_MCP_PORT": str(mcp_port),
        "KP_MODEL_CACHE": str(model_cache()),
        "CLICKUP_TOKEN": TOKEN,
    }
    if mode == "webhook":
        os.environ["CLICKUP_TOKEN"] = TOKEN
        (outcome,) = register(load_registry(config), home)
        env[SECRET_ENV] = outcome.secret_value or ""
        print(f"{mode}: {outcome.message}", flush=True)
    log = tmp / "kp-up.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kp", "up", "--dagster-port", str(dagster_port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 300
        while not (home / "admin-token").exists() or not listening(mcp_port):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"kp up did not start:\n{log.read_text()[-3000:]}")
            time.sleep(1)
        token = (home / "admin-token").read_text().strip()
        url = f"http://127.0.0.1:{mcp_port}/mcp"
        first = asyncio.run(wait_until_found(url, token, "baseline0marker", 900))
        print(f"{mode}: first index searchable {first:.0f} s after start; editing", flush=True)
        timeout = 120 if mode == "webhook" else POLL_MINUTES * 60 + 300
        clock = asyncio.run(measure(url, token, fake, tasks, edits, spacing, timeout, mode))
        fake.wait_deliveries()
        answers = [a.elapsed for a in fake.deliverer.attempts if a.status == 200]
    finally:
        stop_group(proc, timeout=60)
        fake.stop()
    save(home, clock)
    phases = split(home / "dagster", clock) if mode == "webhook" else {}
    return [e.found - e.at for e in clock], answers, phases


def main() -> None:
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # the fake's request lines
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--edits", type=int, default=20, choices=range(1, len(WORDS) + 1), metavar="N"
    )
    parser.add_argument("--mode", choices=["both", "webhook", "polling"], default="both")
    parser.add_argument(
        "--spacing",
        type=float,
        default=None,
        help="seconds between edits (default: 10 webhook, 15 polling)",
    )
    args = parser.parse_args()
    modes = ["polling", "webhook"] if args.mode == "both" else [args.mode]
    rows, figures, phases = [], {}, {}
    for mode in modes:
        spacing = args.spacing or (10.0 if mode == "webhook" else 15.0)
        values, answers, cut = run_mode(mode, args.edits, spacing)
        phases = cut or phases
        p50, p95 = (float(np.percentile(values, q)) for q in (50, 95))
        figures[mode] = (p50, p95)
        answered = (
            (f"{1000 * np.percentile(answers, 50):.0f} / {1000 * np.percentile(answers, 95):.0f}")
            if answers
            else "-"
        )
        rows.append(
            [
                mode,
                str(len(values)),
                f"{spacing:g}",
                f"{p50:.1f}",
                f"{p95:.1f}",
                f"{max(values):.1f}",
                answered,
            ]
        )
    table = markdown_table(
        [
            "mode",
            "edits",
            "spacing s",
            "p50 s",
            "p95 s",
            "max s",
            "/hooks/clickup answer p50 / p95 ms",
        ],
        rows,
    )
    if phases:
        table += "\n\nWebhook edits, where the time went (bench/freshness_split.py):\n\n"
        table += markdown_table(["phase", "edits", "p50 s", "p95 s"], table_rows(phases))
    body = (
        f"{table}\n\n`.venv/bin/python bench/freshness.py --edits {args.edits} --mode "
        f"{args.mode}`; `kp up` (dagster dev + MCP), local model, ClickUp fake; hooks_sensor "
        f"every 5 s (hot path on), polling every {POLL_MINUTES} min; {load_average()}.\n"
    )
    path = write_results("freshness", "Freshness: ClickUp edit -> searchable over MCP", body)
    print(table)
    print(f"written to {path.relative_to(ROOT)}")
    for mode in sorted(modes, key=lambda m: m == "webhook"):
        p50, p95 = figures[mode]
        print(f"freshness_p50_s={p50:.1f} mode={mode}")
        print(f"freshness_p95_s={p95:.1f} mode={mode}")


if __name__ == "__main__":
    main()
