"""OpenAIEmbedder against a local fake of the OpenAI API (real HTTP on a loopback port)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator

import numpy as np
import pytest

from knowledge_platform.config.registry import Registry
from knowledge_platform.embeddings.factory import make_embedder
from knowledge_platform.embeddings.openai import OpenAIEmbedder
from knowledge_platform.errors import EmbeddingError
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from tests.fakes.openai_server import FakeOpenAI, fake_vector

pytestmark = pytest.mark.integration

KEY = "sk-test-fake"


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(KEY) as server:
        yield server


def embedder(fake: FakeOpenAI, **kwargs: object) -> OpenAIEmbedder:
    options: dict = {"base_url": fake.base_url, **kwargs}
    return OpenAIEmbedder(KEY, **options)


def test_vectors_keep_input_order_in_batches_of_100(fake: FakeOpenAI) -> None:
    texts = [f"chunk number {i} about topic {i % 7}" for i in range(250)]
    emb = embedder(fake)
    vectors = emb.embed_documents(texts)
    assert fake.embedding_batches == [100, 100, 50]
    assert vectors.shape == (250, 1536)
    expected = np.stack([fake_vector(t, 1536) for t in texts])
    assert np.allclose(vectors, expected, atol=1e-6)  # the fake answers in reverse order
    assert emb.texts_embedded == 250
    assert fake.embedding_bodies[0]["model"] == "text-embedding-3-small"
    assert "dimensions" not in fake.embedding_bodies[0]


def test_query_and_reduced_dimension(fake: FakeOpenAI) -> None:
    emb = embedder(fake, dim=256)
    assert emb.model_id == "text-embedding-3-small@256"
    vector = emb.embed_query("what is the refund policy")
    assert vector.shape == (256,)
    assert fake.embedding_bodies[-1]["dimensions"] == 256
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5


def test_empty_text_is_sent_as_a_space(fake: FakeOpenAI) -> None:
    vectors = embedder(fake).embed_documents(["", "real text"])
    assert np.allclose(vectors[0], fake_vector(" ", 1536), atol=1e-6)


def retries(fake: FakeOpenAI) -> list[str]:
    """The SDK's retry number on each embeddings request the fake answered."""
    return [
        r.headers.get("X-Stainless-Retry-Count", "?")
        for r in fake.requests("/v1/embeddings", "POST")
    ]


def test_429_waits_as_retry_after_says_then_succeeds(fake: FakeOpenAI) -> None:
    fake.rate_limit(
        2,
        {
            "retry-after-ms": "150",
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "150ms",
        },
    )
    vectors = embedder(fake).embed_documents(["a", "b"])
    assert vectors.shape == (2, 1536)
    logged = fake.requests("/v1/embeddings", "POST")
    assert [r.status for r in logged] == [429, 429, 200]
    assert retries(fake) == ["0", "1", "2"]
    gaps = [b.at - a.at for a, b in itertools.pairwise(logged)]
    assert all(gap >= 0.15 for gap in gaps), gaps  # waited as told, not the SDK's own backoff


def test_retry_after_header_is_really_slept(fake: FakeOpenAI) -> None:
    fake.rate_limit(1, {"retry-after": "0.15"})
    started = time.monotonic()
    embedder(fake).embed_documents(["x"])
    assert time.monotonic() - started >= 0.15


def test_gives_up_after_bounded_retries(fake: FakeOpenAI) -> None:
    fake.rate_limit(10)
    emb = embedder(fake, max_retries=3)
    with pytest.raises(
        EmbeddingError, match=r"failed: HTTP 429 after 4 attempts: Rate limit reached"
    ):
        emb.embed_documents(["x"])
    assert retries(fake) == ["0", "1", "2", "3"]
    assert emb.texts_embedded == 0


def test_server_errors_are_retried(fake: FakeOpenAI) -> None:
    fake.server_error(2, status=503)
    vectors = embedder(fake).embed_documents(["x", "y"])
    assert vectors.shape == (2, 1536)
    assert [r.status for r in fake.requests("/v1/embeddings", "POST")] == [503, 503, 200]


