"""Answer contract: extractive (no key) and LLM (the fake OpenAI server) give the same shape;
citations are checked against what retrieval returned."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest

from knowledge_platform.config.registry import AnswerConfig
from knowledge_platform.embeddings.deterministic import HashEmbedder
from knowledge_platform.models import Chunk, Hit
from knowledge_platform.serve.answers.ask import answer_question
from knowledge_platform.serve.answers.contract import EXTRACTIVE_LABEL, Answer
from knowledge_platform.serve.answers.llm import check_citations, llm_answer
from knowledge_platform.serve.question import understand
from tests.fakes.openai_server import FakeOpenAI, error_body

KEY = "sk-test-fake"
EMBEDDER = HashEmbedder()
NO_KEY = AnswerConfig(api_key_env="KP_TEST_NO_KEY")


def _hit(n: int, title: str, text: str, score: float, **kw: Any) -> Hit:
    chunk = Chunk(
        id=f"id-{n}",
        doc_id=f"memory_files:{n}.md",
        source="memory_files",
        source_id=f"{n}.md",
        scope="internal",
        title=title,
        text=text,
        headers=[],
        ordinal=0,
        kind="memory",
        uri=f"file:///ws/{n}.md",
        date=dt.date(2026, 11, n),
        version=f"v{n}",
        **kw,
    )
    return Hit(chunk=chunk, score=score)


HITS = [
    _hit(
        1,
        "Knowledge platform operations",
        "The weekly reindex runs every Sunday at 02:00 America/New_York. It pulls every source "
        "in full.",
        0.9,
    ),
    _hit(
        2,
        "Standing rules",
        "Tests run for at least fourteen days. Hypotheses are written down first.",
        0.5,
    ),
    _hit(3, "Holiday freeze", "No new tests launch between December 20 and January 4.", 0.4),
]


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(api_key=KEY) as server:
        yield server


def _config(fake: FakeOpenAI, **kw: Any) -> AnswerConfig:
    return AnswerConfig(
        api_key_env="KP_TEST_OPENAI_KEY", base_url=fake.base_url, model="gpt-4o-mini", **kw
    )


def _llm(fake: FakeOpenAI, question: str, api_key: str = KEY, **kw: Any) -> Answer:
    return llm_answer(
        question,
        HITS,
        scope="internal",
        config=_config(fake, **kw),
        api_key=api_key,
        embedder=EMBEDDER,
        min_score=0.5,
    )


def _contract(answer: Answer) -> None:
    assert 0.0 <= answer.confidence <= 1.0
    assert answer.retrieval_date.tzinfo is not None
    numbers = [c.number for c in answer.citations]
    assert numbers == sorted(set(numbers))
    for c in answer.citations:
        assert f"[{c.number}]" in answer.answer
        assert c.title and c.source and c.scope == "internal" and (c.url or c.uri)
        assert c.doc_id.startswith("memory_files:") and c.version and c.date


def test_extractive_answer_quotes_and_cites() -> None:
    answer = answer_question(
        "When does the weekly reindex run?",
        HITS,
        scope="internal",
        config=NO_KEY,
        embedder=EMBEDDER,
        env={},
    )
    _contract(answer)
    assert answer.mode == "extractive" and answer.answer.startswith(EXTRACTIVE_LABEL)
    assert "Sunday at 02:00 America/New_York. [1]" in answer.answer
    assert [c.title for c in answer.citations] == ["Knowledge platform operations"]
    assert answer.confidence > 0.5 and not answer.warnings


def test_extractive_answer_without_hits_says_so() -> None:
    answer = answer_question("anything?", [], scope="hot", config=NO_KEY, embedder=EMBEDDER, env={})
    assert answer.mode == "not_found" and answer.citations == []
    assert answer.confidence == 0.0 and "nothing in scope 'hot'" in answer.warnings[0]


def test_an_extractive_citation_names_the_page_of_the_sentence_it_quotes() -> None:
    def page(n: int, text: str, score: float) -> Hit:
        chunk = Chunk(
            id=f"p{n}",
            doc_id="git_docs:sow.pdf",
            source="git_docs",
            source_id="sow.pdf",
            scope="internal",
            title="sow",
            text=text,
            headers=[f"p. {n}"],
            ordinal=n,
            kind="doc",
            version="abc123",
            extra={"file_name": "sow.pdf", "mime_type": "application/pdf", "page": n},
        )
        return Hit(chunk=chunk, score=score)

    # Retrieval ranks page 1 first; the sentence that answers is on page 3.
    hits = [
        page(1, "The engagement covers the checkout and the cart pages.", 0.9),
        page(3, "The monthly retainer is forty hours of analysis.", 0.8),
    ]
    answer = answer_question(
        "What is the monthly retainer?",
        hits,
        scope="internal",
        config=NO_KEY,
        embedder=EMBEDDER,
        env={},
    )
    assert answer.mode == "extractive" and "forty hours" in answer.answer
    (cited,) = answer.citations
    assert (cited.file_name, cited.page, cited.version) == ("sow.pdf", 3, "abc123")


def test_an_answer_from_a_slide_quotes_its_notes_without_their_label() -> None:
    chunk = Chunk(
        id="s2",
        doc_id="git_docs:review.pptx",
        source="git_docs",
        source_id="review.pptx",
        scope="shade_store",
        title="review",
        text="## Slide 2: Results\n\nCart test won.\n\nSpeaker notes:\nThe "
        "variant lifted checkout conversion by four percent.",
        headers=["Slide 2: Results"],
        ordinal=1,
        kind="slide",
        version="abc123",
    )
    answer = answer_question(
        "How much did the variant lift checkout conversion?",
        [Hit(chunk=chunk, score=0.9)],
        scope="shade_store",
        config=NO_KEY,
        embedder=EMBEDDER,
        env={},
    )
    assert answer.mode == "extractive" and "four percent" in answer.answer
    assert "Speaker notes" not in answer.answer


def test_llm_answer_with_valid_citations(fake: FakeOpenAI) -> None:
    fake.chat_answer = (
        "The reindex runs Sundays at 02:00 New York time [1]; tests last 14 days [2]."
    )
    answer = answer_question(
        "When does the reindex run?",
        HITS,
        scope="internal",
        config=_config(fake),
        embedder=EMBEDDER,
        env={"KP_TEST_OPENAI_KEY": KEY},
    )
    _contract(answer)
    assert answer.mode == "llm" and answer.warnings == []
    assert [c.number for c in answer.citations] == [1, 2]
    request = fake.chat_requests[-1]
    assert request["model"] == "gpt-4o-mini"
    user = request["messages"][-1]["content"]
    assert "[1] Knowledge platform operations" in user and "[3] Holiday freeze" in user


def test_llm_invalid_citation_removed_with_warning(fake: FakeOpenAI) -> None:
    fake.chat_answer = "Sundays at 02:00 [1][7]. Also see [9]."
    answer = answer_question(
        "When?",
        HITS,
        scope="internal",
        config=_config(fake),
        embedder=EMBEDDER,
        env={"KP_TEST_OPENAI_KEY": KEY},
    )
    _contract(answer)
    assert answer.mode == "llm" and "[7]" not in answer.answer and "[9]" not in answer.answer
    assert [c.number for c in answer.citations] == [1]
    assert "[7], [9]" in answer.warnings[0]


def test_llm_answer_citing_nothing_falls_back(fake: FakeOpenAI) -> None:
    fake.chat_answer = "It runs on Sundays, I believe [12]."
    answer = answer_question(
        "When does the weekly reindex run?",
        HITS,
        scope="internal",
        config=_config(fake),
        embedder=EMBEDDER,
        env={"KP_TEST_OPENAI_KEY": KEY},
    )
    _contract(answer)
    assert answer.mode == "extractive" and answer.answer.startswith(EXTRACTIVE_LABEL)
    assert any("cited none of the retrieved sources" in w for w in answer.warnings)


def test_llm_retries_rate_limits_then_answers(fake: FakeOpenAI) -> None:
    """The SDK retries a 429 after the server's retry-after-ms (10 ms here)."""
    fake.rate_limit(2)
    answer = _llm(fake, "When?", max_retries=2)
    assert answer.mode == "llm" and len(fake.chat_requests) == 1
    assert [r.status for r in fake.requests("/v1/chat/completions", "POST")] == [429, 429, 200]


