"""The calling side of the conversion helper (worker.py): one helper process per Python
process, started on first use, fed one file at a time. A helper that stops answering (past
the file's timeout plus a grace period) or dies is killed and restarted for the next file."""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading
from multiprocessing.connection import Connection
from pathlib import Path

from knowledge_platform.convert.limits import ConvertLimits
from knowledge_platform.convert.result import Converted
from knowledge_platform.errors import ConversionLimitError

_ROOT = str(Path(__file__).resolve().parents[2])
#: How much longer than the file's own timeout the helper may take to reply.
GRACE_SECONDS = 10.0


class Helper:
    def __init__(self) -> None:
        job_r, self._job_w = os.pipe()
        self._result_r, result_w = os.pipe()
        # The helper imports this package from where the caller does (installed or not).
        path = os.pathsep.join([_ROOT, *filter(None, [os.environ.get("PYTHONPATH")])])
        self.process = subprocess.Popen(
            [sys.executable, "-m", "knowledge_platform.convert.worker", str(job_r), str(result_w)],
            pass_fds=(job_r, result_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": path},
        )
        os.close(job_r)
        os.close(result_w)
        self.jobs = Connection(self._job_w, readable=False)
        self.results = Connection(self._result_r, writable=False)

    def convert(self, data: bytes, mime_type: str, name: str, limits: ConvertLimits) -> Converted:
        try:
            self.jobs.send((data, mime_type, name, limits))
            if not self.results.poll(limits.timeout_seconds + GRACE_SECONDS):
                raise TimeoutError
            status, value = self.results.recv()
        except (OSError, EOFError, TimeoutError):
            self.close()
            raise ConversionLimitError(
                f"{name}: the conversion helper stopped answering and was stopped; "
                "the next file starts a new one"
            ) from None
        if status == "error":
            raise value
        return value

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        self.jobs.close()
        self.results.close()
        if self.alive:
            self.process.kill()
        self.process.wait()

    def detach(self) -> None:
        """Let go of the pipes without touching the process (in a forked copy of the caller,
        which must not talk to its parent's helper)."""
        self.jobs.close()
        self.results.close()


_lock = threading.Lock()
_helper: Helper | None = None


def _after_fork_in_child() -> None:
    global _helper, _lock
    if _helper is not None:
        _helper.detach()
    _helper, _lock = None, threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


def convert_isolated(data: bytes, mime_type: str, name: str, limits: ConvertLimits) -> Converted:
    """Convert in the helper (one file at a time per process: conversion is CPU-bound)."""
    global _helper
    with _lock:
        if _helper is None or not _helper.alive:
            _helper = Helper()
            atexit.register(_helper.close)
        return _helper.convert(data, mime_type, name, limits)
