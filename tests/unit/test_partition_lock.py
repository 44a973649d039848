"""The partition lock a run's steps and the hooks sensor's hot path share: one holder at a
time across threads and processes, re-entrant within the holder's thread."""

from __future__ import annotations

import threading

import pytest

from knowledge_platform.partition_lock import PartitionBusy, partition_lock


def test_a_second_writer_is_refused_while_one_holds_the_partition(tmp_path) -> None:
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with partition_lock(tmp_path / "clickup" / "internal"):
            held.set()
            release.wait()

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait()
    try:
        with (
            pytest.raises(PartitionBusy, match="snapshots of internal is locked"),
            partition_lock(tmp_path / "clickup" / "internal", timeout=0),
        ):
            pass
        with partition_lock(tmp_path / "clickup" / "acme", timeout=0):
            pass  # another scope is another lock
    finally:
        release.set()
        thread.join()
    with (
        partition_lock(tmp_path / "clickup" / "internal", timeout=0),
        partition_lock(tmp_path / "clickup" / "internal", timeout=0),  # the same thread again
    ):
        pass
