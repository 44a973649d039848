"""How `kp index` stops on SIGTERM or Ctrl-C: the run it was in ends (failed, saying which
signal) with its pool slots freed, and the command exits 128 + the signal's number.

During a run Dagster owns the signal handlers (and `resources.signals` makes a waiting run
notice them), so which signal arrived is read from the C-level wakeup fd, which sees every
signal whoever handles it."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterable, Iterator
from typing import Any

STOPS = (signal.SIGINT, signal.SIGTERM)


class IndexStopped(Exception):
    """SIGTERM or Ctrl-C stopped `kp index`; the message says what became of its run."""

    def __init__(self, message: str, signum: int) -> None:
        super().__init__(message)
        self.signum = signum


def _interrupt(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


@contextlib.contextmanager
def stop_signals() -> Iterator[SignalLog]:
    """While entered, SIGTERM stops `kp index` as Ctrl-C does (within a run Dagster and
    `resources.signals` take over) and the log records which arrived."""
    try:
        previous = signal.signal(signal.SIGTERM, _interrupt)
    except ValueError:  # not the main thread
        previous = None
    try:
        with SignalLog() as log:
            yield log
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class SignalLog:
    """The stopping signals this process received while entered (main thread only)."""

    def __init__(self) -> None:
        self._fds: tuple[int, int] | None = None
        self._previous = -1
        self._seen: list[int] = []

    def __enter__(self) -> SignalLog:
        read, write = os.pipe()
        os.set_blocking(read, False)
        os.set_blocking(write, False)
        try:
            self._previous = signal.set_wakeup_fd(write)
        except ValueError:  # not the main thread: nothing to log
            os.close(read)
            os.close(write)
            return self
        self._fds = (read, write)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fds is not None:
            signal.set_wakeup_fd(self._previous)
            for fd in self._fds:
                os.close(fd)
            self._fds = None

    def stopped_by(self) -> int | None:
        """The first SIGINT or SIGTERM received so far, if any."""
        if self._fds is not None:
            with contextlib.suppress(BlockingIOError):
                self._seen.extend(os.read(self._fds[0], 512))
        return next((s for s in self._seen if s in STOPS), None)


def stop_runs(instance: Any, run_ids: Iterable[str], where: str, signum: int) -> IndexStopped:
    """End the interrupted runs (failed, slots freed) and say so."""
    from assets.reaper import release

    name = signal.Signals(signum).name
    lines = [f"{where}: stopped by {name}"]
    for run_id in run_ids:
        done = release(instance, run_id, f"kp index was stopped by {name}")
        run = instance.get_run_by_id(run_id)
        status = run.status.value.lower() if run is not None else "gone"
        freed = f", freed {', '.join(done.slots)}" if done and done.slots else ""
        lines.append(f"run {run_id[:8]} {status}{freed}")
    return IndexStopped("; ".join(lines), signum)
