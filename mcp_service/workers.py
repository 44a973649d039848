"""`kp mcp --workers N`: one process listens on the port and hands each connection it accepts
to the next of N uvicorn worker processes in turn, so connections are spread evenly.

Why not a shared socket or a socket each. uvicorn's own `workers=N` shares one listening
socket: the worker whose event loop wakes first accepts every connection then waiting
(asyncio accepts a whole backlog at once), so eight clients that connect together mostly land
on one worker (bench/mcp_throughput.py `--workers 2`: CPU 3:1, 1.2x one worker's
throughput). A socket each (SO_REUSEPORT) lets the kernel pick by a hash of the client's
address: eight connections split 4:4 only about a quarter of the time (5:3, 6:2 and 8:0 were
all seen in one minute), and a keep-alive connection stays where it landed, so the clients
of the busier worker waited about twice as long (15 against 32 ms per request at 6:2).
Handed over in turn, eight connections split 4:4.

How. The supervisor binds the port (so a taken port is refused at once) and listens once the
first worker is serving. Each worker gets one end of a Unix socket pair, which it gives
uvicorn as its listening socket (`HandedOver`): asyncio's server calls `listen()` on it when
it starts serving (the worker then tells the supervisor it is ready) and `accept()` whenever
it is readable, which receives the next connection's descriptor (SCM_RIGHTS). Connections go
only to ready workers. The supervisor starts another worker when one dies, stops the service
when one fails while starting, and on SIGTERM or SIGINT passes SIGTERM on and waits for each
to shut down cleanly (its lifespan removes its reader copies). A worker whose supervisor is
gone stops too."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import select
import signal
import socket
import time
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any, Literal

import uvicorn
from uvicorn.config import STARTUP_FAILURE

log = logging.getLogger("mcp_service")
#: How long a worker may take to finish its requests and lifespan after SIGTERM.
STOP_SECONDS = 30.0
#: A worker that exits with an error this soon after it started failed to start (an app that
#: cannot be built): the service stops instead of starting it again and again. One killed by a
#: signal is started again.
STARTING_SECONDS = 60.0
#: How long handing a connection to a worker may block (a worker that stopped reading its
#: channel) before the next worker gets it.
HAND_OVER_SECONDS = 1.0
#: Pending connections the kernel keeps for the supervisor to accept.
BACKLOG = 2048
_READY = b"r"


def listener(host: str, port: int) -> socket.socket:
    """A TCP socket bound to `host:port` (not listening yet); OSError if the port is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


class HandedOver(socket.socket):
    """A worker's end of its channel from the supervisor, given to uvicorn as the listening
    socket. asyncio's server calls `listen()` once as it starts serving and `accept()` each
    time the channel is readable; each accept receives one connection the supervisor accepted
    (`address` is the port's, for uvicorn's start-up line)."""

    def __init__(self, channel: socket.socket, address: Any) -> None:
        super().__init__(channel.family, channel.type, fileno=channel.detach())
        self.address = address

    def listen(self, backlog: int = 0) -> None:  # the supervisor listens, not this
        self.sendall(_READY)  # serving now: the supervisor may hand connections over

    def getsockname(self) -> Any:
        return self.address

    def accept(self) -> tuple[socket.socket, Any]:
        message, fds, _, _ = socket.recv_fds(self, 1, 1)
        if not fds:
            if not message:  # the supervisor is gone: so is this worker's port
                with contextlib.suppress(RuntimeError, ValueError):
                    asyncio.get_running_loop().remove_reader(self.fileno())
                os.kill(os.getpid(), signal.SIGTERM)
            raise BlockingIOError  # asyncio: nothing to accept now
        conn = socket.socket(fileno=fds[0])
        try:
            return conn, conn.getpeername()
        except OSError:  # the client left before it was served
            conn.close()
            raise ConnectionAbortedError from None


def _worker(app: str, options: dict[str, Any], channel: socket.socket, address: Any) -> None:
    """One worker process: uvicorn, accepting the connections the supervisor hands over."""
    # asyncio's loop: uvloop takes a socket's descriptor over and accepts on it itself. One
    # worker on either loop, alternating, used 4.8 and 5.2 (uvloop) against 5.1 and 4.8 ms of
    # CPU per search: no difference to measure.
    config = uvicorn.Config(app, factory=True, **{**options, "loop": "asyncio"})
    uvicorn.Server(config).run(sockets=[HandedOver(channel, address)])


