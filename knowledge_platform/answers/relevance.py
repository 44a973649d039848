"""How well one sentence answers the question, 0..1, without a language model.

score = 0.5 * lexical + 0.5 * semantic, times a penalty for each expectation it misses
(KIND_PENALTY, NUMBER_PENALTY):

- lexical: the share of the question's content terms (stemmed) found in the sentence or the
  heading trail above it;
- semantic: cosine of the question and the sentence under the retrieval embedder (the
  sentence alone: with its trail it scored no better on the labelled set, at twice the cost;
  codes such as `CLIENT-YYYYMM-slug` masked, since to a sentence model they are noise);
- the question's expected kind of answer ("how long" wants a duration, "what time" a time,
  "how many" a number, "when" a date, day, time or frequency...), and any number the
  question itself gives (a question about 2028 is not answered by a sentence about 2027).

MIN_SCORE is calibrated on bench/data/demo_questions.yaml (`uv run python
bench/answerable.py`) for the local all-MiniLM-L6-v2 model; a registry may override it
(`answer: {min_score: ...}`), e.g. after recalibrating for another embedder.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from knowledge_platform.answers.sentences import Sentence, terms
from knowledge_platform.answers.values import values
from knowledge_platform.embeddings.base import Embedder

MIN_SCORE = 0.6
#: A sentence without the kind of value the question asks for cannot answer it.
KIND_PENALTY = 0.5
NUMBER_PENALTY = 0.75
#: Kinds of value (values.Kind) an answer may hold, plus "condition" ("when X happens").
_TEMPORAL: tuple[str, ...] = ("date", "time", "weekday", "frequency", "duration")
#: Question openings -> the kinds of value an answer must contain (any of them).
_EXPECTS: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (re.compile(r"\bhow\s+long\b", re.I), ("duration",)),
    (re.compile(r"\bhow\s+(soon|quickly)\b", re.I), ("duration", "time", "date", "weekday")),
    (re.compile(r"\bhow\s+often\b|\bhow\s+frequently\b", re.I), ("frequency", "duration")),
    (re.compile(r"\bwhat\s+time\b|\bat\s+what\s+time\b", re.I), ("time",)),
    (re.compile(r"\b(what|which)\s+(date|day)\b|\bdeadline\b", re.I),
     ("date", "weekday", "duration")),
    (re.compile(r"\bhow\s+(many|much)\b|\bwhat\s+(percentage|share|number)\b|\b(budget|cost|"
                r"price|revenue|rate)\b", re.I), ("number", "percent", "money", "duration")),
    (re.compile(r"^\s*when\b", re.I), (*_TEMPORAL, "condition")),
]
#: The question's own wording that names the kind of answer, not its subject.
_ASKING = re.compile(r"^\s*(how\s+(long|often|many|much|quickly|soon|frequently)|what\s+(time|"
                     r"(kind|sort|type)\s+of))\b|\b(must|may|might|shall)\b", re.I)
_CONDITION = re.compile(r"\b(when|if|after|before|once|until|unless|within|whenever)\b", re.I)


@dataclass(frozen=True)
class Scored:
    sentence: Sentence
    score: float
    lexical: float
    semantic: float


def expected_kinds(question: str) -> tuple[str, ...]:
    for pattern, kinds in _EXPECTS:
        if pattern.search(question):
            return kinds
    return ()


def content_terms(question: str) -> set[str]:
    """The question's stemmed terms, without its interrogative wording or one-letter bits."""
    return {t for t in terms(_ASKING.sub(" ", question)) if len(t) > 1}


def _has_kind(text: str, kinds: Sequence[str]) -> bool:
    if "condition" in kinds and _CONDITION.search(text):
        return True
    return any(v.kind in kinds for v in values(text))


def _masked(text: str) -> str:
    for value in values(text):
        if value.kind == "code":
            text = text.replace(value.text, "…")
    return text


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"\d+", text))


def score_sentences(question: str, sentences: Sequence[Sentence],
                    embedder: Embedder) -> list[Scored]:
    """Every sentence scored against the question (same order)."""
    if not sentences:
        return []
    wanted = content_terms(question)
    kinds = expected_kinds(question)
    numbers = _numbers(question)
    query = embedder.embed_query(question)
    semantic = embedder.embed_documents([_masked(s.text) for s in sentences]) @ query
    out = []
    for s, sem in zip(sentences, semantic.tolist(), strict=True):
        lexical = len(wanted & set(terms(s.context))) / len(wanted) if wanted else 0.0
        score = 0.5 * lexical + 0.5 * max(sem, 0.0)
        if kinds and not _has_kind(s.text, kinds):
            score *= KIND_PENALTY
        if numbers - _numbers(s.context):
            score *= NUMBER_PENALTY
        out.append(Scored(s, round(min(score, 1.0), 4), lexical, sem))
    return out
