"""google-api-python-client over the platform's one HTTP client.

googleapiclient (and google-auth-httplib2's AuthorizedHttp, which adds the bearer token and
refreshes it on a 401) talk to an object with httplib2's `request()`. `HttplibBridge` is that
object: every request — Drive, Sheets, Slides and the OAuth token exchange — goes through
`HttpClient`, so Drive has the same retries, Retry-After handling, waiting caps and request
count as every other connector. Drive's 403 `rateLimitExceeded` / `userRateLimitExceeded`
is waited out like a 429 (`slow_down`); any other 4xx comes back to googleapiclient, which
raises its HttpError; a 5xx or 429 that outlasts the retries raises SourceError.
"""

from __future__ import annotations

import json
from typing import Any

import httplib2
import httpx

from knowledge_platform.connectors.http import HttpClient

#: 403 reasons that mean "slow down", not "forbidden" (Drive's usage limits).
RATE_LIMIT_REASONS = frozenset({"rateLimitExceeded", "userRateLimitExceeded"})
#: Statuses handed back to googleapiclient / google-auth as they are; 429 and 5xx are
#: retried by HttpClient and never come back.
_PASS_THROUGH = frozenset(range(300, 500)) - {429}
#: httpx has already decoded the body; these would mislead a reader of the raw bytes.
_DROPPED = frozenset({"content-encoding", "content-length", "transfer-encoding"})


def error_reason(body: bytes | str) -> str:
    """The first `reason` of Google's JSON error body, or ""."""
    try:
        errors = json.loads(body)["error"].get("errors") or [{}]
        return str(errors[0].get("reason") or "")
    except (ValueError, KeyError, TypeError, AttributeError, IndexError):
        return ""


def rate_limited(response: httpx.Response) -> bool:
    return response.status_code == 403 and error_reason(response.content) in RATE_LIMIT_REASONS


class HttplibBridge:
    """An httplib2.Http stand-in that sends through `HttpClient`."""

    follow_redirects = False
    redirect_codes = frozenset()

    def __init__(self, client: HttpClient) -> None:
        self.client = client
        self.connections: dict[str, Any] = {}
        self.timeout = None
        #: While set, a 2xx body past this many bytes raises FileTooLargeError (a download).
        self.max_bytes: int | None = None

    def request(
        self,
        uri: str,
        method: str = "GET",
        body: bytes | str | None = None,
        headers: dict[str, str] | None = None,
        redirections: int = 0,
        connection_type: Any = None,
        **kwargs: Any,
    ) -> tuple[httplib2.Response, bytes]:
        content = body.encode() if isinstance(body, str) else body
        response = self.client.request(
            method, uri, headers=headers, content=content, allow=_PASS_THROUGH,
            max_bytes=self.max_bytes,
        )
        info = {k.lower(): v for k, v in response.headers.items() if k.lower() not in _DROPPED}
        info["status"] = str(response.status_code)
        resp = httplib2.Response(info)
        resp.reason = response.reason_phrase
        return resp, response.content

    def close(self) -> None:
        self.client.close()
