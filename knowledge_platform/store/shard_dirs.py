"""On-disk mechanics of the Edge engine: versioned shard directories, the CURRENT pointer,
inter-process locks, a sparse-aware copy and garbage collection.

Layout of one collection::

    <root>/<collection>/CURRENT         JSON {version, model_id, dim, published_at}
    <root>/<collection>/.lock           flock: one writer at a time, across processes
    <root>/<collection>/.gc.lock        flock: shared while a reader copies, exclusive for GC
    <root>/<collection>/v<N>/           published, closed, never opened again (immutable)
    <root>/<collection>/.build-v<N>/    a writer's work in progress (garbage if found unlocked)
    <root>/<collection>/readers/<id>/   one reader's private copy; <id>.lock held while open

No process ever opens a published version: writers open a fresh copy, readers open a private
copy. That sidesteps the shard's own lock (Qdrant Edge refuses a second open of a directory,
even in the same process) and keeps every published version byte-for-byte immutable.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import shutil
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from knowledge_platform.errors import StoreError

POINTER = "CURRENT"
_VERSION_RE = re.compile(r"^v(\d+)$")
_BUILD_PREFIX = ".build-"
_BLOCK = 1 << 20
#: Files Qdrant writes once, when it builds an immutable segment, and afterwards only opens
#: O_RDONLY and maps read-only (checked with strace across load, upsert of points living in
#: the segment, delete, set_payload, optimize). They may be hard-linked between versions.
IMMUTABLE_FILES = frozenset(
    {"matrix.dat", "links.bin", "links_compressed.bin", "inverted_index.dat"}
)


@dataclass(frozen=True)
class Pointer:
    version: str
    model_id: str
    dim: int
    published_at: float

    @property
    def number(self) -> int:
        return version_number(self.version) or 0


def version_number(name: str) -> int | None:
    match = _VERSION_RE.fullmatch(name)
    return int(match.group(1)) if match else None


def read_pointer(cdir: Path) -> Pointer | None:
    try:
        data = json.loads((cdir / POINTER).read_text())
        return Pointer(
            str(data["version"]),
            str(data["model_id"]),
            int(data["dim"]),
            float(data.get("published_at", 0.0)),
        )
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreError(f"unreadable pointer {cdir / POINTER}: {exc}") from None


def pointer_stamp(pointer: str) -> tuple[int, int, int] | None:
    """Changes whenever the pointer file (`cdir / POINTER`, as a string: each search asks)
    is replaced (a new inode each time); one stat call."""
    try:
        st = os.stat(pointer)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def fsync_dir(path: Path) -> None:
    _fsync(str(path))


def write_pointer(cdir: Path, ptr: Pointer) -> None:
    """Atomic: a temp file, fsynced, then os.replace over CURRENT."""
    tmp = cdir / f".{POINTER}.{os.getpid()}.tmp"
    payload = {
        "version": ptr.version,
        "model_id": ptr.model_id,
        "dim": ptr.dim,
        "published_at": ptr.published_at,
    }
    with open(tmp, "w") as fh:
        json.dump(payload, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, cdir / POINTER)
    fsync_dir(cdir)


def _fsync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_tree(path: Path) -> None:
    """Make a finished build durable before it is published. Hard-linked files are already
    durable (they belong to a published version). Parallel: the journal batches commits."""
    todo: list[str] = []
    for dirpath, _dirs, files in os.walk(path):
        todo.append(dirpath)
        for name in files:
            full = os.path.join(dirpath, name)
            if os.lstat(full).st_nlink == 1:
                todo.append(full)
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(_fsync, todo))


# -- locks -------------------------------------------------------------------------------


def _flock(path: Path, mode: int, timeout: float, what: str) -> int:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                holder = _read_holder(fd)
                os.close(fd)
                raise StoreError(
                    f"{what} {path.parent.name} is locked{holder} for over {timeout:.0f}s; "
                    "retry later or raise the lock timeout"
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.25)


def _read_holder(fd: int) -> str:
    with contextlib.suppress(OSError, ValueError):
        pid = int(os.pread(fd, 32, 0).decode().strip() or "0")
        if pid:
            return f" by pid {pid}"
    return ""


@contextlib.contextmanager
def exclusive_lock(path: Path, timeout: float, what: str = "collection") -> Iterator[None]:
    """Blocking (up to `timeout`) exclusive flock; dies with the process, so never stale."""
    fd = _flock(path, fcntl.LOCK_EX, timeout, what)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def shared_lock(path: Path, timeout: float, what: str = "collection") -> Iterator[None]:
    fd = _flock(path, fcntl.LOCK_SH, timeout, what)
    try:
        yield
    finally:
        os.close(fd)


def try_exclusive(path: Path) -> int | None:
    """An exclusive flock if nobody holds the file, else None. Caller closes the fd."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


