"""Read-only access to a git repository through the `git` CLI: no checkout, any commit.

A local path is read in place; a clone URL is cloned bare into a cache directory once and
fetched on every open (under a file lock, so two pulls of one repository never race).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from knowledge_platform.errors import ConfigError, SourceError
from knowledge_platform.settings import load_settings

_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*://|[^/@:]+@[^/:]+:)", re.I)
_ENV = {"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}


@dataclass(frozen=True)
class TreeEntry:
    path: str
    mode: str
    type: str
    object: str
    size: int | None


def is_url(repo: str) -> bool:
    return bool(_URL.match(repo))


def default_cache_dir() -> Path:
    """$KP_HOME/cache/git_docs, beside the platform's other caches."""
    return load_settings().cache_dir / "git_docs"


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A path glob: `**/` any directories (or none), `*` and `?` within one segment."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


class GitRepo:
    def __init__(self, git_dir: Path, timeout: float) -> None:
        self.git_dir = git_dir
        self.timeout = timeout
        #: git processes started, reported as the pull's request count.
        self.commands = 0

    @classmethod
    def open(cls, repo: str, cache_dir: Path | None, timeout: float) -> GitRepo:
        """The repository at a local path, or a bare clone of a URL kept fresh under cache_dir."""
        if not is_url(repo):
            path = Path(repo).expanduser()
            if not path.exists():
                raise ConfigError(f"git_docs repo {repo!r} is neither an existing path nor a URL")
            local = cls(path, timeout)
            local.run("rev-parse", "--git-dir")
            return local
        cache = cache_dir or default_cache_dir()
        cache.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9._-]+", "-", repo.rstrip("/").rsplit("/", 1)[-1])[:40]
        target = cache / f"{name}-{hashlib.sha256(repo.encode()).hexdigest()[:12]}.git"
        clone = cls(target, timeout)
        with open(target.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (target / "HEAD").exists():
                shutil.rmtree(target, ignore_errors=True)  # a clone that died half-way
                clone.run("clone", "--bare", "--quiet", "--", repo, str(target), cwd=cache)
            clone.run(
                "fetch",
                "--prune",
                "--quiet",
                "origin",
                "+refs/heads/*:refs/heads/*",
                "+refs/tags/*:refs/tags/*",
            )
        return clone

    def run(self, *args: str, stdin: bytes | None = None, cwd: Path | None = None) -> bytes:
        self.commands += 1
        command = ["git", *args] if cwd else ["git", "-C", str(self.git_dir), *args]
        try:
            done = subprocess.run(
                command,
                input=stdin,
                capture_output=True,
                check=False,
                timeout=self.timeout,
                cwd=cwd,
                env={**os.environ, **_ENV},
            )
        except FileNotFoundError as exc:
            raise ConfigError("the git command is not installed; git_docs needs it") from exc
        except subprocess.TimeoutExpired as exc:
            raise SourceError(f"git {args[0]} timed out after {self.timeout:g} s") from exc
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            detail = message[-1] if message else f"exit status {done.returncode}"
            raise SourceError(f"git {args[0]} failed in {self.git_dir}: {detail}")
        return done.stdout

    def resolve(self, rev: str) -> str:
        try:
            return (
                self.run("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").decode().strip()
            )
        except SourceError:
            raise SourceError(f"git_docs: no commit {rev!r} in {self.git_dir}") from None

    def has_commit(self, sha: str) -> bool:
        with contextlib.suppress(SourceError):
            self.run("cat-file", "-e", f"{sha}^{{commit}}")
            return True
        return False

    def tree(self, sha: str) -> list[TreeEntry]:
        """Every entry of the commit's tree, recursively (blobs, symlinks, submodules)."""
        out: list[TreeEntry] = []
        for record in self.run("ls-tree", "-r", "-l", "-z", "--full-tree", sha).split(b"\0"):
            if not record:
                continue
            info, _, path = record.partition(b"\t")
            mode, kind, obj, size = info.decode().split(maxsplit=3)
            out.append(
                TreeEntry(
                    path.decode("utf-8", "surrogateescape"),
                    mode,
                    kind,
                    obj,
                    int(size) if size.strip().isdigit() else None,
                )
            )
        return out

    def read_blobs(self, objects: list[str]) -> dict[str, bytes]:
        """Contents of many blobs with one `git cat-file --batch`."""
        if not objects:
            return {}
        data = self.run("cat-file", "--batch", stdin="\n".join(objects).encode() + b"\n")
        blobs: dict[str, bytes] = {}
        pos = 0
        while pos < len(data):
            end = data.index(b"\n", pos)
            header = data[pos:end].decode().split()
            pos = end + 1
            if len(header) != 3:  # "<name> missing"
                continue
            size = int(header[2])
            blobs[header[0]] = data[pos : pos + size]
            pos += size + 1
        return blobs

    def diff(self, old: str, new: str) -> list[tuple[str, str]]:
        """(status, path) between two commits; renames appear as delete + add."""
        fields = self.run("diff", "--name-status", "-z", "--no-renames", old, new).split(b"\0")
        pairs = zip(fields[0::2], fields[1::2], strict=False)
        return [(s.decode()[:1], p.decode("utf-8", "surrogateescape")) for s, p in pairs if s]

    def last_commits(self, sha: str, paths: set[str]) -> dict[str, tuple[str, str]]:
        """path -> (sha, ISO committer date) of the newest commit touching it, reading history
        newest-first and stopping as soon as every path is found."""
        found: dict[str, tuple[str, str]] = {}
        if not paths:
            return found
        self.commands += 1
        command = [
            "git",
            "-C",
            str(self.git_dir),
            "log",
            "--no-show-signature",
            "--no-renames",
            "--name-only",
            "-z",
            "--format=%x01%H %cI",
            sha,
        ]
        with subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={**os.environ, **_ENV}
        ) as proc:
            current = ("", "")
            for token in _tokens(proc.stdout.fileno() if proc.stdout else -1):
                if token.startswith(b"\x01"):
                    commit, _, date = token[1:].decode().partition(" ")
                    current = (commit, date)
                    continue
                path = token.lstrip(b"\n").decode("utf-8", "surrogateescape")
                if path in paths and path not in found:
                    found[path] = current
                    if len(found) == len(paths):
                        proc.kill()
                        break
        return found


def _tokens(fd: int) -> Iterator[bytes]:
    """NUL-separated records from a pipe, as they arrive."""
    buffer = b""
    while chunk := os.read(fd, 65536):
        buffer += chunk
        *done, buffer = buffer.split(b"\0")
        yield from done
    if buffer:
        yield buffer
