"""Faults during a run, and what must survive them: a source failing mid-pull, a source
answering with an empty or truncated listing, the run process killed while it writes the
collection, the embedding provider failing, the MCP service restarting while Dagster is
down. Each test asserts that nothing was lost: the published point set, the last good raw
snapshot and cursor, and searches keep answering from the last published version."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from werkzeug.wrappers import Request, Response

from knowledge_platform.ingest.pipeline import chunk_documents, embed_chunks, reconcile
from knowledge_platform.ingest.runtime import IngestRuntime
from knowledge_platform.models import Document
from knowledge_platform.serve.access import read_admin_token
from knowledge_platform.settings import Settings
from knowledge_platform.store import shard_dirs
from mcp_service.server import build_server
from tests.assets.conftest import Materializer
from tests.conftest import write_registry
from tests.fakes.http_fake import LoggedRequest
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.supabase_server import SupabaseFake
from tests.mcp.fixtures import build_corpus, corpus, make_runtime, make_settings, registry_data
from tests.procs import free_ports, listening, served_in_thread

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
SCOPE = "acme"
KEY = "service-role-key"


# -- helpers ------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    """What a failed run must leave exactly as it was."""

    points: dict[str, str]
    count: int
    version: str | None
    documents: list[Document] | None
    cursor: dict[str, Any] | None


def state(settings: Settings, source: str, scope: str) -> State:
    runtime = IngestRuntime(settings)
    try:
        info = runtime.store.info(scope)
        return State(
            points=runtime.store.point_hashes(scope, source),
            count=runtime.store.count(scope),
            version=info.version if info else None,
            documents=runtime.snapshots.read_documents(source, scope),
            cursor=runtime.snapshots.read_cursor(source, scope),
        )
    finally:
        runtime.close()


def failure_text(result: Any) -> str:
    """The first failed step's message, as the Dagster UI shows it."""
    for event in result.all_events:
        if event.is_step_failure:
            data = event.step_failure_data
            if data.user_failure_data is not None and data.user_failure_data.description:
                return data.user_failure_data.description
            if data.error is not None:
                return (data.error.cause or data.error).message.strip()
    raise AssertionError("no step failed")


def env_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, registry: dict[str, Any]) -> Settings:
    monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("KP_CONFIG", str(write_registry(tmp_path / "registry.yaml", registry)))
    return Settings()


class FaultySupabase(SupabaseFake):
    """After `good` more row requests are served, every further one gets `fault`:
    "503", "timeout" (answers after `delay`), "reset" (TCP RST), "malformed" (cut-off JSON)
    or "empty" (an empty page, as if the table ended there)."""

    def __init__(self) -> None:
        super().__init__(key=KEY)
        self.fault: str | None = None
        self.good = 0
        self.delay = 2.0
        self.answers: list[str] = []  # per row request, as it arrives: "ok" or the fault

    def break_after(self, good: int, fault: str | None) -> None:
        with self._lock:
            self.good, self.fault = good, fault

    def _respond(self, request: Request) -> Response:
        with self._lock:
            fault = self.fault if "/rest/v1/" in request.path else None
            if fault and self.good > 0:
                self.good -= 1
                fault = None
            if "/rest/v1/" in request.path:
                self.answers.append(fault or "ok")
        if fault == "503":
            return Response(
                '{"message": "upstream connect error"}', 503, content_type="application/json"
            )
        if fault == "timeout":
            time.sleep(self.delay)
        if fault == "reset":
            sock = request.environ["werkzeug.socket"]
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock._real_close()  # now, despite werkzeug's file objects: linger 0 sends an RST
            return Response("", 200)  # never reaches the client
        if fault == "malformed":
            return Response('[{"id": 4, "title": "Tru', 200, content_type="application/json")
        if fault == "empty":
            return Response("[]", 200, {"Content-Range": "*/*"}, content_type="application/json")
        return super()._respond(request)


