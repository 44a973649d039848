"""The webhook queue under kill -9: every push event the service accepted (200, or 409 for a
retry of one whose answer was lost) is processed exactly once — by one successful run.

- The service (`kp mcp`, a real process) is killed -9 while a git host delivers, and
  restarted; the sender retries what got no answer, as a git host's redelivery does.
- The daemon's tick (the real `hooks_sensor` on the embedded instance) dies at each point a
  kill can land: after evaluating, before its runs exist (the next tick asks again); and after
  its runs were created and ran, before the cursor was saved (the next tick must not ask for
  the same events again: before the fix it asked for them once more, in a wider run)."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from dagster import DagsterInstance, DagsterRunStatus, build_sensor_context, materialize

from assets.checks import build_collection_checks
from assets.definitions import build_definitions
from assets.factory import build_source_assets
from assets.hooks import RUN_KEY_TAG
from assets.partitions import ensure_scopes
from knowledge_platform.hooks.coalesce import last_covered
from knowledge_platform.hooks.queue import open_queue
from knowledge_platform.settings import Settings
from kp.indexing import ensure_dagster_home
from resources.platform import platform_resources
from tests.conftest import write_registry
from tests.crash import wait_for
from tests.integration.test_git_docs import commit, git
from tests.procs import free_port, listening

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]
SECRET = "git-push-secret-crash-7e1f"
SENT = 24


class GitHost:
    """Delivers push events one after another, each until it is answered (200, or 409: a
    retry of a delivery whose answer was lost), as a git host's redelivery does."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.accepted: list[str] = []

    def deliver(self, count: int) -> threading.Thread:
        thread = threading.Thread(target=self._deliver, args=(count,), daemon=True)
        thread.start()
        return thread

    def _deliver(self, count: int) -> None:
        body = json.dumps(
            {
                "ref": "refs/heads/main",
                "before": "a" * 40,
                "after": "b" * 40,
                "repository": {"default_branch": "main"},
            }
        ).encode()
        sig = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
        with httpx.Client(timeout=5) as client:
            for _ in range(count):
                delivery = str(uuid.uuid4())
                headers = {
                    "X-GitHub-Event": "push",
                    "X-GitHub-Delivery": delivery,
                    "X-Hub-Signature-256": f"sha256={sig}",
                    "Content-Type": "application/json",
                }
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline:
                    try:
                        status = client.post(self.url, content=body, headers=headers).status_code
                    except httpx.HTTPError:
                        status = None
                    if status in (200, 409):
                        self.accepted.append(f"git:github:{delivery}@internal")
                        break
                    time.sleep(0.05)


def _settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, port: int) -> Settings:
    repo = tmp_path / "handbook"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {"runbooks/deploy.md": "# Deploying\n\nRun the pipeline from main.\n"}, day=1)
    registry = {
        "embedding": {"provider": "hash"},
        "store": {"engine": "edge"},
        "service": {
            "public_url": f"http://127.0.0.1:{port}",
            "hooks": {"rate_limit": "1000/minute"},
        },
        "internal": {
            "sources": {"git_docs": {"repo": str(repo), "webhook_secret_env": "KP_TEST_GIT_HOOK"}}
        },
    }
    monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("KP_CONFIG", str(write_registry(tmp_path / "registry.yaml", registry)))
    monkeypatch.setenv("KP_TEST_GIT_HOOK", SECRET)
    return Settings()


class Service:
    """`kp mcp` as a real process, killed -9 and started again at will."""

    def __init__(self, settings: Settings, port: int) -> None:
        self.port = port
        self.env = {
            **os.environ,
            "KP_HOME": str(settings.home_dir),
            "KP_CONFIG": str(settings.config),
        }
        self.proc = self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kp", "mcp", "--port", str(self.port)],
            cwd=REPO,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        wait_for(lambda: listening(self.port) or proc.poll() is not None, 120, "kp mcp")
        assert proc.poll() is None, "kp mcp exited"
        return proc

    def kill_and_restart(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.proc = self._start()

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def _deliver_killing_once(host: GitHost, service: Service, count: int) -> None:
    """`count` more pushes, the service killed -9 half way through them."""
    before = len(host.accepted)
    sender = host.deliver(count)
    wait_for(lambda: len(host.accepted) >= before + count // 2, 120, "half accepted")
    service.kill_and_restart()
    sender.join(timeout=300)
    assert len(host.accepted) == before + count


class Daemon:
    """`hooks_sensor` ticks as the daemon makes them, and their runs, on one instance."""

    def __init__(self, settings: Settings) -> None:
        ensure_dagster_home(settings)
        self.instance = DagsterInstance.from_config(str(settings.dagster_home))
        ensure_scopes(self.instance, "git_docs", ["internal"])
        self.defs = build_definitions(settings)
        self.settings = settings
        self.cursor: str | None = None

    def tick(self) -> tuple[list[Any], str | None]:
        ctx = build_sensor_context(
            instance_ref=self.instance.get_ref(),
            cursor=self.cursor,
            resources=self.defs.resources,
            repository_def=self.defs.get_repository_def(),
        )
        with ctx:
            result = self.defs.resolve_sensor_def("hooks_sensor").evaluate_tick(ctx)
        return list(result.run_requests or []), result.cursor

    def run(self, request: Any) -> None:
        """Create and execute the run, as the daemon and the run worker do."""
        result = materialize(
            [*build_source_assets("git_docs"), *build_collection_checks("git_docs")],
            partition_key=request.partition_key,
            instance=self.instance,
            resources=platform_resources(self.settings),
            tags={**request.tags, RUN_KEY_TAG: request.run_key},
            raise_on_error=False,
        )
        assert result.success

    def processed(self) -> dict[int, int]:
        """queue id -> successful runs covering it."""
        counts: dict[int, int] = {}
        for run in self.instance.get_runs():
            key = run.tags.get(RUN_KEY_TAG, "")
            if run.status != DagsterRunStatus.SUCCESS or not key.startswith("hooks:"):
                continue
            first = int(key.rsplit(":", 1)[1].split("-")[0])
            for queue_id in range(first, last_covered(key) + 1):
                counts[queue_id] = counts.get(queue_id, 0) + 1
        return counts


@pytest.mark.slow
def test_accepted_push_events_are_processed_exactly_once_across_kills(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()
    settings = _settings(tmp_path, monkeypatch, port)
    service = Service(settings, port)
    host = GitHost(f"http://127.0.0.1:{port}/hooks/git")
    daemon = Daemon(settings)
    try:
        _deliver_killing_once(host, service, SENT // 2)
        daemon.tick()  # the daemon died after evaluating, before its runs existed
        # The next tick's runs were created and ran, then it died before saving the cursor.
        requests, _ = daemon.tick()
        for request in requests:
            daemon.run(request)
        sender = host.deliver(SENT // 2)
        sender.join(timeout=300)
    finally:
        service.stop()
    # The restarted daemon ticks from the cursor it last saved (none).
    requests, daemon.cursor = daemon.tick()
    for request in requests:
        daemon.run(request)
    assert daemon.tick()[0] == []  # nothing left

    rows = open_queue(settings.home_dir).pending(0, settled_before=time.time() + 60)
    assert sorted(r.event_id for r in rows) == sorted(host.accepted)  # queued once each
    processed = daemon.processed()
    lost = [r.id for r in rows if r.id not in processed]
    twice = [r.id for r in rows if processed.get(r.id, 0) > 1]
    assert (lost, twice) == ([], []), f"lost {lost}, processed twice {twice}"
