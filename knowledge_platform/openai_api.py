"""The `openai` SDK client both OpenAI callers (embeddings, answer synthesis) use, and its
errors as one line. The SDK retries 408/409/429/5xx, timeouts and connection errors, waits as
`retry-after(-ms)` says (up to two minutes; a longer wait fails at once) or backs off
exponentially; `base_url` points it at a compatible server or a test fake."""

from __future__ import annotations

from openai import APIConnectionError, APIStatusError, APITimeoutError, OpenAI, OpenAIError

from knowledge_platform.redact import redact


def client(api_key: str, *, base_url: str | None, timeout_s: float, max_retries: int) -> OpenAI:
    return OpenAI(api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=max_retries)


def attempts(exc: OpenAIError) -> int:
    """Requests the SDK made before giving up (it numbers each retry in a request header)."""
    request = getattr(exc, "request", None)
    try:
        return int(request.headers.get("x-stainless-retry-count", "0")) + 1 if request else 1
    except ValueError:
        return 1


def failure(exc: OpenAIError) -> str:
    """What went wrong and after how many attempts, e.g. `HTTP 429 after 6 attempts: Rate
    limit reached ...`, `timed out after 3 attempts`, `HTTP 401 after 1 attempt: Incorrect API
    key ... (check the API key)`."""
    n = attempts(exc)
    tries = f"after {n} attempt{'' if n == 1 else 's'}"
    if isinstance(exc, APIStatusError):
        hint = " (check the API key)" if exc.status_code in (401, 403) else ""
        waited = exc.response.headers.get("retry-after")
        asked = f" (the server asks to wait {waited} s)" if waited and n == 1 else ""
        return f"HTTP {exc.status_code} {tries}: {_message(exc)}{hint}{asked}"
    if isinstance(exc, APITimeoutError):
        return f"timed out {tries}"
    if isinstance(exc, APIConnectionError):
        return f"unreachable {tries}: {exc.__cause__ or exc}"
    return str(exc)


def _message(exc: APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            # masked before the cut: a secret the API repeats must not show even in part
            return " ".join(redact(str(error["message"])).split())[:200]
    return exc.response.reason_phrase or "no message"
