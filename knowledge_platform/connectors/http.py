"""The one HTTP client and retry policy of every API connector: timeouts; bounded retries with
jittered exponential backoff on 5xx, timeouts and dropped connections; 429 waits computed from
the response headers (Retry-After, the rate-limit reset headers); pacing from
`X-RateLimit-Remaining` so a nearly spent window is waited out before a 429 happens; a cap on
the total time one request may spend waiting; one-line SourceErrors."""

from __future__ import annotations

import email.utils
import functools
import json
import logging
import random
import ssl
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any

import httpx
from pydantic import Field

from knowledge_platform.connectors.base import Connector, SourceSettings
from knowledge_platform.connectors.cursor import C
from knowledge_platform.errors import ConfigError, FileTooLargeError, SourceError
from knowledge_platform.redact import redact, remember_headers

log = logging.getLogger(__name__)

#: (429 response, now as unix seconds) -> seconds to wait, or None when the headers don't say.
RateLimitWait = Callable[[httpx.Response, float], "float | None"]
#: True for a non-429 answer that means "slow down" (Drive's 403 rateLimitExceeded).
SlowDown = Callable[[httpx.Response], bool]
#: True for an answer that refuses the credential itself (a revoked token), not one item.
Refused = Callable[[httpx.Response], bool]
Params = httpx.QueryParams | Mapping[str, Any] | list[tuple[str, Any]] | None

_RETRY_STATUSES = frozenset({500, 502, 503, 504, 520, 522, 524})
#: 429s one request tolerates (each waits as told) before it fails.
_MAX_RATE_LIMITED = 20
_RETRY_ERRORS = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
#: Headers that described the body as it came over the wire; a capped read has decoded it.
_WIRE_HEADERS = ("content-encoding", "content-length", "transfer-encoding")
_MB = 1024 * 1024


class CredentialRefused(SourceError):
    """The source refused the credential itself (revoked, expired, wrong): the whole run fails
    and changes nothing, whichever request it happened on — never one failed item."""


class HttpSettings(SourceSettings):
    """Transport knobs every HTTP connector shares (registry keys next to the source's own)."""

    timeout_seconds: float = Field(default=30.0, gt=0)
    max_retries: int = Field(default=4, ge=0, le=10)
    #: Most one request may sleep in total (backoffs and rate-limit waits) before it fails.
    max_wait_seconds: float = Field(default=180.0, ge=0)
    #: First retry's backoff; each further retry doubles it (with jitter), up to 30 s.
    backoff_seconds: float = Field(default=0.5, ge=0, le=60)


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """Loading the CA bundle costs ~100 ms; every client of the process shares one context."""
    return httpx.create_ssl_context()


