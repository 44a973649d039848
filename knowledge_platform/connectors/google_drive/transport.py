"""Google's answers as the platform's one HTTP client sees them.

Every request — Drive, Sheets, Slides and google-auth's token exchange (`AuthTransport`) —
goes through `HttpClient`, so Drive has the same retries, Retry-After handling, waiting caps
and request count as every other connector. Drive's 403 `rateLimitExceeded` /
`userRateLimitExceeded` is waited out like a 429 (`rate_limited`, HttpClient's `slow_down`);
any other 3xx/4xx comes back to the caller (`PASS_THROUGH`); a 5xx or 429 that outlasts the
retries raises SourceError.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx
from google.auth import transport

from knowledge_platform.connectors.http import HttpClient

#: 403 reasons that mean "slow down", not "forbidden" (Drive's usage limits).
RATE_LIMIT_REASONS = frozenset({"rateLimitExceeded", "userRateLimitExceeded"})
#: Statuses handed back as they are; 429 and 5xx are retried by HttpClient and never come back.
PASS_THROUGH = frozenset(range(300, 500)) - {429}


def error_detail(body: bytes | str) -> tuple[str, str] | None:
    """(first reason, message) of Google's `{"error": {...}}` body, or None for another."""
    try:
        error = json.loads(body)["error"]
        errors = error.get("errors") or [{}]
        return (
            str(errors[0].get("reason") or error.get("status") or ""),
            str(error.get("message") or ""),
        )
    except (ValueError, KeyError, TypeError, AttributeError, IndexError):
        return None


def rate_limited(response: httpx.Response) -> bool:
    detail = error_detail(response.content)
    return response.status_code == 403 and detail is not None and (detail[0] in RATE_LIMIT_REASONS)


class _AuthResponse(transport.Response):
    def __init__(self, response: httpx.Response) -> None:
        self._response = response

    @property
    def status(self) -> int:
        return self._response.status_code

    @property
    def headers(self) -> Mapping[str, str]:
        return self._response.headers

    @property
    def data(self) -> bytes:
        return self._response.content


class AuthTransport(transport.Request):
    """google-auth's transport interface over `HttpClient`: the token endpoint's answers
    (an OAuth error is a 400 or 401) reach google-auth, which raises RefreshError."""

    def __init__(self, client: HttpClient) -> None:
        self.client = client

    def __call__(
        self,
        url: str,
        method: str = "GET",
        body: bytes | str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> transport.Response:
        content = body.encode() if isinstance(body, str) else body
        return _AuthResponse(
            self.client.request(method, url, headers=headers, content=content, allow=PASS_THROUGH)
        )