@dataclass
class _Slot:
    """One worker as the supervisor sees it."""

    process: BaseProcess
    started: float
    channel: socket.socket  # the supervisor's end
    state: Literal["starting", "ready", "gone"] = "starting"


def serve(app: str, count: int, options: dict[str, Any]) -> None:
    """Run `count` workers of the app factory `app` ("module:function") until SIGTERM or
    SIGINT. Exits at once, naming the port, if another program already listens there."""
    host, port = options["host"], options["port"]
    try:
        sock = listener(host, port)
    except OSError as exc:
        raise SystemExit(f"cannot listen on {host}:{port}: {exc}") from None
    sock.setblocking(False)
    address = sock.getsockname()
    spawn = multiprocessing.get_context("spawn")  # no forked copy of this process's state
    stopping = False

    def start() -> _Slot:
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        process = spawn.Process(
            target=_worker, args=(app, options, theirs, address), name="kp-mcp-worker"
        )
        process.start()
        theirs.close()
        mine.settimeout(HAND_OVER_SECONDS)
        return _Slot(process, time.monotonic(), mine)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping  # a flag, not an Event: a handler must not wait for a lock
        stopping = True

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    slots = [start() for _ in range(count)]
    log.info(
        "started %d workers for %s:%d: %s",
        count,
        host,
        port,
        ", ".join(str(s.process.pid) for s in slots),
    )
    listening = failed = False
    turn = 0
    checked = time.monotonic()
    try:
        while not (stopping or failed):
            waiting = [s.channel for s in slots if s.state == "starting"]
            if listening and any(s.state == "ready" for s in slots):
                waiting.append(sock)  # with no worker ready, the kernel keeps connections
            readable = select.select(waiting, [], [], 0.5)[0]  # a signal: its handler, then on
            for slot in slots:
                if slot.channel in readable:
                    _hear(slot)
            if not listening and any(s.state == "ready" for s in slots):
                sock.listen(BACKLOG)
                listening = True
                log.info("listening on %s:%d", host, port)
            if sock in readable:
                turn = _hand_over(sock, slots, turn)
            if time.monotonic() - checked < 0.5:
                continue
            checked = time.monotonic()
            for i, slot in enumerate(slots):
                if stopping or slot.process.is_alive():
                    continue  # a worker that a signal to the process group stopped stays so
                code = slot.process.exitcode or 0  # < 0: killed by a signal, restarted
                if code == STARTUP_FAILURE or (
                    code > 0 and time.monotonic() - slot.started < STARTING_SECONDS
                ):
                    log.error(
                        "worker %s exited with %s while starting; stopping", slot.process.pid, code
                    )
                    failed = True
                    break
                log.warning("worker %s exited with %s; starting another", slot.process.pid, code)
                slot.channel.close()
                slots[i] = start()
    finally:
        sock.close()  # new connections are refused from here on
        for slot in slots:
            if slot.process.is_alive():
                slot.process.terminate()  # SIGTERM: graceful shutdown, lifespan included
        for slot in slots:
            slot.process.join(STOP_SECONDS)
            if slot.process.is_alive():
                slot.process.kill()
                slot.process.join()
            slot.channel.close()
        for sig, handler in previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(sig, handler)
    if failed:
        raise SystemExit(STARTUP_FAILURE)


def _hear(slot: _Slot) -> None:
    """A starting worker's word: it serves, or (its channel closed) it is gone."""
    try:
        said = slot.channel.recv(1)
    except OSError:
        said = b""
    slot.state = "ready" if said == _READY else "gone"
    if slot.state == "ready":
        log.info("worker %s serving", slot.process.pid)


def _hand_over(sock: socket.socket, slots: list[_Slot], turn: int) -> int:
    """Accept one waiting connection and hand it to the next ready worker from `turn` on;
    returns the turn after it. A worker that cannot take it is skipped: one that is gone is
    started again by the supervisor; one that does not read its channel (stuck) gets later
    connections again."""
    try:
        conn, _ = sock.accept()
    except (BlockingIOError, InterruptedError, ConnectionAbortedError):
        return turn
    with conn:
        for step in range(len(slots)):
            slot = slots[(turn + step) % len(slots)]
            if slot.state != "ready":
                continue
            try:
                socket.send_fds(slot.channel, [b"c"], [conn.fileno()])
            except OSError as exc:
                log.warning("worker %s did not take a connection: %s", slot.process.pid, exc)
                if not isinstance(exc, TimeoutError):
                    slot.state = "gone"
                continue
            return (turn + step + 1) % len(slots)
        log.error("no worker could take a connection; it is closed")
    return turn
