"""Answers with citations, one contract for both modes.

`extractive`: the best sentences of the top hits, quoted with [n] markers and labelled as
such, used when no chat model is configured (the embedded default) or the model failed.
`llm`: OpenAI chat synthesis over the same numbered sources (see `answer_llm`); a citation
number the retrieval did not produce is removed with a warning, and an answer that cites
nothing retrieved is replaced by the extractive one, saying so.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from knowledge_platform.errors import SecretError
from knowledge_platform.models import Hit, Lifecycle
from knowledge_platform.registry import AnswerConfig
from knowledge_platform.sparse import SparseEncoder

EXTRACTIVE_LABEL = "Extractive answer (quoted from the sources, no language model):"
MAX_SENTENCES = 3
MAX_ANSWER_CHARS = 900
#: A sentence joins the answer only if it scores at least this share of the best one.
RELATIVE_FLOOR = 0.6
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])|\n{2,}|\n(?=\s*(?:[-*+]|\d+\.)\s)")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+\.|#+)\s+")
_terms = SparseEncoder().terms


class Citation(BaseModel):
    number: int
    title: str
    url: str | None = None
    uri: str | None = None
    source: str
    doc_id: str
    scope: str
    date: dt.date | None = None
    version: str = ""
    sha: str | None = Field(default=None, description="git commit the text was read at")
    lifecycle: Lifecycle = "stable"
    superseded_by: str | None = Field(default=None,
                                      description="doc_id of the document that supersedes it")


class Answer(BaseModel):
    answer: str
    citations: list[Citation] = Field(default_factory=list)
    confidence: float = Field(ge=0.0, le=1.0)
    warnings: list[str] = Field(default_factory=list)
    mode: Literal["extractive", "llm"]
    retrieval_date: dt.datetime


class Sources:
    """Retrieved hits numbered by document: [n] names the n-th distinct document."""

    def __init__(self, hits: Sequence[Hit]) -> None:
        self.hits = list(hits)
        self.number: dict[str, int] = {}
        self.citations: dict[int, Citation] = {}
        for hit in self.hits:
            c = hit.chunk
            if c.doc_id in self.number:
                continue
            n = len(self.number) + 1
            self.number[c.doc_id] = n
            self.citations[n] = Citation(number=n, title=c.title, url=c.url, uri=c.uri,
                                         source=c.source, doc_id=c.doc_id, scope=c.scope,
                                         date=c.date, version=c.version, sha=c.sha,
                                         lifecycle=c.lifecycle, superseded_by=c.successor)

    def texts(self, n: int) -> list[str]:
        return [h.chunk.text for h in self.hits if self.number[h.chunk.doc_id] == n]

    def cited(self, numbers: Sequence[int]) -> list[Citation]:
        return [self.citations[n] for n in sorted(set(numbers)) if n in self.citations]


def now_utc() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


def split_sentences(text: str) -> list[str]:
    out = []
    for part in _SENTENCE.split(text):
        sentence = " ".join(_BULLET.sub("", part).split())
        if len(sentence) >= 12 and not sentence.startswith("|"):
            out.append(sentence)
    return out


def coverage(question: str, texts: Sequence[str]) -> float:
    """Share of the question's content terms (stemmed) present in `texts`."""
    wanted = set(_terms(question))
    if not wanted:
        return 0.0
    have = set(_terms(" ".join(texts)))
    return len(wanted & have) / len(wanted)


def confidence(question: str, hits: Sequence[Hit], used: Sequence[str] | None = None) -> float:
    """0..1: the top retrieval score (dense cosine and Qdrant's RRF are both <= 1), how well
    the top hits agree with it, and how much of the question the quoted text covers."""
    if not hits:
        return 0.0
    top = min(max(hits[0].score, 0.0), 1.0)
    runner = min(max(hits[1].score, 0.0), 1.0) if len(hits) > 1 else top
    agreement = runner / top if top > 0 else 0.0
    cover = coverage(question, used if used is not None else [h.chunk.text for h in hits[:3]])
    value = 0.45 * top + 0.1 * agreement + 0.45 * cover
    return round(min(max(value, 0.0), 1.0), 3)


def _best_sentences(question: str, sources: Sources) -> list[tuple[str, int]]:
    wanted = set(_terms(question))
    scored: list[tuple[float, int, str, int]] = []
    seen: set[str] = set()
    for rank, hit in enumerate(sources.hits[:6]):
        n = sources.number[hit.chunk.doc_id]
        for pos, sentence in enumerate(split_sentences(hit.chunk.text)):
            key = sentence.lower()
            if key in seen:
                continue
            seen.add(key)
            overlap = len(wanted & set(_terms(sentence))) / len(wanted) if wanted else 0.0
            if overlap > 0:
                scored.append((overlap + 0.15 / (rank + 1) - 0.01 * pos, -rank, sentence, n))
    scored.sort(reverse=True)
    picked: list[tuple[str, int]] = []
    total = 0
    floor = RELATIVE_FLOOR * scored[0][0] if scored else 0.0
    for score, _, sentence, n in scored:
        if score < floor:
            break
        if len(picked) >= MAX_SENTENCES or total + len(sentence) > MAX_ANSWER_CHARS:
            break
        picked.append((sentence, n))
        total += len(sentence)
    return picked


def extractive_answer(question: str, hits: Sequence[Hit], *, scope: str,
                      warnings: Sequence[str] = (),
                      retrieved_at: dt.datetime | None = None) -> Answer:
    when = retrieved_at or now_utc()
    notes = list(warnings)
    sources = Sources(hits)
    if not hits:
        notes.append(f"nothing in scope '{scope}' matched the question")
        return Answer(answer=f"{EXTRACTIVE_LABEL} no indexed source in scope '{scope}' matches "
                      "the question.", confidence=0.0, warnings=notes, mode="extractive",
                      retrieval_date=when)
    picked = _best_sentences(question, sources)
    if not picked:
        notes.append("no retrieved sentence shares a term with the question; showing the "
                     "opening of the best match")
        first = split_sentences(hits[0].chunk.text)[:1] or [hits[0].chunk.text[:300]]
        picked = [(first[0], 1)]
    body = " ".join(f"{sentence} [{n}]" for sentence, n in picked)
    return Answer(
        answer=f"{EXTRACTIVE_LABEL} {body}",
        citations=sources.cited([n for _, n in picked]),
        confidence=confidence(question, hits, [s for s, _ in picked]),
        warnings=notes,
        mode="extractive",
        retrieval_date=when,
    )


def answer_question(question: str, hits: Sequence[Hit], *, scope: str, config: AnswerConfig,
                    env: Mapping[str, str] | None = None) -> Answer:
    """The LLM answer when the configured API key is set (its env var, or its 1Password
    reference), the extractive one otherwise (and for an empty retrieval: there is nothing to
    synthesise from). A key that cannot be read gives the extractive answer and a warning."""
    unread: list[str] = []
    try:
        api_key = config.resolve_optional_secret("api_key", owner="answer",
                                                 what="OpenAI API key", env=env) if hits else None
    except SecretError as exc:
        api_key, unread = None, [f"LLM synthesis is off: {exc}"]
    if not api_key or not hits:
        answer = extractive_answer(question, hits, scope=scope, warnings=unread)
    else:
        from knowledge_platform.answer_llm import llm_answer

        answer = llm_answer(question, hits, scope=scope, model=config.model,
                            base_url=config.base_url, api_key=api_key)
    answer.warnings.extend(f"[{c.number}] {c.title} is superseded by {c.superseded_by}"
                           for c in answer.citations if c.superseded_by)
    return answer
