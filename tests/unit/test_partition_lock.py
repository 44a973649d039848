"""The partition lock a run's steps and the hooks sensor's hot path share: one holder at a
time across threads and processes, re-entrant within the holder's thread."""

from __future__ import annotations

import pytest

from knowledge_platform.ingest.partition_lock import PartitionBusy, partition_lock
from tests.locks import held_elsewhere


def test_a_second_writer_is_refused_while_one_holds_the_partition(tmp_path) -> None:
    with held_elsewhere(tmp_path / "clickup" / "internal"):
        with (
            pytest.raises(PartitionBusy, match="snapshots of internal is locked"),
            partition_lock(tmp_path / "clickup" / "internal", timeout=0),
        ):
            pass
        with partition_lock(tmp_path / "clickup" / "acme", timeout=0):
            pass  # another scope is another lock
    with (
        partition_lock(tmp_path / "clickup" / "internal", timeout=0),
        partition_lock(tmp_path / "clickup" / "internal", timeout=0),  # the same thread again
    ):
        pass
