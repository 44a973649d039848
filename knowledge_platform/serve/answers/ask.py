"""`knowledge_ask`'s answer: the chat model's when its API key is configured (its env var,
or its 1Password reference), the extractive one otherwise (and for an empty retrieval: there
is nothing to synthesise from). A key that cannot be read gives the extractive answer and a
warning."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from knowledge_platform.config.registry import AnswerConfig
from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.errors import SecretError
from knowledge_platform.models import Hit
from knowledge_platform.serve.answers.contract import Answer
from knowledge_platform.serve.answers.extractive import Related, extractive_answer
from knowledge_platform.serve.answers.llm import llm_answer
from knowledge_platform.serve.answers.relevance import MIN_SCORE
from knowledge_platform.serve.answers.sentences import During
from knowledge_platform.serve.question import Question

#: A question that names when ("two weeks ago", "in May") was searched only among what was
#: said then: its threshold is this share of the usual one (calibrated on the tune halves).
WINDOW_RELIEF = 0.9
#: The longest window that narrows enough for the relief (a quarter).
NARROW_DAYS = 92


def _during(question: Question) -> During | None:
    """The window the question's own words name ("last week"), not one the caller gave."""
    dates = question.dates
    if dates is None or dates.origin != "question":
        return None
    return dates.date_from, dates.date_to


def _narrowed(question: Question) -> bool:
    dates = question.dates
    return (
        dates is not None
        and dates.origin == "question"
        and dates.date_from is not None
        and dates.date_to is not None
        and (dates.date_to - dates.date_from).days <= NARROW_DAYS
    )


def answer_question(
    question: Question | str,
    hits: Sequence[Hit],
    *,
    scope: str,
    config: AnswerConfig,
    embedder: Embedder,
    env: Mapping[str, str] | None = None,
    named: Collection[str] = (),
    warnings: Sequence[str] = (),
    related: Related | None = None,
) -> Answer:
    """`named`: doc ids of documents the question names; their sentences answer it.
    `related`: the service's search under the question's scope, grant and window, for other
    sources of what an extractive answer says. A plain string is a question without a date
    window."""
    if isinstance(question, str):
        question = Question.plain(question)
    unread: list[str] = []
    try:
        api_key = (
            config.resolve_optional_secret(
                "api_key", owner="answer", what="OpenAI API key", env=env
            )
            if hits
            else None
        )
    except SecretError as exc:
        api_key, unread = None, [f"LLM synthesis is off: {exc}"]
    min_score = MIN_SCORE if config.min_score is None else config.min_score
    if _narrowed(question):
        min_score *= WINDOW_RELIEF
    if api_key and hits:
        answer = llm_answer(
            question,
            hits,
            scope=scope,
            config=config,
            api_key=api_key,
            embedder=embedder,
            min_score=min_score,
            named=named,
        )
    else:
        answer = extractive_answer(
            question.search_text,
            hits,
            scope=scope,
            embedder=embedder,
            min_score=min_score,
            named=named,
            related=related,
            during=_during(question),
        )
    answer.warnings[:0] = [*warnings, *unread]
    answer.interpreted_dates = question.dates
    return answer
