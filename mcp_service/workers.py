"""`kp mcp --workers N`: N uvicorn processes, each listening on the same port through a
socket of its own (SO_REUSEPORT), so the kernel spreads new connections across them.

uvicorn's own `workers=N` shares one listening socket: the worker whose event loop wakes
first accepts every connection then waiting (asyncio accepts a whole backlog at once), so
eight clients that connect together mostly land on one worker. Measured with
bench/mcp_throughput.py `--workers 2`: the two workers' CPU ran 3:1, and two workers served
1.2x what one did; with a socket each, 1.5-1.9x. This supervisor starts the workers, starts
another when one dies, and on SIGTERM or SIGINT passes SIGTERM on and waits for each to shut
down cleanly (its lifespan removes its reader copies)."""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import signal
import socket
import sys
import time
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any

import uvicorn
from uvicorn.config import STARTUP_FAILURE

log = logging.getLogger("mcp_service")
#: How long a worker may take to finish its requests and lifespan after SIGTERM.
STOP_SECONDS = 30.0
#: A worker that exits with an error this soon after it started failed to start (an app that
#: cannot be built, a port it cannot take): the service stops instead of starting it again and
#: again. One killed by a signal is started again.
STARTING_SECONDS = 60.0


def listener(host: str, port: int, *, reuse_port: bool) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def _worker(app: str, options: dict[str, Any]) -> None:
    """One worker process: its own socket on the shared port, then uvicorn until signalled."""
    config = uvicorn.Config(app, factory=True, **options)
    try:
        sock = listener(config.host, config.port, reuse_port=True)
    except OSError as exc:
        logging.getLogger("uvicorn.error").error("cannot listen on %s:%d: %s", config.host,
                                                 config.port, exc)  # configured by Config
        sys.exit(STARTUP_FAILURE)
    uvicorn.Server(config).run(sockets=[sock])


def serve(app: str, count: int, options: dict[str, Any]) -> None:
    """Run `count` workers of the app factory `app` ("module:function") until SIGTERM or
    SIGINT. Exits at once, naming the port, if another program already listens there."""
    host, port = options["host"], options["port"]
    try:
        listener(host, port, reuse_port=False).close()  # a plain bind: is the port free?
    except OSError as exc:
        raise SystemExit(f"cannot listen on {host}:{port}: {exc}") from None
    spawn = multiprocessing.get_context("spawn")  # no forked copy of this process's state
    stopping = False

    def start() -> tuple[BaseProcess, float]:
        process = spawn.Process(target=_worker, args=(app, options), name="kp-mcp-worker")
        process.start()
        return process, time.monotonic()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping  # a flag, not an Event: a handler must not wait for a lock
        stopping = True

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    workers = [start() for _ in range(count)]
    log.info("started %d workers on %s:%d: %s", count, host, port,
             ", ".join(str(w.pid) for w, _ in workers))
    failed = False
    try:
        while not (stopping or failed):
            time.sleep(0.5)
            for i, (worker, started) in enumerate(workers):
                if stopping or worker.is_alive():
                    continue  # a worker that a signal to the process group stopped stays so
                code = worker.exitcode or 0  # < 0: killed by a signal, restarted
                if code == STARTUP_FAILURE or (
                        code > 0 and time.monotonic() - started < STARTING_SECONDS):
                    log.error("worker %s exited with %s while starting; stopping", worker.pid,
                              worker.exitcode)
                    failed = True
                    break
                log.warning("worker %s exited with %s; starting another", worker.pid,
                            worker.exitcode)
                workers[i] = start()
    finally:
        for worker, _ in workers:
            if worker.is_alive():
                worker.terminate()  # SIGTERM: uvicorn's graceful shutdown, lifespan included
        for worker, _ in workers:
            worker.join(STOP_SECONDS)
            if worker.is_alive():
                worker.kill()
                worker.join()
        for sig, handler in previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(sig, handler)
    if failed:
        raise SystemExit(STARTUP_FAILURE)
