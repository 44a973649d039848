"""Edge engine behaviour across processes: versions, the writer lock, crashes, disk, GC."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import qdrant_edge as qe

from knowledge_platform.errors import StoreError
from knowledge_platform.store import shard_dirs as sd
from knowledge_platform.store.edge import EdgeStore
from tests.store_fixtures import DIM, MODEL, make_points

REPO = Path(__file__).resolve().parents[2]

# A child process: opens the store at argv[1] and runs one of the roles below.
CHILD = r"""
import sys, time
from pathlib import Path
from knowledge_platform.store.edge import EdgeStore
from tests.store_fixtures import DIM, MODEL, make_points

root, role, arg = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
store = EdgeStore(root)

def say(text):
    print(text, flush=True)

if role == "hold":  # write, announce, wait for the go file, publish
    with store.writer("internal", MODEL, DIM) as w:
        w.upsert(make_points(8, source="clickup", seed=7))
        say("mid-write")
        while not Path(arg).exists():
            time.sleep(0.02)
    say("published")
elif role == "source":  # one source's points, holding the lock for a while
    while not (root / "go").exists():
        time.sleep(0.01)
    with store.writer("internal", MODEL, DIM) as w:
        start = time.time()
        w.upsert(make_points(40, source=arg, seed=len(arg)))
        time.sleep(0.5)
        end = time.time()  # still holding the lock
    say(f"{start} {end}")
elif role == "die":  # killed mid-write
    with store.writer("internal", MODEL, DIM) as w:
        w.upsert(make_points(8, source="clickup", seed=7))
        say("mid-write")
        time.sleep(60)
elif role == "count":  # a second reader, e.g. `kp search` while the MCP service runs
    say(store.count("internal"))
    store.close()
elif role == "pool":  # a reader's search-pool threads, once its shard is open
    from glob import glob
    store.count("internal")
    def pool():
        names = (Path(t).read_text() for t in glob("/proc/self/task/*/comm"))
        return sum(n.startswith("edge-search") for n in names)
    for _ in range(100):  # the engine may name its threads a moment after the shard opens
        if pool():
            break
        time.sleep(0.05)
    say(pool())
elif role == "abandon":  # a reader that dies without closing
    say(store.count("internal"))
    import os
    os._exit(0)
