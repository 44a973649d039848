"""Build the configured embedding provider by name: "local", "openai" or "hash" (tests only)."""

from __future__ import annotations

from pathlib import Path

from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.errors import ConfigError

PROVIDERS = ("local", "openai", "hash")


def make_embedder(
    provider: str,
    *,
    model: str | None = None,
    cache_dir: Path,
    api_key: str | None = None,
    base_url: str | None = None,
    timeout_s: float = 60.0,
    max_retries: int = 5,
    batch_size: int = 100,
    threads: int | None = None,
) -> Embedder:
    """`model` picks a variant: local "all-MiniLM-L6-v2-int8" (default) or "all-MiniLM-L6-v2"
    (fp32); an OpenAI model name (default text-embedding-3-small). `cache_dir` holds the built
    local model files; `timeout_s`, `max_retries` and `batch_size` apply to the OpenAI provider,
    `threads` (ONNX threads per call; None: every CPU) to the local one."""
    if provider == "local":
        from knowledge_platform.embeddings.local import LocalOnnxEmbedder
        from knowledge_platform.embeddings.onnx_builder import MODEL_NAME

        variants = {f"{MODEL_NAME}-int8": True, MODEL_NAME: False}
        name = model or f"{MODEL_NAME}-int8"
        if name not in variants:
            raise ConfigError(
                f"unknown local embedding model {name!r}; choose one of {sorted(variants)}"
            )
        return LocalOnnxEmbedder(cache_dir, quantized=variants[name], threads=threads)
    if provider == "openai":
        from knowledge_platform.embeddings.openai import DEFAULT_MODEL, KNOWN_DIMS, OpenAIEmbedder

        if not api_key:
            raise ConfigError("embedding provider 'openai' needs an API key; set OPENAI_API_KEY")
        name = model or DEFAULT_MODEL
        if name not in KNOWN_DIMS:
            raise ConfigError(
                f"unknown OpenAI embedding model {name!r}; choose one of {sorted(KNOWN_DIMS)}"
            )
        return OpenAIEmbedder(
            api_key,
            model=name,
            base_url=base_url,
            timeout_s=timeout_s,
            max_retries=max_retries,
            batch_size=batch_size,
        )
    if provider == "hash":
        from knowledge_platform.embeddings.deterministic import HashEmbedder

        return HashEmbedder()
    raise ConfigError(f"unknown embedding provider {provider!r}; choose one of {list(PROVIDERS)}")