def test_timeouts_are_retried_then_reported(fake: FakeOpenAI) -> None:
    fake.inject("/v1/embeddings", None, delay=0.5, times=None)
    emb = embedder(fake, timeout_s=0.1, max_retries=1)
    with pytest.raises(
        EmbeddingError,
        match=r"^OpenAI embeddings failed: timed out after 2 "
        r"attempts$",
    ):
        emb.embed_documents(["x"])


def test_too_long_a_wait_fails_at_once(fake: FakeOpenAI) -> None:
    fake.rate_limit(1, {"retry-after": "3600"})
    with pytest.raises(EmbeddingError, match=r"HTTP 429 after 1 attempt: .*wait 3600 s"):
        embedder(fake).embed_documents(["x"])
    assert len(fake.requests("/v1/embeddings", "POST")) == 1


def test_bad_key_is_an_auth_error(fake: FakeOpenAI) -> None:
    emb = OpenAIEmbedder("sk-wrong", base_url=fake.base_url)
    with pytest.raises(
        EmbeddingError,
        match=r"HTTP 401 after 1 attempt: Incorrect API key.*"
        r"check the API key",
    ):
        emb.embed_documents(["x"])
    assert len(fake.requests("/v1/embeddings", "POST")) == 1  # not retried


def test_bad_request_is_not_retried(fake: FakeOpenAI) -> None:
    fake.inject(
        "/v1/embeddings",
        400,
        {
            "error": {
                "message": "'$.input' is invalid",
                "type": "invalid_request_error",
                "code": None,
            }
        },
    )
    with pytest.raises(EmbeddingError, match=r"HTTP 400 after 1 attempt: '\$.input' is invalid"):
        embedder(fake).embed_documents(["x"])
    assert len(fake.requests("/v1/embeddings", "POST")) == 1


def test_fake_enforces_the_input_limit(fake: FakeOpenAI) -> None:
    emb = embedder(fake, batch_size=3000)
    with pytest.raises(EmbeddingError, match=r"HTTP 400 .*2048"):
        emb.embed_documents(["t"] * 2049)


def test_factory_builds_openai_against_the_fake(fake: FakeOpenAI, tmp_path) -> None:
    emb = make_embedder(
        "openai", model=None, cache_dir=tmp_path, api_key=KEY, base_url=fake.base_url
    )
    assert (emb.model_id, emb.dim, emb.window_tokens) == ("text-embedding-3-small", 1536, 8191)
    assert emb.embed_query("hello").shape == (1536,)


def test_registry_sets_timeout_retries_and_batch(
    fake: FakeOpenAI, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = Registry.model_validate(
        {
            "embedding": {
                "provider": "openai",
                "base_url": fake.base_url,
                "api_key_env": "KP_TEST_OPENAI",
                "timeout_seconds": 2.5,
                "max_retries": 0,
                "batch_size": 7,
            }
        }
    )
    monkeypatch.setenv("KP_TEST_OPENAI", KEY)
    runtime = Runtime(Settings.model_validate({"KP_HOME": str(tmp_path)}), registry=registry)
    emb = runtime.embedder
    assert (emb.max_retries, emb.batch_size) == (0, 7)
    assert emb._client.timeout == 2.5
    emb.embed_documents([f"text {i}" for i in range(15)])
    assert fake.embedding_batches == [7, 7, 1]
    fake.server_error(1)
    with pytest.raises(EmbeddingError, match="after 1 attempt:"):  # no retries: fails at once
        emb.embed_documents(["one more"])
    runtime.close()


def test_count_tokens_offline_cl100k() -> None:
    emb = OpenAIEmbedder(KEY, base_url="http://127.0.0.1:9/v1")
    assert emb.count_tokens("hello world") == 2
    assert emb.count_tokens("<|endoftext|>") > 1  # special-token text is counted as text
    long = "word " * 9000
    assert emb._fit(long)[1] == emb.window_tokens


def test_chat_completions_fake(fake: FakeOpenAI) -> None:
    import httpx

    fake.chat_answer = lambda messages: f"echo: {messages[-1]['content']}"
    response = httpx.post(
        f"{fake.base_url}/chat/completions",
        headers={"Authorization": f"Bearer {KEY}"},
        json={"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]},
    )
    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"] == "echo: hi"
    assert fake.chat_requests[0]["messages"][0]["content"] == "hi"
