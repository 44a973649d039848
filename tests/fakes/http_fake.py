"""Base of the fake source servers: a real werkzeug HTTP server on a free loopback port in a
background thread, a request log, and injectable failures (status, body, delay)."""

from __future__ import annotations

import json
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Self

from werkzeug.serving import BaseWSGIServer, make_server
from werkzeug.wrappers import Request, Response


@dataclass(frozen=True)
class LoggedRequest:
    method: str
    path: str
    args: dict[str, list[str]]
    headers: dict[str, str]
    status: int
    #: time.monotonic() when the request arrived (retry waits are the gaps between requests).
    at: float = 0.0

    def arg(self, name: str) -> str | None:
        values = self.args.get(name)
        return values[0] if values else None


@dataclass
class Injection:
    match: str
    status: int | None
    body: str
    headers: dict[str, str]
    times: int | None
    delay: float = 0.0
    used: int = field(default=0)


class FakeClock:
    """Shared by the fake and the connector under test: `sleep` moves time forward."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def slept_backoff(self, bases: list[float]) -> bool:
        """The sleeps were jittered exponential backoffs: each in [base/2, base]."""
        return len(self.sleeps) == len(bases) and all(
            b / 2 <= s <= b for s, b in zip(self.sleeps, bases, strict=True)
        )


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(data), status, headers, content_type="application/json")


class FakeServer:
    """Subclasses implement `handle(request)`; everything else is shared."""

    def __init__(self) -> None:
        self.log: list[LoggedRequest] = []
        self._injections: list[Injection] = []
        self._lock = threading.RLock()
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None
        #: Serve https with this context (a certificate from tests/fakes/tls.py) when set.
        self.tls: ssl.SSLContext | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> Self:
        self._server = make_server("127.0.0.1", 0, self._wsgi, threaded=True, ssl_context=self.tls)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def url(self, path: str = "") -> str:
        assert self._server is not None, "server not started"
        scheme = "https" if self.tls else "http"
        return f"{scheme}://127.0.0.1:{self._server.server_port}{path}"

    # -- test controls -----------------------------------------------------------------------
    def inject(
        self,
        match: str,
        status: int | None = 500,
        body: str | dict[str, Any] = "",
        *,
        times: int | None = 1,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> None:
        """The next `times` requests whose path contains `match` get this answer (None: forever).
        `status=None` only delays, then answers normally."""
        text = json.dumps(body) if isinstance(body, dict) else body
        with self._lock:
            self._injections.append(Injection(match, status, text, headers or {}, times, delay))

    def uninject(self, match: str) -> None:
        """Drop the injections made for `match` (e.g. one that answers forever)."""
        with self._lock:
            self._injections = [i for i in self._injections if i.match != match]

    def clear_injections(self) -> None:
        with self._lock:
            self._injections.clear()

    def requests(self, path_contains: str = "", method: str = "GET") -> list[LoggedRequest]:
        with self._lock:
            return [r for r in self.log if path_contains in r.path and r.method == method]

    def clear_log(self) -> None:
        with self._lock:
            self.log.clear()

    # -- serving -----------------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        raise NotImplementedError

    def _take_injection(self, path: str) -> Injection | None:
        with self._lock:
            for inj in self._injections:
                if inj.match in path and (inj.times is None or inj.used < inj.times):
                    inj.used += 1
                    return inj
        return None

    def _respond(self, request: Request) -> Response:
        inj = self._take_injection(request.path)
        if inj is not None:
            if inj.delay:
                time.sleep(inj.delay)
            if inj.status is not None:
                ctype = "application/json" if inj.body.startswith(("{", "[")) else "text/plain"
                return Response(inj.body, inj.status, inj.headers, content_type=ctype)
        return self.handle(request)

    def _wsgi(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        arrived = time.monotonic()
        try:
            response = self._respond(request)
        except Exception as exc:  # a bug in a fake must show up, not hang a test
            response = Response(f"fake server error: {exc!r}", 599)
        entry = LoggedRequest(
            method=request.method,
            path=request.path,
            args={k: request.args.getlist(k) for k in request.args},
            headers=dict(request.headers.items()),
            status=response.status_code,
            at=arrived,
        )
        with self._lock:
            self.log.append(entry)
        return response(environ, start_response)
