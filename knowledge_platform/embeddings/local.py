"""all-MiniLM-L6-v2 run by onnxruntime over the packaged weights: no torch, no hub download."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.embeddings.onnx_builder import MODEL_NAME, ensure_models

WINDOW_TOKENS = 256


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class LocalOnnxEmbedder(Embedder):
    """Sentence embeddings from all-MiniLM-L6-v2 (384-d), int8-quantized by default.

    The first use on a machine builds the ONNX files under `cache_dir` (about 10 s); later
    constructions load them. Texts longer than 256 word-pieces (including [CLS] and [SEP]) are
    truncated, as sentence-transformers does; chunk to `window_tokens` with `count_tokens`.
    Documents are sorted by length and embedded in batches of `batch_size`, so each batch is
    padded only to its own longest text.
    """

    dim = 384
    window_tokens = WINDOW_TOKENS

    def __init__(
        self,
        cache_dir: Path,
        *,
        quantized: bool = True,
        batch_size: int = 32,
        threads: int | None = None,
    ) -> None:
        super().__init__()
        files = ensure_models(Path(cache_dir))
        self.model_id = f"{MODEL_NAME}-int8" if quantized else MODEL_NAME
        self.batch_size = batch_size
        self._tokenizer = Tokenizer.from_file(str(files.tokenizer))
        # tokenizer.json ships 128-token truncation and fixed padding; we truncate to the model's
        # 256 and pad each batch ourselves to its longest text.
        self._tokenizer.enable_truncation(max_length=WINDOW_TOKENS)
        self._tokenizer.no_padding()
        self._counter = Tokenizer.from_file(str(files.tokenizer))
        self._counter.no_truncation()
        self._counter.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or _cpu_count()
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        model_file = files.int8 if quantized else files.fp32
        self._session = ort.InferenceSession(
            str(model_file), options, providers=["CPUExecutionProvider"]
        )

    def count_tokens(self, text: str) -> int:
        """Word-pieces the model would read, including [CLS] and [SEP], without truncation.

        So `count_tokens(text) <= window_tokens` means the model sees all of `text`.
        """
        return len(self._counter.encode(text).ids)

    def _embed(self, texts: list[str], *, is_query: bool) -> np.ndarray:
        pieces = [e.ids for e in self._tokenizer.encode_batch(texts)]
        order = sorted(range(len(texts)), key=lambda i: len(pieces[i]))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._run([pieces[i] for i in idx])
        return out

    def _run(self, pieces: list[list[int]]) -> np.ndarray:
        width = max(len(p) for p in pieces)
        ids = np.zeros((len(pieces), width), dtype=np.int64)  # 0 is [PAD]
        mask = np.zeros((len(pieces), width), dtype=np.int64)
        for row, p in enumerate(pieces):
            ids[row, : len(p)] = p
            mask[row, : len(p)] = 1
        (vectors,) = self._session.run(
            ["sentence_embedding"], {"input_ids": ids, "attention_mask": mask}
        )
        return np.asarray(vectors, dtype=np.float32)
