"""HttpClient downloads under a size cap (`max_bytes`): refused from the declared length
before the body is read, stopped as soon as an undeclared (or understated) body passes the
cap, decoded bodies kept whole under it, retries as for any request."""

from __future__ import annotations

import gzip
from collections.abc import Iterator

import httpx
import pytest

from knowledge_platform.connectors.http import HttpClient
from knowledge_platform.errors import FileTooLargeError

MB = 1024 * 1024


class Body(httpx.SyncByteStream):
    """A streamed body that counts the chunks the client pulled from it."""

    def __init__(self, chunks: int, size: int = 64 * 1024) -> None:
        self.chunks, self.size, self.pulled = chunks, size, 0

    def __iter__(self) -> Iterator[bytes]:
        for _ in range(self.chunks):
            self.pulled += 1
            yield b"x" * self.size


def client(handler) -> HttpClient:  # type: ignore[no-untyped-def]
    return HttpClient(
        "t", transport=httpx.MockTransport(handler), backoff_seconds=0.001, sleep=lambda _: None
    )


def test_a_declared_length_over_the_cap_is_refused_before_the_body_is_read() -> None:
    body = Body(chunks=32_768)  # 2 GB if it were read
    declared = {"Content-Length": str(2048 * MB)}
    http = client(lambda _: httpx.Response(200, headers=declared, stream=body))
    with pytest.raises(FileTooLargeError, match=r"2048\.0 MB is over the 1 MB cap"):
        http.get("http://files.test/big.pdf", max_bytes=MB)
    assert body.pulled == 0


def test_an_undeclared_body_stops_one_chunk_past_the_cap() -> None:
    body = Body(chunks=1000)
    http = client(lambda _: httpx.Response(200, stream=body))
    with pytest.raises(FileTooLargeError, match="more than the 1 MB cap"):
        http.get("http://files.test/big.pdf", max_bytes=MB)
    assert body.pulled == 17  # 16 chunks of 64 KB make the cap; the 17th passes it


def test_a_body_under_the_cap_comes_back_decoded_with_its_headers() -> None:
    text = b"%PDF-1.7 " + b"a" * 5000
    headers = {"Content-Encoding": "gzip", "ETag": '"v1"', "Content-Type": "application/pdf"}
    http = client(lambda _: httpx.Response(200, headers=headers, content=gzip.compress(text)))
    response = http.get("http://files.test/small.pdf", max_bytes=MB)
    assert response.content == text and response.headers["ETag"] == '"v1"'
    assert response.headers["Content-Type"] == "application/pdf"


def test_capped_requests_retry_and_pass_allowed_statuses_through() -> None:
    answers = iter([httpx.Response(503), httpx.Response(404, content=b"gone")])
    http = client(lambda _: next(answers))
    response = http.get("http://files.test/gone.pdf", max_bytes=10, allow=(404,))
    assert response.status_code == 404 and response.content == b"gone" and http.requests == 2
