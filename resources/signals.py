"""`signals`: a run stops on SIGTERM or Ctrl-C wherever it is, a run waiting for a pool slot
included.

Dagster's in-process executor (kp index, and each run worker under `kp up`) raises a signal
as an interruption only inside a step's own code; anywhere else it notes the signal and acts
on the note when the next step starts. A run waiting for a pool slot never gets there (it
loops in the executor), so it ignored SIGTERM, and Dagster's own "terminate", until killed.

While this resource is set up (the whole run) a thread watches that note: a signal still
unhandled after a second is raised as KeyboardInterrupt in the thread running the steps. The
run then ends FAILURE (Dagster: interrupted, `UNEXPECTED_TERMINATION`) and drops the claims it
was waiting on; `kp index`, or the reaper, frees any slot still held."""

from __future__ import annotations

import ctypes
import threading
import time

from dagster import ConfigurableResource, InitResourceContext
from dagster._utils.interrupts import check_captured_interrupt, pop_captured_interrupt
from pydantic import PrivateAttr

#: How long a noted signal may wait for Dagster to act on it before it is raised.
GRACE_SECONDS = 1.0
_POLL_SECONDS = 0.2


def _raise_in(thread_id: int) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(KeyboardInterrupt)
    )


class _Watch(threading.Thread):
    def __init__(self, target: int) -> None:
        super().__init__(name="kp-signals", daemon=True)
        self.target = target
        self.done = threading.Event()

    def run(self) -> None:
        noted: float | None = None
        while not self.done.wait(_POLL_SECONDS):
            if not check_captured_interrupt():
                noted = None
                continue
            now = time.monotonic()
            noted = noted or now
            if now - noted >= GRACE_SECONDS:
                pop_captured_interrupt()
                _raise_in(self.target)
                noted = None


class SignalsResource(ConfigurableResource):
    _watch: _Watch | None = PrivateAttr(default=None)

    def setup_for_execution(self, context: InitResourceContext) -> None:
        if threading.current_thread() is not threading.main_thread():
            return  # signals reach the main thread only; a threaded caller handles them
        self._watch = _Watch(threading.get_ident())
        self._watch.start()

    def teardown_after_execution(self, context: InitResourceContext) -> None:
        if self._watch is not None:
            self._watch.done.set()
            self._watch.join()
            self._watch = None
