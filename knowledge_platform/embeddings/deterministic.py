"""A deterministic embedder for UNIT TESTS ONLY. Its vectors carry no meaning beyond word overlap.

Never configure it for a real index: it exists so tests run without a model, a network or a
build step, and produce the same vectors on every machine.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from knowledge_platform.embeddings.base import Embedder

_WORD = re.compile(r"\w+")


class HashEmbedder(Embedder):
    """Hashed bag of words (signed feature hashing) into `dim` buckets, L2-normalised.

    Texts sharing words get a high cosine; texts sharing none are near orthogonal. A text with
    no words maps to a fixed unit vector. `count_tokens` counts words.
    """

    window_tokens = 512

    def __init__(self, dim: int = 64) -> None:
        super().__init__()
        self.dim = dim
        self.model_id = f"test-hash-bow-{dim}"

    def count_tokens(self, text: str) -> int:
        return len(_WORD.findall(text))

    def _embed(self, texts: list[str], *, is_query: bool) -> np.ndarray:
        return np.stack([self._vector(t) for t in texts])

    def _vector(self, text: str) -> np.ndarray:
        vec = np.zeros(self.dim, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            vec[value % self.dim] += 1.0 if (value >> 32) & 1 else -1.0
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            vec[0] = 1.0
            return vec
        return vec / norm
