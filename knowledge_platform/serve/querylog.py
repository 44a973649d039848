"""The query log: one JSON line per search/ask, appended under an exclusive lock so several
server processes (or threads) never interleave half lines."""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
from pathlib import Path
from typing import Any

#: Characters `str.splitlines()` breaks at that json.dumps(ensure_ascii=False) leaves raw: a
#: query holding one would split its record in two for every reader (and be lost).
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


class QueryLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def append(
        self,
        *,
        principal: str,
        scope: str,
        tool: str,
        query: str,
        hits: int,
        top_score: float | None,
        **extra: Any,
    ) -> None:
        record = {
            "time": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
            "principal": principal,
            "scope": scope,
            "tool": tool,
            "query": query,
            "hits": hits,
            "top_score": None if top_score is None else round(float(top_score), 6),
            **extra,
        }
        text = json.dumps(record, ensure_ascii=False, default=str).translate(_LINE_BREAKS)
        line = (text + "\n").encode("utf-8")
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        except FileNotFoundError:  # the first record: its folder is made once, not per call
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                written = 0
                while written < len(line):
                    written += os.write(fd, line[written:])
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def read(self) -> list[dict[str, Any]]:
        """Every record (for tests and `kp` reports); a torn last line is skipped."""
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        out = []
        for line in lines:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
        return out
