"""Per-source rate limit of webhook deliveries (the `limits` library's moving window, in the
process's memory: each MCP worker process counts its own)."""

from __future__ import annotations

import math
import time

from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter


class SourceLimits:
    def __init__(self) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._items: dict[str, RateLimitItem] = {}

    def retry_after(self, source: str, spec: str) -> int | None:
        """Count one delivery for `source`: None when allowed, else whole seconds to wait."""
        item = self._items.get(spec) or self._items.setdefault(spec, parse(spec))
        if self._limiter.hit(item, "hooks", source):
            return None
        reset = self._limiter.get_window_stats(item, "hooks", source).reset_time
        return max(1, math.ceil(reset - time.time()))
