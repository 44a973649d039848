"""The embedding provider interface: every provider, local or remote, looks like this."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np


class Embedder(ABC):
    """Dense text embeddings with a fixed model id and dimension.

    `texts_embedded` counts every text sent to the model since construction, so callers
    (asset metadata, benchmarks, tests) can prove an unchanged chunk was not embedded again.
    """

    model_id: str
    dim: int
    #: The model's input window in its own tokens; chunks are sized to fit it.
    window_tokens: int

    def __init__(self) -> None:
        self.texts_embedded = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 array of shape (len(texts), dim)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._embed(list(texts), is_query=False)
        self.texts_embedded += len(texts)
        return vectors

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([text], is_query=True)[0]

    @abstractmethod
    def _embed(self, texts: list[str], *, is_query: bool) -> np.ndarray: ...

    @abstractmethod
    def count_tokens(self, text: str) -> int:
        """Tokens of `text` in the model's own tokenizer (offline)."""

    def close(self) -> None:  # noqa: B027 - a local model holds nothing to release
        """Release connections (a remote provider's HTTP client)."""
