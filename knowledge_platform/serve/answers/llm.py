"""The answer from a chat model over the numbered sources, through the `openai` SDK (its
retries honour Retry-After; `base_url` points it at a compatible server or a test fake).

The model may cite only [1]..[n]; other numbers are removed with a warning. It reports
sources that disagree on lines `CONFLICT: [a] vs [b]: what differs`, which become
`conflicts` and warnings; the rule-based detector runs as well. An answer citing nothing
retrieved, or a failed call, falls back to the extractive answer and says why.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from knowledge_platform.config.registry import AnswerConfig
from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.errors import KnowledgePlatformError
from knowledge_platform.models import Hit
from knowledge_platform.serve.answers.contract import Answer, Citation, Conflict, now_utc
from knowledge_platform.serve.answers.disagreements import Found, claims, find_conflicts
from knowledge_platform.serve.answers.extractive import (
    PARTNER_SHARE,
    eligible,
    extractive_answer,
    pick,
)
from knowledge_platform.serve.answers.sources import Sources
from knowledge_platform.serve.question import Question

if TYPE_CHECKING:  # the SDK is imported on the first chat call, not by every reader
    from openai.types.chat import ChatCompletionMessageParam

SOURCE_CHARS = 1800
_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
_CONFLICT = re.compile(
    r"^[ \t]*CONFLICT:\s*\[(\d+)\]\s*(?:vs\.?|and|,)?\s*\[(\d+)\]\s*:?"
    r"[ \t]*(.*?)[ \t]*$\n?",
    re.M | re.I,
)

SYSTEM_PROMPT = (
    "You answer questions for Surefoot staff and agents using ONLY the numbered sources given. "
    "Cite every claim with the source number in square brackets, e.g. [1] or [1][3]. Never "
    "cite a number that is not listed. Answer only what was asked; leave out facts about "
    "other topics. If the sources do not answer the question, say so plainly in one "
    "sentence. Each source says when it was said and its kind of time: an event is true as "
    "of its date (a log entry), a standing text until changed (a rule, a roster). When "
    "sources give different values for the same thing, the newest dated statement is the "
    "current one: give it first, then the older value marked as older, each with its "
    "citation; never give a superseded source's value as current. Then add one line per "
    "disagreement at the end: `CONFLICT: [a] vs [b]: what differs`. Be concise: at most "
    "five sentences."
)


class ChatError(KnowledgePlatformError):
    """The chat call failed after the SDK's retries; the message says why in one line."""


def build_messages(
    question: Question, sources: Sources, conflicts: Sequence[Found] = ()
) -> list[ChatCompletionMessageParam]:
    """The system prompt and the numbered sources, each with its date, kind of time and
    marks (superseded, stale), the disagreements the rules found, and the question with the
    date window it was read as."""
    blocks = []
    for n, cite in sources.citations.items():
        text = "\n".join(sources.texts(n))[:SOURCE_CHARS]
        blocks.append(f"[{n}] {cite.title} ({_meta(cite, sources)})\n{text}")
    user = "Sources:\n\n" + "\n\n".join(blocks)
    if conflicts:
        user += "\n\nDisagreements found between the sources:\n" + "\n".join(
            f"- {f.describe()}" for f in conflicts
        )
    user += f"\n\nQuestion: {question.text}"
    if question.dates is not None:
        d = question.dates
        start, end = d.date_from or "any date", d.date_to or "today"
        read = f", read from '{d.text}'" if d.text else ""
        user += f"\n(Asked on {d.today}; the sources were searched from {start} to {end}{read}.)"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def _meta(cite: Citation, sources: Sources) -> str:
    parts = [cite.source, cite.date.isoformat() if cite.date else "undated", cite.time_kind]
    if cite.superseded_by:
        later = sources.number.get(cite.superseded_by)
        parts.append(f"superseded by [{later}]" if later else f"superseded by {cite.superseded_by}")
    if cite.lifecycle != "stable":
        parts.append(cite.lifecycle)
    if cite.stale:
        parts.append(f"stale: {cite.stale}")
    parts.append(cite.url or cite.uri or "")
    return ", ".join(p for p in parts if p)


