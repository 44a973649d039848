"""The MCP service's HTTP app as `kp mcp` serves it (webhook endpoints included), over real
HTTP in a thread, with a registry whose `service.public_url` is its own address."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from knowledge_platform.hooks.queue import HookQueue, open_queue
from knowledge_platform.settings import Settings
from mcp_service.app import http_app
from tests.conftest import write_registry
from tests.procs import free_port, listening


@dataclass
class HookService:
    url: str
    settings: Settings

    @property
    def queue(self) -> HookQueue:
        return open_queue(self.settings.home_dir)

    def post(
        self,
        path: str,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        return httpx.post(self.url + path, content=body, headers=headers or {}, timeout=10)


def clickup_registry(fake: Any) -> dict[str, Any]:
    """The shared ClickUp workspace's list L1 as the internal scope, webhooks on."""
    data = base_registry()
    data["internal"]["sources"]["clickup"] = {
        "base_url": fake.url("/api/v2"),
        "docs_base_url": fake.url("/api/v3"),
        "team_id": "9001",
        "list_ids": ["L1"],
        "attachments": False,
        "webhook_secret_env": "KP_TEST_CLICKUP_HOOK",
    }
    return data


def base_registry() -> dict[str, Any]:
    return {
        "embedding": {"provider": "hash"},
        "store": {"engine": "edge"},
        "service": {"hooks": {"rate_limit": "1000/minute"}},
        "internal": {"sources": {}},
        "clients": {},
    }


@contextmanager
def hook_service(
    tmp_path: Path, registry: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> Iterator[HookService]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    registry.setdefault("service", {})["public_url"] = url
    config = write_registry(tmp_path / "registry.yaml", registry)
    monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("KP_CONFIG", str(config))
    settings = Settings()
    server = uvicorn.Server(
        uvicorn.Config(http_app(settings), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not listening(port):
        if time.monotonic() > deadline:
            raise AssertionError("the MCP HTTP app did not start")
        time.sleep(0.05)
    try:
        yield HookService(url, settings)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
