"""HttpClient's hooks for APIs that throttle without a 429 (Drive answers 403
rateLimitExceeded), request bodies (an OAuth token exchange), and Google's error shape."""

from __future__ import annotations

import json

import httpx
import pytest
from werkzeug.wrappers import Request, Response

from knowledge_platform.connectors.http import HttpClient
from knowledge_platform.errors import SourceError
from tests.fakes.http_fake import FakeClock, FakeServer


class Echo(FakeServer):
    def handle(self, request: Request) -> Response:
        return Response(request.get_data() or b"ok", 200)


def _google_error(status: int, reason: str) -> dict:
    return {
        "error": {
            "code": status,
            "message": "Slow down.",
            "errors": [{"domain": "usageLimits", "reason": reason}],
        }
    }


def _slow(response: httpx.Response) -> bool:
    return response.status_code == 403 and "RateLimitExceeded" in response.text


def test_a_slow_down_answer_is_waited_out_like_a_429() -> None:
    clock = FakeClock()
    with Echo() as server:
        server.inject("/x", 403, _google_error(403, "userRateLimitExceeded"), times=2)
        client = HttpClient(
            "drive", slow_down=_slow, sleep=clock.sleep, clock=clock, backoff_seconds=1.0
        )
        response = client.get(server.url("/x"), allow=range(400, 429))
    assert response.status_code == 200 and client.requests == 3
    assert clock.slept_backoff([1.0, 2.0])


def test_other_allowed_statuses_come_back_unretried() -> None:
    with Echo() as server:
        server.inject("/x", 403, _google_error(403, "cannotExportFile"))
        client = HttpClient("drive", slow_down=_slow, sleep=FakeClock().sleep)
        response = client.get(server.url("/x"), allow=range(400, 429))
    assert response.status_code == 403 and client.requests == 1


def test_without_the_hook_a_403_is_a_failure_with_googles_reason() -> None:
    with Echo() as server:
        server.inject("/x", 403, _google_error(403, "userRateLimitExceeded"))
        client = HttpClient("drive", sleep=FakeClock().sleep)
        with pytest.raises(SourceError, match=r"HTTP 403: userRateLimitExceeded: Slow down\.$"):
            client.get(server.url("/x"))


def test_a_request_body_is_sent() -> None:
    with Echo() as server:
        client = HttpClient("drive")
        body = json.dumps({"grant_type": "refresh_token"}).encode()
        assert client.request("POST", server.url("/token"), content=body).content == body