@pytest.fixture
def supabase(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[FaultySupabase, Settings]]:
    """Ten rows in `memory`, three to a page, indexed once for the `acme` client."""
    monkeypatch.setenv("SUPABASE_SERVICE_KEY", KEY)
    with FaultySupabase() as fake:
        fake.create_table("memory")
        topics = [
            "kickoff call",
            "pricing change",
            "hiring freeze",
            "swatch test",
            "cart audit",
            "email flows",
            "brand refresh",
            "search tuning",
            "loyalty tiers",
            "returns",
        ]
        fake.insert(
            "memory",
            *(
                {"id": i + 1, "title": t.title(), "body": f"Notes on the {t}.", "client_id": SCOPE}
                for i, t in enumerate(topics)
            ),
        )
        table = {
            "name": "memory",
            "kind": "memory",
            "title_template": "{title}",
            "text_template": "{title}\n\n{body}",
            "filter": {"client_id": "eq.{scope}"},
        }
        cfg = {
            "url": fake.url(),
            "tables": [table],
            "page_size": 3,
            "max_retries": 1,
            "timeout_seconds": 0.5,
        }
        settings = env_for(
            tmp_path,
            monkeypatch,
            {
                "embedding": {"provider": "hash"},
                "store": {"engine": "edge"},
                "clients": {
                    SCOPE: {"name": "Acme", "director": "maya", "sources": {"supabase": cfg}}
                },
            },
        )
        yield fake, settings


# -- a source failing mid-pull --------------------------------------------------------------

#: (fault, message, attempts): `max_retries: 1` retries a 5xx, a timeout or a reset once; a
#: 200 with a broken body is not retried.
FAULTS = [
    ("503", "supabase: GET /rest/v1/memory failed with HTTP 503 after 2 attempts", 2),
    ("timeout", "supabase: GET /rest/v1/memory failed after 2 attempts: ReadTimeout", 2),
    ("reset", "supabase: GET /rest/v1/memory failed after 2 attempts: ReadError: [Errno 104]", 2),
    ("malformed", "supabase: GET /rest/v1/memory returned malformed JSON (HTTP 200)", 1),
]


def test_a_source_failing_mid_pull_changes_nothing(supabase) -> None:
    fake, settings = supabase
    run = Materializer(settings)
    assert run("supabase", SCOPE).success
    before = state(settings, "supabase", SCOPE)
    assert before.count == 10 and before.documents and len(before.documents) == 10

    fake.update("memory", 2, body="Raised retainer prices by five percent.")
    fake.delete("memory", 3)
    for fault, message, attempts in FAULTS:
        fake.break_after(good=1, fault=fault)  # the first page arrives, then the fault
        fake.answers.clear()
        result = run("supabase", SCOPE, tags={"kp/full_pull": "true"}, raise_on_error=False)
        assert not result.success, fault
        text = failure_text(result)
        assert text.startswith(message), (fault, text)
        assert "\n" not in text and "Traceback" not in text
        assert fake.answers == ["ok"] + [fault] * attempts, fault  # it failed mid-pull
        assert state(settings, "supabase", SCOPE) == before, fault

    fake.break_after(0, None)
    assert run("supabase", SCOPE).success  # the outage over, the next run converges
    after = state(settings, "supabase", SCOPE)
    assert after.count == 9 and after.version != before.version


# -- empty or truncated listings ------------------------------------------------------------


def index_with_the_first_page_newest(fake: FaultySupabase, run: Materializer) -> None:
    """Index the ten rows after rows 1-3 were edited an hour after the rest, so the cursor's
    high-water mark is an hour past rows 4-10 (the first page, in updated_at order)."""
    fake.tick(3600)
    for row in (1, 2, 3):
        fake.update("memory", row, body=f"Edited notes, row {row}.")
    assert run("supabase", SCOPE).success


def test_an_empty_or_truncated_listing_is_held_and_the_rest_applies(supabase) -> None:
    """Deletions inferred from a short listing are held by the guard — the documents and
    their points stay — while the run goes on and the deletion check fails saying why."""
    fake, settings = supabase
    run = Materializer(settings)
    index_with_the_first_page_newest(fake, run)
    before = state(settings, "supabase", SCOPE)

    cases = [
        (0, "10 deletions held: the pull would remove all 10 documents (a source outage?)"),
        (1, "7 deletions held: the pull would delete 7 of 10 documents (70%), over the 30% guard"),
    ]
    for good_pages, message in cases:
        fake.break_after(good_pages, "empty")
        result = run("supabase", SCOPE, tags={"kp/full_pull": "true"}, raise_on_error=False)
        assert result.success, failure_text(result)
        guard = next(
            c
            for c in result.get_asset_check_evaluations()
            if c.check_name == "supabase_deletions_within_guard"
        )
        assert guard.passed is False and message in (guard.description or "")
        now = state(settings, "supabase", SCOPE)
        assert (now.points, now.count) == (before.points, before.count)
        assert {d.source_id for d in now.documents or []} == {
            d.source_id for d in before.documents or []
        }

    fake.break_after(0, None)
    result = run("supabase", SCOPE, tags={"kp/full_pull": "true"})  # the weekly full sweep
    assert {c.check_name: c.passed for c in result.get_asset_check_evaluations()} == {
        f"supabase_{name}": True
        for name in (
            "collection_matches_chunks",
            "deletions_within_guard",
            "pull_complete",
            "single_embedding_model",
            "golden_questions",
        )
    }
    after = state(settings, "supabase", SCOPE)
    assert (after.points, after.count) == (before.points, before.count)
    assert len(after.documents or []) == 10