def test_llm_failures_fall_back_to_extractive(fake: FakeOpenAI) -> None:
    fake.inject(
        "/v1/",
        500,
        error_body("The server had an error.", "server_error"),
        times=3,
        headers={"retry-after-ms": "10"},
    )
    answer = _llm(fake, "When does the weekly reindex run?", max_retries=2)
    assert answer.mode == "extractive" and "HTTP 500 after 3 attempts" in answer.warnings[0]
    assert len(fake.requests("/v1/chat/completions", "POST")) == 3
    wrong_key = _llm(fake, "When does the weekly reindex run?", api_key="sk-wrong")
    assert wrong_key.mode == "extractive"
    assert wrong_key.warnings[0].startswith(
        "chat model failed: HTTP 401 after 1 attempt: Incorrect API key"
    )
    assert "(check the API key); showing the extractive answer" in wrong_key.warnings[0]
    assert len(fake.requests("/v1/chat/completions", "POST")) == 4  # a 401 is not retried


def test_check_citations_handles_lists() -> None:
    text, cited, invalid = check_citations("A [1, 4] and B [2,3] .", {1, 2})
    assert text == "A [1] and B [2]." and cited == [1, 2] and invalid == [3, 4]


def test_llm_conflict_lines_become_conflicts_and_warnings(fake: FakeOpenAI) -> None:
    fake.chat_answer = (
        "Reports freeze from December 20 [3]; tests last 14 days [2].\n"
        "CONFLICT: [3] vs [2]: whether tests may run over the holidays\n"
        "CONFLICT: [3] vs [9]: a source that does not exist"
    )
    answer = _llm(fake, "When do tests stop?")
    _contract(answer)
    assert answer.mode == "llm" and "CONFLICT" not in answer.answer
    assert [c.number for c in answer.citations] == [1, 2]  # renumbered by first use
    assert [c.title for c in answer.citations] == ["Holiday freeze", "Standing rules"]
    [conflict] = answer.conflicts  # the line naming [9] is dropped
    assert conflict.kind == "model"
    assert [(c.citation, c.title) for c in conflict.claims] == [
        (1, "Holiday freeze"),
        (2, "Standing rules"),
    ]
    assert answer.warnings == [
        "conflict: the model reports that [1] and [2] disagree: "
        "whether tests may run over the holidays"
    ]


