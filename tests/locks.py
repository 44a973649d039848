"""A partition lock held by another thread while a test acts (the lock is re-entrant within
one thread, so the test's own thread would simply enter it)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from knowledge_platform.ingest.partition_lock import partition_lock


@contextmanager
def held_elsewhere(directory: Path) -> Iterator[None]:
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with partition_lock(directory):
            held.set()
            release.wait()

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait()
    try:
        yield
    finally:
        release.set()
        thread.join()
