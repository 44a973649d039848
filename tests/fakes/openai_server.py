"""A fake of the OpenAI API on a real loopback port: POST /v1/embeddings and
POST /v1/chat/completions, bearer auth, the API's error shape and limits, and injectable rate
limiting (429 + rate-limit headers) or server errors.

Embeddings are deterministic: a unit vector seeded by the SHA-256 of the input text, so equal
texts get equal vectors and tests can recompute them with `fake_vector`.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from werkzeug.wrappers import Request, Response

from tests.fakes.http_fake import FakeServer, json_response

MODEL_DIMS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
MAX_INPUTS = 2048


def fake_vector(text: str, dim: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    vec = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return vec / np.linalg.norm(vec)


def error_body(
    message: str, type_: str, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


class FakeOpenAI(FakeServer):
    """`base_url` is what a client takes (".../v1"). `embedding_batches` records the number of
    inputs of every successful embeddings request; `chat_requests` the JSON bodies of chat calls.
    `chat_answer` is a string or a function of the request's messages."""

    def __init__(self, api_key: str = "sk-test-fake") -> None:
        super().__init__()
        self.api_key = api_key
        self.embedding_batches: list[int] = []
        self.embedding_bodies: list[dict[str, Any]] = []
        self.chat_requests: list[dict[str, Any]] = []
        self.chat_answer: str | Callable[[list[dict[str, Any]]], str] = "A fake answer [1]."
        self.shuffle = True  # answer data items in reverse order: clients must use `index`
        self._body_lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return self.url("/v1")

    # -- failure modes ---------------------------------------------------------------------
    def rate_limit(
        self, times: int, headers: dict[str, str] | None = None, path: str = "/v1/"
    ) -> None:
        """The next `times` requests answer 429 with these headers (default: retry after 10 ms)."""
        hdrs = (
            headers
            if headers is not None
            else {
                "retry-after-ms": "10",
                "x-ratelimit-remaining-requests": "0",
                "x-ratelimit-reset-requests": "10ms",
            }
        )
        body = error_body(
            "Rate limit reached for requests. Please try again later.",
            "requests",
            "rate_limit_exceeded",
        )
        self.inject(path, 429, body, times=times, headers=hdrs)

    def server_error(self, times: int, status: int = 500, path: str = "/v1/") -> None:
        body = error_body("The server had an error while processing your request.", "server_error")
        self.inject(path, status, body, times=times)

    # -- serving -----------------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        auth = request.headers.get("Authorization", "")
        if auth != f"Bearer {self.api_key}":
            shown = auth.removeprefix("Bearer ")[-4:] or "(none)"
            return json_response(
                error_body(
                    f"Incorrect API key provided: ...{shown}. You can find your API key in your "
                    "account settings.",
                    "invalid_request_error",
                    "invalid_api_key",
                ),
                401,
            )
        if request.method != "POST":
            return json_response(error_body("Method not allowed", "invalid_request_error"), 405)
        try:
            body = json.loads(request.get_data(as_text=True))
        except ValueError:
            return json_response(
                error_body(
                    "We could not parse the JSON body of your request.", "invalid_request_error"
                ),
                400,
            )
        if request.path == "/v1/embeddings":
            return self._embeddings(body)
        if request.path == "/v1/chat/completions":
            return self._chat(body)
        return json_response(
            error_body(f"Invalid URL (POST {request.path})", "invalid_request_error"), 404
        )

    def _embeddings(self, body: dict[str, Any]) -> Response:
        model = body.get("model")
        if model not in MODEL_DIMS:
            return json_response(
                error_body(
                    f"The model `{model}` does not exist or you do not have access to it.",
                    "invalid_request_error",
                    "model_not_found",
                ),
                404,
            )
        inputs = body.get("input")
        if isinstance(inputs, str):
            inputs = [inputs]
        if (
            not isinstance(inputs, list)
            or not inputs
            or len(inputs) > MAX_INPUTS
            or not all(isinstance(t, str) and t for t in inputs)
        ):
            return json_response(
                error_body(
                    f"'$.input' is invalid: expected 1 to {MAX_INPUTS} non-empty strings",
                    "invalid_request_error",
                    param="input",
                ),
                400,
            )
        dim = int(body.get("dimensions") or MODEL_DIMS[model])
        with self._body_lock:
            self.embedding_batches.append(len(inputs))
            self.embedding_bodies.append(body)
        data = [
            {"object": "embedding", "index": i, "embedding": fake_vector(t, dim).tolist()}
            for i, t in enumerate(inputs)
        ]
        if self.shuffle:
            data.reverse()
        tokens = sum(len(t.split()) for t in inputs)
        return json_response(
            {
                "object": "list",
                "data": data,
                "model": model,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )

    def _chat(self, body: dict[str, Any]) -> Response:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return json_response(
                error_body(
                    "'messages' must be a non-empty array",
                    "invalid_request_error",
                    param="messages",
                ),
                400,
            )
        if body.get("stream"):
            return json_response(
                error_body("this fake does not stream", "invalid_request_error", param="stream"),
                400,
            )
        with self._body_lock:
            self.chat_requests.append(body)
        answer = self.chat_answer(messages) if callable(self.chat_answer) else self.chat_answer
        return json_response(
            {
                "id": f"chatcmpl-fake-{len(self.chat_requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "gpt-4o-mini"),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": answer},
                    }
                ],
                "usage": {
                    "prompt_tokens": 0,
                    "completion_tokens": len(answer.split()),
                    "total_tokens": len(answer.split()),
                },
            }
        )