def test_after_a_truncated_listing_the_next_incremental_run_recovers(supabase) -> None:
    """The held documents stay in the snapshot, so the next ordinary run patches it and the
    deletion check passes again."""
    fake, settings = supabase
    run = Materializer(settings)
    index_with_the_first_page_newest(fake, run)
    fake.break_after(1, "empty")
    held = run("supabase", SCOPE, tags={"kp/full_pull": "true"}, raise_on_error=False)
    assert held.success and Materializer.metadata(held, "raw")["deletions_held"] == 7
    fake.break_after(0, None)
    result = run("supabase", SCOPE, raise_on_error=False)  # the ordinary scheduled run
    assert result.success, failure_text(result)
    checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
    assert checks["supabase_deletions_within_guard"] is True
    assert state(settings, "supabase", SCOPE).count == 10


# -- the run process killed while writing ---------------------------------------------------

N_FILES = 2500


def write_workspace(root: Path, edition: str) -> None:
    for i in range(N_FILES):
        (root / f"note-{i:04d}.md").write_text(
            f"# Note {i}\n\nEdition {edition}: the heron ledger entry {i} for the weekly "
            f"review, kept by team {i % 17}.\n"
        )


def reader_loop(settings: Settings, stop: threading.Event, seen: dict[str, Any]) -> None:
    """Search and count the scope until told to stop; record what was answered."""
    runtime = IngestRuntime(settings)
    try:
        while not stop.is_set():
            try:
                hits = runtime.retriever.search("internal", "heron ledger weekly review", limit=5)
                seen["counts"].add(runtime.store.count("internal"))
                seen["editions"].update(h.chunk.text.split(":")[0] for h in hits)
                seen["searches"] += 1
            except Exception as exc:  # recorded, asserted on below
                seen["errors"].append(repr(exc))
            time.sleep(0.005)
    finally:
        runtime.close()


def test_killed_while_writing_the_collection_readers_keep_answering_and_next_run_converges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    write_workspace(ws, "one")
    settings = env_for(
        tmp_path,
        monkeypatch,
        {
            "embedding": {"provider": "hash"},
            "store": {"engine": "edge"},
            "internal": {"sources": {"memory_files": {"path": str(ws)}}},
        },
    )
    run = Materializer(settings)
    assert run("memory_files").success
    cdir = settings.shards_dir / "internal"
    published = shard_dirs.read_pointer(cdir)
    assert published is not None

    write_workspace(ws, "two")  # every point changes: the writer has a lot to upsert
    seen: dict[str, Any] = {"counts": set(), "editions": set(), "searches": 0, "errors": []}
    stop = threading.Event()
    reader = threading.Thread(target=reader_loop, args=(settings, stop, seen), daemon=True)
    reader.start()
    log = tmp_path / "kp-index.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kp",
                "index",
                "--source",
                "memory_files",
                "--scope",
                "internal",
            ],
            cwd=REPO,
            env=dict(os.environ),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 300
        build = None
        while build is None:
            assert proc.poll() is None, f"kp index ended first:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, "the writer never started a build"
            build = next((p for p in cdir.glob(".build-v*") if any(p.iterdir())), None)
            time.sleep(0.01)
        time.sleep(0.05)  # into the copy/upsert, well before the publish
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    time.sleep(0.5)  # the reader keeps going after the crash
    stop.set()
    reader.join(timeout=60)

    assert shard_dirs.read_pointer(cdir) == published, "the killed writer published"
    assert build.exists(), "the abandoned build is left for the next writer to clean"
    assert seen["errors"] == [] and seen["searches"] > 0
    assert seen["counts"] == {N_FILES} and seen["editions"] == {"Edition one"}

    result = run("memory_files")  # the next run converges
    checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
    assert checks["memory_files_collection_matches_chunks"], checks
    assert not build.exists()
    runtime = IngestRuntime(settings)
    try:
        chunks = runtime.snapshots.read_chunks("memory_files", "internal") or []
        assert set(runtime.store.point_hashes("internal", "memory_files")) == {c.id for c in chunks}
        assert runtime.store.count("internal") == N_FILES
        hits = runtime.retriever.search("internal", "heron ledger weekly review", limit=5)
    finally:
        runtime.close()
    assert {h.chunk.text.split(":")[0] for h in hits} == {"Edition two"}


