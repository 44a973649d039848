"""Webhook endpoints on the MCP service's HTTP app, beside `/mcp` and without its bearer
token (each source signs its deliveries instead): `POST /hooks/clickup`,
`/hooks/google-drive`, `/hooks/git`.

A delivery is only verified and queued (knowledge_platform.hooks), never pulled inline, so it
is answered in milliseconds. Refusals answer a one-line reason: 429 (per-source rate limit,
with Retry-After) before anything is read, 413 for a body over 1 MB (from Content-Length, or
as soon as the bytes read pass it), then 401/409/400 from the checks; refused deliveries are
counted for `kp hooks status` and queue nothing."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from fastmcp.utilities.logging import get_logger
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from knowledge_platform.config.hook_settings import MAX_BODY_BYTES
from knowledge_platform.config.registry import Registry
from knowledge_platform.connectors.catalog import push_specs
from knowledge_platform.connectors.webhooks.events import Rejected
from knowledge_platform.hooks.limit import SourceLimits
from knowledge_platform.hooks.queue import HookQueue, open_queue
from knowledge_platform.hooks.receive import Receiver

log = get_logger("mcp_service.hooks")


def _answer(status: int, text: str, headers: dict[str, str] | None = None) -> Response:
    return PlainTextResponse(text.splitlines()[0] + "\n", status, headers=headers)


class HookEndpoints:
    def __init__(
        self,
        registry: Callable[[], Registry],
        queue: Callable[[], HookQueue],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.registry = registry
        self.queue = queue
        self.receiver = Receiver(registry, queue, clock)
        self.limits = SourceLimits()
        #: The endpoint's last path segment -> its source, from every source's PushSpec.
        self.paths = {source: push.path for source, push in push_specs().items()}
        self.sources = {path.rsplit("/", 1)[1]: source for source, path in self.paths.items()}

    def routes(self) -> list[Route]:
        return [Route("/hooks/{name}", self.handle, methods=["POST"])]

    async def handle(self, request: Request) -> Response:
        source = self.sources.get(request.path_params["name"])
        if source is None:
            return _answer(404, "no such webhook endpoint; use " + ", ".join(self.paths.values()))
        wait = self.limits.retry_after(source, self.registry().service.hooks.rate_limit)
        if wait is not None:
            return _answer(
                429,
                f"rate limited: too many {source} deliveries; retry in {wait} s",
                {"Retry-After": str(wait)},
            )
        try:
            body = await _read_capped(request)
            accepted = await run_in_threadpool(
                self.receiver.accept, source, dict(request.headers), body
            )
        except Rejected as exc:
            log.info("hooks: %s refused %d: %s", source, exc.status, exc.reason)
            await run_in_threadpool(self._record, source, exc)
            return _answer(exc.status, exc.reason)
        queued = len(accepted.events)
        scopes = ", ".join(sorted({e.scope for e in accepted.events})) or "none"
        log.info("hooks: %s accepted (%s): %d queued for %s", source, accepted.note, queued, scopes)
        return _answer(
            200,
            f"accepted: {queued} queued for {scopes}"
            + (f" ({accepted.note})" if accepted.note else ""),
        )

    def _record(self, source: str, exc: Rejected) -> None:
        try:
            self.queue().record_reject(source, exc)
        except Exception as err:  # counting must never turn a refusal into a 500
            log.warning("hooks: could not count a refusal: %s", type(err).__name__)


async def _read_capped(request: Request) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise Rejected(400, "malformed: Content-Length is not a number", code="malformed")
        if int(declared) > MAX_BODY_BYTES:
            raise Rejected(
                413,
                f"too large: {int(declared)} bytes, over the {MAX_BODY_BYTES} byte limit",
                code="too_large",
            )
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > MAX_BODY_BYTES:
            raise Rejected(
                413,
                f"too large: over the {MAX_BODY_BYTES} byte limit; not read further",
                code="too_large",
            )
    return bytes(body)


def hook_routes(home: Path, registry: Callable[[], Registry]) -> list[Route]:
    """The routes `kp mcp` adds to its HTTP app; the queue lives under KP_HOME (or in the
    Dagster instance's Postgres)."""
    return HookEndpoints(registry, lambda: open_queue(home)).routes()