def test_llm_prompt_carries_dates_kinds_marks_and_the_window(fake: FakeOpenAI) -> None:
    """The chat model sees when each source was said, its kind of time, which source
    supersedes which, the disagreements the rules found and the question's date window;
    the citations it returns keep those fields."""
    roster = _hit(
        1,
        "Team roster",
        "Account director for Acme: Dana Whitfield.",
        0.9,
        time_kind="standing",
        extra={"successor": "memory_files:2.md"},
    )
    handover = _hit(
        2,
        "2026-11-02 log",
        "Acme was handed over from Dana Whitfield to Lee Park as account director.",
        0.8,
        time_kind="event",
    )
    fake.chat_answer = "Lee Park [2]; earlier Dana Whitfield [1]."
    question = understand(
        "Who took over as account director for Acme last week?", dt.date(2026, 11, 9)
    )
    answer = llm_answer(
        question,
        [roster, handover],
        scope="internal",
        config=_config(fake),
        api_key=KEY,
        embedder=EMBEDDER,
        min_score=0.0,
    )
    user = fake.chat_requests[-1]["messages"][-1]["content"]
    assert "[1] Team roster (memory_files, 2026-11-01, standing, superseded by [2]," in user
    assert "[2] 2026-11-02 log (memory_files, 2026-11-02, event," in user
    assert "Disagreements found between the sources:" in user and "[2] is newer" in user
    assert "searched from 2026-11-02 to 2026-11-08, read from 'last week'" in user
    assert "Question: Who took over as account director for Acme last week?" in user
    by_title = {c.title: c for c in answer.citations}
    assert by_title["Team roster"].superseded_by == "memory_files:2.md"
    assert by_title["Team roster"].time_kind == "standing"
    assert by_title["2026-11-02 log"].time_kind == "event"
    assert by_title["2026-11-02 log"].date == dt.date(2026, 11, 2)