# -- the embedding provider failing -----------------------------------------------------------


def settled(fake: FakeOpenAI, expected: int) -> list[LoggedRequest]:
    """Embedding requests logged (a timed-out one is logged when the fake finishes it)."""
    deadline = time.monotonic() + 5
    while len(fake.requests("/v1/embeddings", "POST")) < expected and time.monotonic() < deadline:
        time.sleep(0.05)
    return fake.requests("/v1/embeddings", "POST")


def test_embedding_provider_failures_retry_as_told_then_fail_without_deleting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workspace: Path
) -> None:
    """The openai SDK's retries, as configured in the registry (2 retries, 0.5 s timeout),
    seen from the fake: how many requests, and how long apart."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-fake")
    with FakeOpenAI("sk-test-fake") as fake:
        settings = env_for(
            tmp_path,
            monkeypatch,
            {
                "embedding": {
                    "provider": "openai",
                    "base_url": fake.base_url,
                    "max_retries": 2,
                    "timeout_seconds": 0.5,
                },
                "store": {"engine": "edge"},
                "internal": {"sources": {"memory_files": {"path": str(workspace)}}},
            },
        )
        run = Materializer(settings)
        assert run("memory_files").success
        before = state(settings, "memory_files", "internal")

        rules = workspace / "rules.md"
        rules.write_text(rules.read_text().replace("fourteen days", "twenty-one days"))
        (workspace / "memory" / "2026-11-20.md").unlink()  # a good run would delete points
        # (name, injection, message, requests, shortest gap between them: the wait asked for,
        # or the SDK's exponential backoff of 0.5 s, 1 s less up to 25% jitter)
        cases: list[tuple[str, Any, str, int, float]] = [
            (
                "429 with rate-limit headers",
                lambda: fake.rate_limit(
                    100,
                    {
                        "retry-after-ms": "250",
                        "x-ratelimit-remaining-requests": "0",
                        "x-ratelimit-reset-requests": "250ms",
                    },
                ),
                "OpenAI embeddings failed: HTTP 429 after 3 attempts: Rate limit reached",
                3,
                0.25,
            ),
            (
                "429 asking for an hour",
                lambda: fake.rate_limit(100, {"retry-after": "3600"}),
                "OpenAI embeddings failed: HTTP 429 after 1 attempt: Rate limit reached for "
                "requests. Please try again later. (the server asks to wait 3600 s)",
                1,
                0,
            ),
            (
                "500",
                lambda: fake.server_error(100, 500),
                "OpenAI embeddings failed: HTTP 500 after 3 attempts: The server had",
                3,
                0.375,
            ),
            (
                "timeout",
                lambda: fake.inject("/v1/embeddings", None, delay=1.5, times=100),
                "OpenAI embeddings failed: timed out after 3 attempts",
                3,
                0.5 + 0.375,
            ),
        ]
        for name, inject, message, requests, gap in cases:
            fake.clear_injections()
            fake.clear_log()
            inject()
            result = run("memory_files", raise_on_error=False)
            assert not result.success, name
            failed = [e.step_key for e in result.all_events if e.is_step_failure]
            assert failed == ["memory_files__embeddings"], name
            assert failure_text(result).startswith(message), (name, failure_text(result))
            logged = settled(fake, requests)
            assert len(logged) == requests, name
            assert [r.headers.get("X-Stainless-Retry-Count") for r in logged] == [
                str(n) for n in range(requests)
            ], name
            assert all(b.at - a.at >= gap for a, b in itertools.pairwise(logged)), name
            now = state(settings, "memory_files", "internal")
            assert (now.points, now.count, now.version) == (
                before.points,
                before.count,
                before.version,
            ), name

        fake.clear_injections()
        result = run("memory_files")
        assert result.success
        assert Materializer.metadata(result, "collection")["deleted"] > 0


# -- the MCP service restarting while Dagster is down -----------------------------------------


@contextlib.contextmanager
def mcp_process(root: Path, port: int, dagster_port: int) -> Iterator[subprocess.Popen[bytes]]:
    env = {
        **os.environ,
        "KP_HOME": str(root / "home"),
        "KP_CONFIG": str(root / "registry.yaml"),
        "KP_DAGSTER_URL": f"http://127.0.0.1:{dagster_port}",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_service", "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not listening(port):
            assert proc.poll() is None, "the MCP service exited"
            assert time.monotonic() < deadline, "the MCP service did not listen"
            time.sleep(0.2)
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)


async def search_and_status(url: str, token: str) -> tuple[list[str], dict[str, Any]]:
    async with Client(url, auth=token) as client:
        found = await client.call_tool(
            "knowledge_search", {"query": "weekly reindex Sunday", "limit": 3}
        )
        status = await client.call_tool("get_index_status", {})
    return (
        [h["title"] for h in (found.structured_content or {})["hits"]],
        status.structured_content or {},
    )


def publish_note(root: Path) -> None:
    """Another writer (a Dagster run) publishes a new version while the service is down."""
    runtime = make_runtime(root)
    try:
        docs = [
            *corpus()["internal/memory_files"],
            Document(
                source="memory_files",
                source_id="outage.md",
                scope="internal",
                title="Outage notes",
                kind="memory",
                text="# Outage notes\n\nThe weekly reindex on Sunday moved.",
            ),
        ]
        chunks = chunk_documents(docs, runtime.chunker)
        hashes, dense, sparse, _ = embed_chunks(
            chunks, runtime.embedder, runtime.cache, runtime.sparse
        )
        vectors = {h: (dense[i], sparse[i]) for i, h in enumerate(hashes)}
        reconcile(
            runtime.store,
            "internal",
            "memory_files",
            chunks,
            vectors,
            model_id=runtime.embedder.model_id,
            dim=runtime.embedder.dim,
        )
    finally:
        runtime.close()


def test_mcp_restart_with_dagster_down_keeps_search_and_reports_status_unavailable(
    tmp_path: Path,
) -> None:
    build_corpus(tmp_path)
    registry = registry_data()  # the corpus was indexed directly; give the sources settings
    for scope in (registry["internal"], *registry["clients"].values()):
        scope["sources"] = {
            name: {
                "memory_files": {"path": "ws"},
                "git_docs": {"repo": "repo"},
                "clickup": {"space_ids": ["s1"]},
            }[name]
            for name in scope["sources"]
        }
    write_registry(tmp_path / "registry.yaml", registry)
    settings = make_settings(tmp_path)
    token = read_admin_token(settings)
    assert token
    port, closed = free_ports(2)  # nothing listens on `closed`: Dagster is down
    url = f"http://127.0.0.1:{port}/mcp"
    readers = settings.shards_dir / "internal" / "readers"

    with mcp_process(tmp_path, port, closed) as first:
        titles, status = asyncio.run(search_and_status(url, token))
        assert titles[0] == "Knowledge platform operations"
        assert status["status"] == "unavailable"
        assert "not reachable" in status["health"] and status["warnings"]
        points = {(r["source"], r["scope"]): r["points"] for r in status["sources"]}
        assert points[("memory_files", "internal")] > 0  # counts still come from the store
        first.send_signal(signal.SIGKILL)  # a crash, not a clean stop
        first.wait(timeout=30)
    assert list(readers.glob("*.lock")), "the crashed service left its reader copy"

    publish_note(tmp_path)  # the writer's garbage collection takes the dead reader's copy
    assert not list(readers.glob("*.lock"))

    # Restarted (in this process, to spare a second interpreter start): a fresh Runtime
    # whose reader opens the version CURRENT names now.
    runtime = IngestRuntime(settings)
    try:
        with served_in_thread(build_server(runtime).http_app(), port):
            titles_after, status_after = asyncio.run(search_and_status(url, token))
    finally:
        runtime.close()
    # the version published while the service was down is what it serves now
    assert {"Knowledge platform operations", "Outage notes"} <= set(titles_after)
    assert status_after["status"] == "unavailable"
