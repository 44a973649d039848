"""The registry file as a long-running reader (the MCP service) sees it: re-read when the file
changes, so a new client, source or principal takes effect without a restart.

Each `current()` costs one `os.stat` (a few microseconds; bench/registry_reload.py) compared
with the stat of the version in use; the service checks once when it authenticates a request
and once when it resolves a tool call's caller. A changed file is read and validated whole before it
replaces that version: an edit that does not validate keeps the last good registry, logs one
line saying why and is reported by `refused` until the file changes again."""

from __future__ import annotations

import datetime as dt
import logging
import os
import threading
from pathlib import Path

from knowledge_platform.config.registry import Registry, load_registry
from knowledge_platform.errors import ConfigError

log = logging.getLogger(__name__)
#: Settings a running process built its embedder and store from: a change applies on restart.
PINNED = ("embedding", "store")
Signature = tuple[int, int, int, int] | None


def signature(path: Path) -> Signature:
    """What tells one version of the file from the next (None: it cannot be read)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


class RegistryWatch:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._seen = signature(path)  # before reading: an edit during the read is seen next
        self._registry = load_registry(path)  # a bad file at start is an error, as before
        self._started = self._registry  # what this process built its embedder and store from
        self.loaded_at = dt.datetime.now(dt.UTC)
        #: Why the file's current version is not the one in use (None: it is).
        self.refused: str | None = None
        #: Pinned settings the file changed since this process started (restart to apply).
        self.pending_restart: list[str] = []

    @property
    def registry(self) -> Registry:
        """The registry in use as of the last `current()` (no check)."""
        return self._registry

    def current(self) -> Registry:
        """The registry in use, re-read first if the file changed since it was last read."""
        seen = signature(self.path)
        if seen != self._seen:
            with self._lock:
                if seen != self._seen:
                    self._reload(seen)
        return self._registry

    def _reload(self, seen: Signature) -> None:
        self._seen = seen
        try:
            fresh = load_registry(self.path)
        except ConfigError as exc:
            self.refused = str(exc).splitlines()[0]
            log.warning(
                "registry not reloaded, still serving the version read at %s: %s",
                self.loaded_at.isoformat(timespec="seconds"),
                self.refused,
            )
            return
        old = self._registry
        self.pending_restart = [k for k in PINNED if getattr(fresh, k) != getattr(self._started, k)]
        self._registry, self.refused = fresh, None
        self.loaded_at = dt.datetime.now(dt.UTC)
        log.info(
            "registry %s reloaded: scopes %s; principals %s%s",
            self.path,
            _diff(old.scopes, fresh.scopes),
            _diff([p.name for p in old.principals], [p.name for p in fresh.principals]),
            f"; {', '.join(self.pending_restart)} settings apply on restart"
            if self.pending_restart
            else "",
        )

    def warnings(self) -> list[str]:
        """One line each for an edit not applied and settings that need a restart."""
        out = []
        if self.refused:
            out.append(
                f"registry edit not applied (still serving the version read at "
                f"{self.loaded_at.isoformat(timespec='seconds')}): {self.refused}"
            )
        if self.pending_restart:
            out.append(
                f"registry {', '.join(self.pending_restart)} settings changed; the "
                "MCP service applies them on restart"
            )
        return out


def _diff(before: list[str], after: list[str]) -> str:
    added = [x for x in after if x not in before]
    removed = [x for x in before if x not in after]
    parts = [f"+{x}" for x in added] + [f"-{x}" for x in removed]
    return " ".join(parts) if parts else "unchanged"