def retry_after_wait(response: httpx.Response, now: float) -> float | None:
    """Generic `Retry-After`: delta seconds or an HTTP date."""
    value = response.headers.get("Retry-After", "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now)


def ratelimit_reset_wait(response: httpx.Response, now: float) -> float | None:
    """ClickUp style: `X-RateLimit-Reset` is the unix time (seconds) the window reopens."""
    value = response.headers.get("X-RateLimit-Reset", "").strip()
    try:
        reset = float(value)
    except ValueError:
        return retry_after_wait(response, now)
    if reset > 1e11:  # someone sent milliseconds
        reset /= 1000.0
    return max(0.0, reset - now)


def pace_wait(response: httpx.Response, now: float) -> float:
    """Seconds to wait before the next request so the rate-limit window is not overrun:
    with `X-RateLimit-Remaining` at 0, until the window resets; nearly spent (under 5% of
    `X-RateLimit-Limit`, at most 2 left), the rest of the window spread over what is left.
    0 when the response does not say (most APIs do not)."""
    remaining = _header_number(response, "X-RateLimit-Remaining")
    if remaining is None:
        return 0.0
    reset_at = _header_number(response, "X-RateLimit-Reset")
    if reset_at is not None:
        reset = (reset_at / 1000.0 if reset_at > 1e11 else reset_at) - now
    else:  # IETF RateLimit headers: seconds until the window resets
        reset = _header_number(response, "RateLimit-Reset") or 0.0
    if reset <= 0:
        return 0.0
    limit = _header_number(response, "X-RateLimit-Limit") or 0.0
    if remaining <= 0:
        return reset
    if remaining <= min(2.0, max(1.0, limit * 0.05)):
        return reset / (remaining + 1)
    return 0.0


def _header_number(response: httpx.Response, name: str) -> float | None:
    try:
        return float(response.headers.get(name, "").strip())
    except ValueError:
        return None


def describe_body(response: httpx.Response, limit: int = 200) -> str:
    """A short, single-line account of an error body; knows the PostgREST, ClickUp and
    Google (`{"error": {"message", "errors": [{"reason"}]}}`) shapes. A credential the
    request carried (or any secret the process holds) is masked: some servers repeat it."""
    try:
        data = response.json()
    except ValueError:
        data = None
    if isinstance(data, dict):
        if "message" in data and ("code" in data or "hint" in data or "details" in data):
            parts = [str(data.get("code") or ""), str(data["message"])]
            if data.get("details"):
                parts.append(f"details: {data['details']}")
            if data.get("hint"):
                parts.append(f"hint: {data['hint']}")
            text = " ".join(p for p in parts if p)
        elif "err" in data:
            code = data.get("ECODE")
            text = f"{data['err']} ({code})" if code else str(data["err"])
        elif isinstance(data.get("error"), dict) and "message" in data["error"]:
            errors = data["error"].get("errors") or [{}]
            reason = errors[0].get("reason") if isinstance(errors[0], dict) else None
            text = f"{reason}: {data['error']['message']}" if reason else data["error"]["message"]
        else:
            text = json.dumps(data)
    else:
        text = response.text
    text = " ".join(redact(text).split())  # before cutting: a cut secret would not be found
    return text if len(text) <= limit else text[: limit - 1] + "…"


class HttpClient:
    """Counts every request it sends (`requests`), retries what is worth retrying, raises
    SourceError with `<source>: <METHOD> <path> <what happened>` on final failure."""

    def __init__(
        self,
        source: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        max_retries: int = 4,
        backoff_seconds: float = 0.5,
        max_backoff_seconds: float = 30.0,
        max_wait_seconds: float = 180.0,
        rate_limit_wait: RateLimitWait = retry_after_wait,
        slow_down: SlowDown | None = None,
        refused: Refused | None = None,
        auth_hint: str = "",
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        transport: httpx.BaseTransport | None = None,
        follow_redirects: bool = False,
    ) -> None:
        self.source = source
        self.max_retries = max_retries
        self.backoff_seconds = backoff_seconds
        self.max_backoff_seconds = max_backoff_seconds
        self.max_wait_seconds = max_wait_seconds
        self.rate_limit_wait = rate_limit_wait
        self.slow_down = slow_down
        self.refused = refused
        #: The first refusal of the credential; every later request raises it unsent.
        self.refusal: CredentialRefused | None = None
        self.auth_hint = auth_hint
        self.sleep = sleep
        self.clock = clock
        self.requests = 0
        #: Monotonic-free pacing: no request is sent before this clock() time.
        self._not_before = 0.0
        remember_headers(headers)  # no message will show them, whatever a server repeats
        self._client = httpx.Client(
            headers=dict(headers or {}),
            timeout=httpx.Timeout(timeout),
            verify=_ssl_context(),
            transport=transport,
            follow_redirects=follow_redirects,
        )

    @classmethod
    def from_settings(cls, source: str, settings: HttpSettings, **kwargs: Any) -> HttpClient:
        return cls(
            source,
            timeout=settings.timeout_seconds,
            max_retries=settings.max_retries,
            max_wait_seconds=settings.max_wait_seconds,
            backoff_seconds=settings.backoff_seconds,
            **kwargs,
        )

    def __enter__(self) -> HttpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def request(
        self,
        method: str,
        url: str,
        *,
        params: Params = None,
        headers: Mapping[str, str] | None = None,
        allow: Collection[int] = (),
        content: bytes | None = None,
        max_bytes: int | None = None,
    ) -> httpx.Response:
        """Send with retries. 2xx and the statuses in `allow` are returned; anything else
        (after the retries a 5xx/429 or a `slow_down` answer earns) raises SourceError.
        `max_bytes`: the body is streamed and a 2xx whose `Content-Length` or body passes it
        raises FileTooLargeError, having read at most that much (a file download)."""
        remember_headers(headers)
        if self.refusal is not None:
            raise self.refusal
        try:
            where = f"{method} {httpx.URL(url).path}"
        except httpx.InvalidURL as exc:
            raise SourceError(f"{self.source}: invalid URL {url!r}: {exc}") from None
        waited = 0.0
        failures = 0
        limited = 0
        attempts = 0
        while True:
            attempts += 1
            self.requests += 1
            pause = self._not_before - self.clock()
            if pause > 0:
                waited += self._pause(pause, waited, where, "rate-limit window nearly spent")
            try:
                if max_bytes is None:
                    response = self._client.request(
                        method, url, params=params, headers=headers, content=content
                    )
                else:
                    response = self._capped(
                        self._client.build_request(
                            method, url, params=params, headers=headers, content=content
                        ),
                        max_bytes,
                        where,
                    )
            except _RETRY_ERRORS as exc:
                failures += 1
                reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                if failures > self.max_retries:
                    raise SourceError(
                        f"{self.source}: {where} failed after {attempts} attempts: {reason}"
                    ) from None
                waited += self._pause(self._backoff(failures), waited, where, reason)
                continue
            except httpx.HTTPError as exc:
                raise SourceError(f"{self.source}: {where} failed: {exc}") from None
            status = response.status_code
            self._not_before = self.clock() + pace_wait(response, self.clock())
            if self.refused is not None and self.refused(response):
                self.refusal = CredentialRefused(self._failure(response, where, attempts))
                raise self.refusal
            slow = self.slow_down is not None and self.slow_down(response)
            if 200 <= status < 300 or (status in allow and not slow):
                return response
            if (status == 429 or slow) and limited < _MAX_RATE_LIMITED:
                limited += 1
                wait = self.rate_limit_wait(response, self.clock())
                wait = self._backoff(limited) if wait is None else wait
                waited += self._pause(wait, waited, where, f"HTTP {status} rate limited")
                continue
            if status in _RETRY_STATUSES and failures < self.max_retries:
                failures += 1
                hinted = retry_after_wait(response, self.clock())
                wait = self._backoff(failures) if hinted is None else hinted
                waited += self._pause(wait, waited, where, f"HTTP {status}")
                continue
            raise SourceError(self._failure(response, where, attempts))

    def raise_if_refused(self) -> None:
        """Raises the credential refusal this client met, if any: a connector calls it at the
        end of a pull, so a refusal its sub-resource handlers recorded as one failed item
        still fails the run."""
        if self.refusal is not None:
            raise self.refusal

    def get(
        self,
        url: str,
        *,
        params: Params = None,
        headers: Mapping[str, str] | None = None,
        allow: Collection[int] = (),
        max_bytes: int | None = None,
    ) -> httpx.Response:
        return self.request(
            "GET", url, params=params, headers=headers, allow=allow, max_bytes=max_bytes
        )

    def _capped(self, request: httpx.Request, max_bytes: int, where: str) -> httpx.Response:
        """Send `request` streaming; a 2xx body past `max_bytes` is refused from its declared
        length, or as soon as the bytes read pass it (a server may send no length, or lie)."""
        response = self._client.send(request, stream=True)
        try:
            ok = 200 <= response.status_code < 300
            declared = _header_number(response, "Content-Length")
            if ok and declared is not None and declared > max_bytes:
                raise FileTooLargeError(
                    f"{where}: {declared / _MB:.1f} MB is over the "
                    f"{max_bytes / _MB:g} MB cap; not downloaded"
                )
            parts: list[bytes] = []
            total = 0
            for chunk in response.iter_bytes():
                total += len(chunk)
                if ok and total > max_bytes:
                    raise FileTooLargeError(
                        f"{where}: more than the {max_bytes / _MB:g} MB cap; download stopped"
                    )
                parts.append(chunk)
        finally:
            response.close()
        headers = [
            (k, v) for k, v in response.headers.multi_items() if k.lower() not in _WIRE_HEADERS
        ]
        return httpx.Response(
            response.status_code, headers=headers, content=b"".join(parts), request=request
        )

    def get_json(
        self, url: str, *, params: Params = None, headers: Mapping[str, str] | None = None
    ) -> Any:
        response = self.get(url, params=params, headers=headers)
        try:
            return response.json()
        except ValueError:
            body = describe_body(response, limit=80) or "empty body"
            raise SourceError(
                f"{self.source}: GET {response.url.path} returned malformed JSON "
                f"(HTTP {response.status_code}): {body}"
            ) from None

    def _backoff(self, failures: int) -> float:
        """Exponential, capped, with "equal jitter" (half fixed, half random) so clients that
        failed together do not retry together."""
        base = min(self.max_backoff_seconds, self.backoff_seconds * 2 ** max(0, failures - 1))
        return base / 2 + random.uniform(0, base / 2)

    def _pause(self, wait: float, waited: float, where: str, reason: str) -> float:
        if waited + wait > self.max_wait_seconds:
            raise SourceError(
                f"{self.source}: {where} gave up: {reason}; waiting {wait:.0f}s more would "
                f"exceed max_wait_seconds={self.max_wait_seconds:.0f} (waited {waited:.0f}s)"
            )
        log.warning("%s: %s: %s; retrying in %.1fs", self.source, where, reason, wait)
        if wait > 0:
            self.sleep(wait)
        return wait

    def _failure(self, response: httpx.Response, where: str, attempts: int) -> str:
        status = response.status_code
        tries = f" after {attempts} attempts" if attempts > 1 else ""
        body = describe_body(response) or "empty body"
        message = f"{self.source}: {where} failed with HTTP {status}{tries}: {body}"
        if status in (401, 403) and self.auth_hint:
            message += f"; {self.auth_hint}"
        return message


class HttpConnector(Connector[C]):
    """Base of the connectors that talk HTTP: keeps the settings typed and lets tests inject
    the sleep, the clock and an httpx transport (the production code path is unchanged)."""

    def __init__(
        self,
        settings: SourceSettings,
        scope: str,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        expected = self.settings_model
        if not isinstance(settings, expected):
            raise ConfigError(
                f"{self.name}: expected {expected.__name__}, got {type(settings).__name__}"
            )
        super().__init__(settings, scope)
        self._sleep, self._clock, self._transport = sleep, clock, transport