"""


def child(root: Path, role: str, arg: str = "-") -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root), role, arg],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def expect(proc: subprocess.Popen[str], line: str) -> None:
    assert proc.stdout is not None
    got = proc.stdout.readline().strip()
    assert got == line, f"child said {got!r}; stderr: {proc.stderr.read() if proc.stderr else ''}"


def seed(store: EdgeStore, n: int = 10) -> None:
    with store.writer("internal", MODEL, DIM) as w:
        w.upsert(make_points(n))


def test_reader_answers_from_old_version_while_a_writer_works_then_swaps(tmp_path: Path):
    store = EdgeStore(tmp_path)
    seed(store)
    assert store.count("internal") == 10
    go = tmp_path / "go"
    writer = child(tmp_path, "hold", str(go))
    try:
        expect(writer, "mid-write")
        assert store.count("internal") == 10
        assert store.count("internal", "clickup") == 0
        assert store.info("internal").version == "v1"  # type: ignore[union-attr]
        # a second reader process on the same published version, while this one is open
        other = child(tmp_path, "count")
        expect(other, "10")
        assert other.wait(30) == 0
        go.touch()
        expect(writer, "published")
        assert writer.wait(30) == 0
    finally:
        writer.kill()
    assert store.count("internal") == 18
    assert store.info("internal").version == "v2"  # type: ignore[union-attr]
    store.close()
    assert not any((tmp_path / "internal" / "readers").glob("*/"))


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads thread names in /proc")
def test_a_reader_searches_with_one_pool_thread(tmp_path: Path):
    # one search at a time holds the collection's lock and the GIL: more threads only
    # hand each segment to another thread (the engine's default is 4 per cpu)
    seed(EdgeStore(tmp_path), 3)
    reader = child(tmp_path, "pool")
    expect(reader, "1")
    assert reader.wait(30) == 0


def test_same_process_reader_is_not_blocked_by_an_open_writer(tmp_path: Path):
    store = EdgeStore(tmp_path)
    seed(store, 3)
    with store.writer("internal", MODEL, DIM) as w:
        w.delete([p.id for p in make_points(3)])
        assert w.point_hashes("memory_files") == {}
        assert store.count("internal") == 3
    assert store.count("internal") == 0


def test_two_writers_from_two_processes_both_land(tmp_path: Path):
    seed(EdgeStore(tmp_path), 5)
    procs = [child(tmp_path, "source", s) for s in ("clickup", "google_drive")]
    (tmp_path / "go").touch()
    spans = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        spans.append(tuple(map(float, out.split())))
    (_, a_end), (b_start, _) = sorted(spans)
    assert a_end <= b_start  # the lock serialised them
    store = EdgeStore(tmp_path)
    assert store.count("internal", "clickup") == 40
    assert store.count("internal", "google_drive") == 40
    assert store.count("internal", "memory_files") == 5


def test_a_killed_writer_leaves_the_published_version_and_the_next_writer_succeeds(tmp_path: Path):
    store = EdgeStore(tmp_path)
    seed(store, 5)
    victim = child(tmp_path, "die")
    expect(victim, "mid-write")
    assert (tmp_path / "internal" / ".build-v2").is_dir()
    victim.send_signal(signal.SIGKILL)
    victim.wait(30)
    assert sd.read_pointer(tmp_path / "internal").version == "v1"  # type: ignore[union-attr]
    assert store.count("internal") == 5
    started = time.monotonic()
    with store.writer("internal", MODEL, DIM) as w:  # flock died with the process
        w.upsert(make_points(2, source="clickup"))
    assert time.monotonic() - started < 10
    assert not list((tmp_path / "internal").glob(".build-*"))
    assert store.count("internal") == 7


def test_lock_timeout_names_the_holder(tmp_path: Path):
    seed(EdgeStore(tmp_path), 1)
    holder = child(tmp_path, "hold", str(tmp_path / "never"))
    try:
        expect(holder, "mid-write")
        impatient = EdgeStore(tmp_path, lock_timeout=0.3)
        with (
            pytest.raises(StoreError, match=rf"locked by pid {holder.pid} .*retry later"),
            impatient.writer("internal", MODEL, DIM),
        ):
            pass
    finally:
        holder.kill()
        holder.wait(30)


def test_copies_keep_files_sparse(tmp_path: Path):
    store = EdgeStore(tmp_path)
    seed(store, 500)
    seed(store, 1)  # v2: a copy of v1 plus one point
    v1, v2 = tmp_path / "internal" / "v1", tmp_path / "internal" / "v2"
    used_v1, used_v2 = sd.disk_usage(v1), sd.disk_usage(v2)
    apparent = sum(f.stat().st_size for f in v1.rglob("*") if f.is_file())
    assert apparent > 4 * used_v1  # preallocated pages: the files really are sparse
    assert used_v2 < 1.3 * used_v1 + (1 << 20)
    naive = tmp_path / "naive"
    shutil.copytree(v1, naive)
    assert sd.disk_usage(naive) > 3 * used_v2  # what a plain copytree would have cost


def _digests(paths: list[Path]) -> dict[Path, str]:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


def test_immutable_segment_files_are_shared_and_never_modified(tmp_path: Path):
    store = EdgeStore(tmp_path, indexing_threshold_kb=20)  # build HNSW segments at once
    points = make_points(1500)
    with store.writer("internal", MODEL, DIM) as w:
        w.upsert(points)
    v1 = tmp_path / "internal" / "v1"
    linked = [p for p in v1.rglob("*") if p.name in sd.IMMUTABLE_FILES]
    assert any(p.name == "matrix.dat" for p in linked)
    before = _digests(linked)
    with store.writer("internal", MODEL, DIM) as w:  # rewrite, delete: points in the segment
        w.upsert(make_points(50, seed=3))  # under the vacuum threshold: segment kept
        w.delete([p.id for p in points[200:250]])
    v2 = tmp_path / "internal" / "v2"
    v1_inodes = {p.stat().st_ino for p in v1.rglob("*") if p.is_file()}
    assert {p.stat().st_ino for p in v2.rglob("matrix.dat")} & v1_inodes
    assert _digests(linked) == before
    shared = sd.disk_usage(v2) - sd.disk_usage(v2, exclude_inodes=v1_inodes)
    assert shared >= sum(p.stat().st_size for p in v2.rglob("matrix.dat"))
    assert store.count("internal") == 1450
    probe = tmp_path / "probe"  # v1 itself is still whole
    sd.copy_shard(v1, probe, link_immutable=False)
    shard = qe.EdgeShard.load(str(probe))
    assert shard.count(qe.CountRequest(exact=True)) == 1500
    shard.close()


def test_gc_keeps_recent_versions_and_live_readers(tmp_path: Path):
    store = EdgeStore(tmp_path, keep_versions=2, gc_grace=0)
    seed(store, 2)
    assert store.count("internal") == 2  # this process's reader holds a copy of v1
    dead = child(tmp_path, "abandon")
    expect(dead, "2")
    dead.wait(30)
    readers = tmp_path / "internal" / "readers"
    assert len(list(readers.glob("*.lock"))) == 2
    for n in range(4):
        with store.writer("internal", MODEL, DIM) as w:
            w.upsert(make_points(1, start=100 + n))
    versions = sorted(p.name for p in (tmp_path / "internal").glob("v*"))
    assert versions == ["v4", "v5"]
    assert len(list(readers.glob("*.lock"))) == 1  # ours survives, the dead one is gone
    assert store.count("internal") == 6  # and it swaps to v5
    patient = EdgeStore(tmp_path, gc_grace=3600)
    with patient.writer("internal", MODEL, DIM) as w:
        w.upsert(make_points(1, start=200))
    assert len(list((tmp_path / "internal").glob("v*"))) == 3  # younger than the grace


def test_a_collection_made_before_a_field_was_filtered_on_gets_its_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Without a payload index, a filter few points match (marks: change) scans every
    point's payload on each query: the next write adds the index a newer version filters on."""
    import knowledge_platform.store.edge as edge

    def indexed(store: EdgeStore) -> set[str]:
        cdir = tmp_path / "internal"
        shard = qe.EdgeShard.load(str(cdir / sd.read_pointer(cdir).version))  # type: ignore[union-attr]
        try:
            return set(shard.info().payload_schema)
        finally:
            shard.close()

    older = tuple(f for f in edge.FILTER_FIELDS if f not in ("marks", "time_kind"))
    monkeypatch.setattr(edge, "FILTER_FIELDS", older)
    store = EdgeStore(tmp_path)
    with store.writer("internal", MODEL, DIM) as w:
        w.upsert(make_points(3))
    assert "marks" not in indexed(store)
    monkeypatch.undo()
    with store.writer("internal", MODEL, DIM) as w:
        w.upsert(make_points(1))
    assert {"marks", "time_kind"} <= indexed(store)
    store.close()
