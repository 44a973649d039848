"""What following the registry file costs the MCP service.

- one check of an unchanged file (`RegistryWatch.current()`: one `os.stat`), and the
  authenticator's check on top of it (`LiveAuthenticator.authenticate` minus
  `Authenticator.authenticate`);
- how many checks one `knowledge_search` makes over HTTP as `kp mcp` serves it (the
  service's HTTP app in a thread, the demo registry's shape with the hash embedder);
- so the registry's share of a search's CPU, against the 3.74 ms/request measured by
  bench/mcp_throughput.py;
- a reload after an edit: re-reading and validating the demo registry and rebuilding the
  authenticator.

    .venv/bin/python bench/registry_reload.py [--repeat 200000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import tempfile
import threading
import time
import timeit
from pathlib import Path

import uvicorn
import yaml
from _common import ROOT, load_average, markdown_table, write_results
from fastmcp import Client

from knowledge_platform.config import registry_watch
from knowledge_platform.config.registry import load_registry
from knowledge_platform.config.registry_watch import RegistryWatch
from knowledge_platform.serve.access import Authenticator, LiveAuthenticator, ensure_admin_token
from knowledge_platform.settings import DEMO_CONFIG, Settings
from mcp_service.app import http_app
from tests.procs import free_port, listening

SEARCH_CPU_MS = 3.74  # bench/results/mcp_throughput-2026-12-01.md, repeating queries


def best_us(fn, repeat: int) -> float:
    """Microseconds per call: the best of 5 rounds of `repeat` calls."""
    return min(timeit.repeat(fn, number=repeat, repeat=5)) / repeat * 1e6


def demo_copy(root: Path) -> Path:
    """The demo registry with absolute paths and the hash embedder (no model to load)."""
    data = yaml.safe_load(DEMO_CONFIG.read_text())
    data["embedding"] = {"provider": "hash"}
    for scope in [data["internal"], *data["clients"].values()]:
        for settings in scope["sources"].values():
            for key in ("path", "repo"):
                if key in settings:
                    settings[key] = str((DEMO_CONFIG.parent / settings[key]).resolve())
    config = root / "registry.yaml"
    config.write_text(yaml.safe_dump(data))
    return config


def checks_per_search(config: Path, home: Path) -> int:
    """`RegistryWatch.current()` calls during one knowledge_search over HTTP."""
    os.environ.update(
        {
            "KP_HOME": str(home),
            "KP_CONFIG": str(config),
            "KP_DAGSTER_URL": f"http://127.0.0.1:{free_port()}",
        }
    )
    settings = Settings()
    token, _, _ = ensure_admin_token(settings)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(http_app(settings), port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not listening(port):
        time.sleep(0.05)
    calls = [0]
    stat = registry_watch.signature

    def counted(path: Path) -> registry_watch.Signature:
        calls[0] += 1
        return stat(path)

    async def search() -> int:
        async with Client(f"http://127.0.0.1:{port}/mcp", auth=token) as client:
            await client.call_tool("knowledge_search", {"query": "weekly reindex"})
            registry_watch.signature = counted
            await client.call_tool("knowledge_search", {"query": "weekly reindex"})
            registry_watch.signature = stat
        return calls[0]

    try:
        return asyncio.run(search())
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200_000)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="kp-reload-"))
    try:
        config = demo_copy(root)
        watch = RegistryWatch(config)
        live = LiveAuthenticator(watch.current, admin_token="admin-token", env={})
        fixed = Authenticator(watch.current(), admin_token="admin-token", env={})
        check_us = best_us(watch.current, args.repeat)
        fixed_us = best_us(lambda: fixed.authenticate("admin-token"), args.repeat // 10)
        live_us = best_us(lambda: live.authenticate("admin-token"), args.repeat // 10)
        reload_ms = best_us(lambda: Authenticator(load_registry(config), env={}), 20) / 1000
        checks = checks_per_search(config, root / "home")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    per_search_us = checks * check_us
    share = per_search_us / (SEARCH_CPU_MS * 1000) * 100
    rows = [
        ["one check of an unchanged registry (os.stat)", f"{check_us:.2f} µs"],
        ["authenticate a token: fixed / following the file", f"{fixed_us:.2f} / {live_us:.2f} µs"],
        ["checks per knowledge_search over HTTP", str(checks)],
        [
            "registry checks per search / share of a search's CPU",
            f"{per_search_us:.1f} µs / {share:.2f}%",
        ],
        ["reload after an edit (read + validate + authenticator)", f"{reload_ms:.2f} ms"],
    ]
    body = markdown_table(["what", "cost"], rows) + (
        f"\n\n- {load_average()}; the demo registry (2 clients, 2 principals, 3 sources).\n"
        f"- Search CPU {SEARCH_CPU_MS} ms/request from bench/results/"
        "mcp_throughput-2026-12-01.md.\n\nCommand: `.venv/bin/python bench/registry_reload.py`\n"
    )
    path = write_results("registry_reload", "Following the registry file: cost per request", body)
    print(body)
    print(f"written to {path.relative_to(ROOT)}")
    print(
        f"check_us={check_us:.2f} checks_per_search={checks} share_pct={share:.2f} "
        f"reload_ms={reload_ms:.2f}"
    )


if __name__ == "__main__":
    main()
