"""OpenAI chat synthesis over numbered sources, checked against what was retrieved.

POST {base_url}/chat/completions with bounded retries on 429/5xx (honouring Retry-After).
The model may cite only [1]..[n]; other numbers are removed with a warning. An answer with
no valid citation, or a failed call, falls back to the extractive answer and says why.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence

import httpx

from knowledge_platform.answers import Answer, Sources, confidence, extractive_answer, now_utc
from knowledge_platform.models import Hit

DEFAULT_BASE_URL = "https://api.openai.com/v1"
ATTEMPTS = 3
MAX_WAIT = 20.0
SOURCE_CHARS = 1800
_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")

SYSTEM_PROMPT = (
    "You answer questions for Surefoot staff and agents using ONLY the numbered sources given. "
    "Cite every claim with the source number in square brackets, e.g. [1] or [1][3]. Never "
    "cite a number that is not listed. If the sources do not answer the question, say so "
    "plainly in one sentence. Be concise: at most five sentences."
)


class ChatError(Exception):
    """The chat call failed after its retries; the message says why in one line."""


def build_messages(question: str, sources: Sources) -> list[dict[str, str]]:
    blocks = []
    for n, cite in sources.citations.items():
        text = "\n".join(sources.texts(n))[:SOURCE_CHARS]
        meta = ", ".join(str(v) for v in (cite.source, cite.date, cite.url or cite.uri) if v)
        blocks.append(f"[{n}] {cite.title} ({meta})\n{text}")
    user = "Sources:\n\n" + "\n\n".join(blocks) + f"\n\nQuestion: {question}"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def _wait(response: httpx.Response | None, attempt: int) -> float:
    """Seconds before the next attempt: OpenAI's retry-after-ms, else Retry-After, else
    exponential backoff; never more than MAX_WAIT."""
    backoff = 0.5 * 2**attempt
    if response is not None:
        for header, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
            try:
                value = float(response.headers.get(header, ""))
            except ValueError:
                continue
            return min(max(value * scale, 0.0), MAX_WAIT)
    return min(backoff, MAX_WAIT)


def chat(messages: list[dict[str, str]], *, model: str, base_url: str, api_key: str,
         transport: httpx.BaseTransport | None = None,
         sleep: Callable[[float], None] = time.sleep, timeout: float = 60.0) -> str:
    url = base_url.rstrip("/") + "/chat/completions"
    body = {"model": model, "messages": messages, "temperature": 0}
    headers = {"Authorization": f"Bearer {api_key}"}
    with httpx.Client(timeout=timeout, transport=transport) as client:
        for attempt in range(ATTEMPTS):
            response: httpx.Response | None = None
            try:
                response = client.post(url, json=body, headers=headers)
            except httpx.TransportError as exc:
                if attempt + 1 == ATTEMPTS:
                    raise ChatError(f"chat model unreachable at {url}: {exc}") from None
                sleep(_wait(None, attempt))
                continue
            if response.status_code == 429 or response.status_code >= 500:
                if attempt + 1 == ATTEMPTS:
                    raise ChatError(f"chat model answered HTTP {response.status_code} "
                                    f"{ATTEMPTS} times")
                sleep(_wait(response, attempt))
                continue
            if response.status_code >= 400:
                hint = " (check the API key)" if response.status_code in (401, 403) else ""
                raise ChatError(f"chat model refused the request: HTTP "
                                f"{response.status_code}{hint}")
            try:
                return str(response.json()["choices"][0]["message"]["content"] or "")
            except (ValueError, KeyError, IndexError, TypeError):
                raise ChatError("chat model answered without choices[0].message.content") from None
    raise ChatError("chat model not called")  # unreachable: ATTEMPTS >= 1


def check_citations(text: str, valid: set[int]) -> tuple[str, list[int], list[int]]:
    """(text without invalid numbers, valid numbers cited, invalid numbers removed)."""
    cited: list[int] = []
    invalid: list[int] = []

    def fix(match: re.Match[str]) -> str:
        numbers = [int(p) for p in match.group(1).split(",")]
        keep = [n for n in numbers if n in valid]
        cited.extend(keep)
        invalid.extend(n for n in numbers if n not in valid)
        return "".join(f"[{n}]" for n in keep)

    cleaned = _MARKER.sub(fix, text)
    cleaned = re.sub(r"[ \t]+([.,;:])", r"\1", re.sub(r"[ \t]{2,}", " ", cleaned)).strip()
    return cleaned, sorted(set(cited)), sorted(set(invalid))


def llm_answer(question: str, hits: Sequence[Hit], *, scope: str, model: str,
               base_url: str | None, api_key: str,
               transport: httpx.BaseTransport | None = None,
               sleep: Callable[[float], None] = time.sleep) -> Answer:
    when = now_utc()
    sources = Sources(hits)
    try:
        text = chat(build_messages(question, sources), model=model,
                    base_url=base_url or DEFAULT_BASE_URL, api_key=api_key,
                    transport=transport, sleep=sleep)
    except ChatError as exc:
        return extractive_answer(question, hits, scope=scope, retrieved_at=when,
                                 warnings=[f"{exc}; showing the extractive answer instead"])
    cleaned, cited, invalid = check_citations(text, set(sources.citations))
    warnings = []
    if invalid:
        shown = ", ".join(f"[{n}]" for n in invalid)
        warnings.append(f"the model cited {shown}, which retrieval did not return; removed")
    if not cited:
        warnings.append("the model's answer cited none of the retrieved sources; showing the "
                        "extractive answer instead")
        return extractive_answer(question, hits, scope=scope, retrieved_at=when,
                                 warnings=warnings)
    used = [t for n in cited for t in sources.texts(n)]
    return Answer(answer=cleaned, citations=sources.cited(cited),
                  confidence=confidence(question, hits, used), warnings=warnings, mode="llm",
                  retrieval_date=when)
