"""One writer of a source x scope's snapshots at a time: every step (steps.py) holds the
partition's lock while it reads its input snapshot and writes its output, and the hooks
sensor's hot path (hot_delta.py) holds it over all four steps at once. So a run's step runs
wholly before or wholly after a hot delta, and reads the newest snapshots either way: neither
overwrites the other's pull. A flock, so it dies with its process; re-entrant within a thread
(the hot path calls the steps while it holds it)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

from knowledge_platform.errors import KnowledgePlatformError, StoreError
from knowledge_platform.store.shard_dirs import exclusive_lock

#: How long a step waits for the lock before it fails: a hot delta holds it for seconds, but
#: another run's step of the same source x scope (a long full pull) may hold it for minutes.
STEP_TIMEOUT = 3600.0

_held = threading.local()


class PartitionBusy(KnowledgePlatformError):
    """Another process is writing this source x scope's snapshots."""


def _counts() -> dict[Path, int]:
    if not hasattr(_held, "counts"):
        _held.counts = {}
    return _held.counts


@contextlib.contextmanager
def partition_lock(directory: Path, timeout: float = STEP_TIMEOUT) -> Iterator[None]:
    """Hold the lock of the partition whose snapshots are in `directory`; PartitionBusy when
    another holder keeps it past `timeout` (0: do not wait)."""
    path = directory / ".lock"
    counts = _counts()
    if counts.get(path):
        counts[path] += 1
        try:
            yield
        finally:
            counts[path] -= 1
        return
    directory.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(exclusive_lock(path, timeout, what="snapshots of"))
        except StoreError as exc:
            raise PartitionBusy(str(exc)) from None
        counts[path] = 1
        try:
            yield
        finally:
            counts.pop(path, None)
