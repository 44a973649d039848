"""A webhook delivery -> events on the queue, or a one-line refusal (Rejected).

Each source's parser checks authenticity first (over the raw bytes, against the webhook
secrets the registry names for that source's scopes), then the body, then maps the event to
the scopes it concerns. `Receiver.accept` queues what was accepted, all or nothing (a replayed
event id: 409). Nothing here pulls from a source: a delivery is answered in milliseconds."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping

from knowledge_platform.config.registry import Registry
from knowledge_platform.connectors.base import SourceSettings
from knowledge_platform.connectors.catalog import push_source
from knowledge_platform.connectors.webhooks.events import Accepted
from knowledge_platform.errors import SecretError
from knowledge_platform.hooks.queue import HookQueue

log = logging.getLogger("knowledge_platform.hooks")


class Receiver:
    """`registry` is called per delivery, so a re-read registry (new secrets, scopes) takes
    effect at once; `queue` opens the durable queue on first use."""

    def __init__(
        self,
        registry: Callable[[], Registry],
        queue: Callable[[], HookQueue],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._registry = registry
        self._queue = queue
        self._clock = clock

    def registry(self) -> Registry:
        return self._registry()

    def now(self) -> float:
        return self._clock()

    def queue(self) -> HookQueue:
        return self._queue()

    def scopes(self, source: str) -> list[str]:
        return self.registry().scopes_for(source)

    def settings(self, source: str, scope: str) -> SourceSettings:
        return self.registry().source_settings(source, scope)

    def max_age_seconds(self) -> int:
        return self.registry().service.hooks.max_age_seconds

    def secrets(self, source: str) -> list[tuple[str, str]]:
        """(scope, webhook secret) of every scope reading `source` that names one. A secret
        that cannot be read (vault down) leaves its scope out, with a log line (no value)."""
        found: list[tuple[str, str]] = []
        for scope in self.scopes(source):
            settings = self.settings(source, scope)
            try:
                value = settings.resolve_optional_secret(
                    "webhook_secret", owner=f"{source}:{scope}", what="webhook secret"
                )
            except SecretError as exc:
                log.warning("hooks: %s", exc)
                continue
            if value:
                found.append((scope, value))
        return found

    def accept(self, source: str, headers: Mapping[str, str], body: bytes) -> Accepted:
        """Verify, parse and queue one delivery; raises Rejected (nothing queued)."""
        lowered = {k.lower(): v for k, v in headers.items()}
        accepted = push_source(source).parse(self, lowered, body)
        self.queue().put(accepted.events, self.now())
        return accepted