# -- copying -----------------------------------------------------------------------------


def copy_shard(src: Path, dst: Path, *, link_immutable: bool) -> None:
    """Copy a closed shard directory keeping holes (and hard-linking immutable segment
    files when asked). A plain copytree turns every preallocated page into real blocks."""
    for dirpath, _dirs, files in os.walk(src):
        rel = Path(dirpath).relative_to(src)
        (dst / rel).mkdir(parents=True, exist_ok=True)
        for name in files:
            s, d = Path(dirpath) / name, dst / rel / name
            if link_immutable and name in IMMUTABLE_FILES:
                try:
                    os.link(s, d)
                    continue
                except OSError:
                    pass  # another filesystem, or links refused: copy instead
            copy_sparse(s, d)


def copy_sparse(src: Path, dst: Path) -> None:
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        size = os.fstat(fin.fileno()).st_size
        try:
            _copy_extents(fin.fileno(), fout.fileno(), size)
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP):
                raise
            _copy_skipping_zeros(fin.fileno(), fout.fileno(), size)
        os.ftruncate(fout.fileno(), size)


def _copy_extents(fin: int, fout: int, size: int) -> None:
    pos = 0
    while pos < size:
        try:
            start = os.lseek(fin, pos, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # only a hole remains
                return
            raise
        end = os.lseek(fin, start, os.SEEK_HOLE)
        _copy_range(fin, fout, start, end)
        pos = end


def _copy_range(fin: int, fout: int, start: int, end: int) -> None:
    offset = start
    while offset < end:
        try:  # in-kernel copy; a reflink on btrfs/xfs
            n = os.copy_file_range(fin, fout, end - offset, offset, offset)
        except (OSError, AttributeError):
            n = os.pwrite(fout, os.pread(fin, min(_BLOCK, end - offset), offset), offset)
        if n <= 0:
            raise StoreError(f"short copy at offset {offset}")
        offset += n


def _copy_skipping_zeros(fin: int, fout: int, size: int) -> None:
    zero = bytes(_BLOCK)
    for offset in range(0, size, _BLOCK):
        block = os.pread(fin, _BLOCK, offset)
        if block != zero[: len(block)]:
            os.pwrite(fout, block, offset)


def disk_usage(path: Path, *, exclude_inodes: set[int] | None = None) -> int:
    """Bytes allocated under `path`, each inode counted once (hard links shared with
    `exclude_inodes` not at all)."""
    seen = set(exclude_inodes or ())
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            st = os.lstat(os.path.join(dirpath, name))
            if st.st_ino not in seen:
                seen.add(st.st_ino)
                total += st.st_blocks * 512
    return total


# -- housekeeping ------------------------------------------------------------------------


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def clean_abandoned_builds(cdir: Path, current: int) -> None:
    """Under the writer lock: drop build dirs and versions newer than CURRENT (a writer that
    died between finishing its copy and moving the pointer)."""
    for child in cdir.iterdir():
        n = version_number(child.name)
        if child.name.startswith(_BUILD_PREFIX) or (n is not None and n > current):
            remove_tree(child)


def next_version(cdir: Path, current: int) -> int:
    numbers = [n for c in cdir.iterdir() if (n := version_number(c.name)) is not None]
    return max([current, *numbers]) + 1


def build_dir(cdir: Path, number: int) -> Path:
    return cdir / f"{_BUILD_PREFIX}v{number}"


def collect_garbage(cdir: Path, *, keep: int, grace: float) -> list[str]:
    """Remove superseded versions beyond the newest `keep` once older than `grace` seconds,
    and reader copies whose owner is gone. Skips everything while a reader is copying."""
    removed: list[str] = []
    gc_fd = try_exclusive(cdir / ".gc.lock")
    if gc_fd is None:
        return removed
    try:
        ptr = read_pointer(cdir)
        current = ptr.number if ptr else 0
        published = sorted(
            n for c in cdir.iterdir() if (n := version_number(c.name)) is not None and n <= current
        )
        now = time.time()
        for n in published[:-keep] if keep > 0 else published:
            path = cdir / f"v{n}"
            if n != current and now - path.stat().st_mtime >= grace:
                remove_tree(path)
                removed.append(path.name)
        removed += _collect_reader_copies(cdir / "readers")
    finally:
        os.close(gc_fd)
    return removed


def _collect_reader_copies(readers: Path) -> list[str]:
    removed: list[str] = []
    if not readers.is_dir():
        return removed
    for lock in readers.glob("*.lock"):
        fd = try_exclusive(lock)
        if fd is None:
            continue  # its reader is alive
        try:
            remove_tree(readers / lock.stem)
            lock.unlink(missing_ok=True)
            removed.append(f"readers/{lock.stem}")
        finally:
            os.close(fd)
    return removed