def chat(messages: list[ChatCompletionMessageParam], config: AnswerConfig, api_key: str) -> str:
    from openai import OpenAIError

    from knowledge_platform import openai_api

    try:
        with openai_api.client(
            api_key,
            base_url=config.base_url,
            timeout_s=config.timeout_seconds,
            max_retries=config.max_retries,
        ) as client:
            response = client.chat.completions.create(
                model=config.model, messages=messages, temperature=0
            )
    except OpenAIError as exc:
        raise ChatError(f"chat model failed: {openai_api.failure(exc)}") from None
    content = response.choices[0].message.content if response.choices else None
    if content is None:
        raise ChatError("chat model answered without choices[0].message.content")
    return content


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


def model_conflicts(text: str, valid: set[int]) -> tuple[str, list[tuple[int, int, str]]]:
    """The answer without its CONFLICT lines, and the (a, b, what differs) they report."""
    found = [
        (int(a), int(b), what)
        for a, b, what in _CONFLICT.findall(text)
        if int(a) in valid and int(b) in valid and a != b
    ]
    return _CONFLICT.sub("", text).strip(), found


def llm_answer(
    question: Question | str,
    hits: Sequence[Hit],
    *,
    scope: str,
    config: AnswerConfig,
    api_key: str,
    embedder: Embedder,
    min_score: float,
    named: Collection[str] = (),
) -> Answer:
    when = now_utc()
    if isinstance(question, str):
        question = Question.plain(question)
    sources = Sources(hits)

    def fallback(warnings: list[str]) -> Answer:
        return extractive_answer(
            question.search_text,
            hits,
            scope=scope,
            embedder=embedder,
            min_score=min_score,
            named=named,
            retrieved_at=when,
            warnings=warnings,
        )

    scored = eligible(question.search_text, sources, embedder)
    found = find_conflicts(
        question.search_text,
        pick(scored, min_score),
        [s for s in scored if s.score >= PARTNER_SHARE * min_score],
    )
    try:
        text = chat(build_messages(question, sources, found), config, api_key)
    except ChatError as exc:
        return fallback([f"{exc}; showing the extractive answer instead"])
    valid = set(sources.citations)
    text, reported = model_conflicts(text, valid)
    cleaned, cited, invalid = check_citations(text, valid)
    warnings = []
    if invalid:
        shown = ", ".join(f"[{n}]" for n in invalid)
        warnings.append(f"the model cited {shown}, which retrieval did not return; removed")
    if not cited:
        warnings.append(
            "the model's answer cited none of the retrieved sources; showing the "
            "extractive answer instead"
        )
        return fallback(warnings)
    pairs = {frozenset(s.sentence.ref for s in f.sides) for f in found}
    reported = [r for r in reported if frozenset(r[:2]) not in pairs]
    cleaned += "".join(" " + f.describe() for f in found)
    cleaned += "".join(f" [{a}] and [{b}] disagree: {what}." for a, b, what in reported)
    answer_text, citations, renumber = sources.in_order_of_use(cleaned)
    conflicts = [f.conflict(renumber, citations) for f in found]
    warnings += [f.warning(renumber) for f in found]
    for a, b, what in reported:
        conflicts.append(
            Conflict(
                kind="model",
                claims=claims([(renumber[a], what, ""), (renumber[b], what, "")], citations),
            )
        )
        warnings.append(
            f"conflict: the model reports that [{renumber[a]}] and [{renumber[b]}] disagree: {what}"
        )
    best = scored[0].score if scored else 0.0
    return Answer(
        answer=answer_text,
        citations=citations,
        confidence=round(best, 3),
        warnings=warnings,
        mode="llm",
        conflicts=conflicts,
        retrieval_date=when,
    )
