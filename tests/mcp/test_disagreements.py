"""Answers that say when sources disagree, find a superseded record the question names, and
keep to the question — through the MCP tools over an index of memory files, a ClickUp Doc and
a git handbook (tests/mcp/sources_disagree.py; local model, ~5 s to build once)."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastmcp import Client

from knowledge_platform.config.registry import AnswerConfig
from knowledge_platform.runtime import Runtime
from mcp_service.server import build_server
from tests.fakes.openai_server import FakeOpenAI
from tests.mcp.sources_disagree import build

pytestmark = pytest.mark.anyio

ADR7 = "git_docs:decisions/0007-monthly-reports.md"
ADR8 = "git_docs:decisions/0008-biweekly-reports.md"
ADR8_TITLE = "ADR 8: biweekly client reports"


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    with pytest.MonkeyPatch.context() as env:
        yield from build(tmp_path_factory.mktemp("disagree"), env)


async def call(runtime: Runtime, tool: str, **args: Any) -> dict[str, Any]:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        result = await client.call_tool(tool, args)
    return result.structured_content or {}


def markers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\[(\d+)\]", text)]


async def test_disagreeing_sources_are_shown_side_by_side(runtime: Runtime) -> None:
    answer = await call(
        runtime, "knowledge_ask", question="What is our naming convention for experiments?"
    )
    assert answer["mode"] == "extractive"
    cited = {c["source"]: c for c in answer["citations"]}
    assert set(cited) == {"clickup", "memory_files"}
    rules, playbook = cited["memory_files"], cited["clickup"]
    assert "`CLIENT-YYYYMM-short-slug`" in answer["answer"]
    assert "`BRAND-YYMM short-slug`" in answer["answer"]
    [conflict] = answer["conflicts"]
    assert conflict["kind"] == "code"
    claims = {c["citation"]: c for c in conflict["claims"]}
    assert claims[rules["number"]]["value"] == "`CLIENT-YYYYMM-short-slug`"
    assert claims[playbook["number"]]["value"] == "`BRAND-YYMM short-slug`"
    assert claims[rules["number"]]["date"] == rules["date"] == "2026-11-20"
    assert claims[playbook["number"]]["source"] == "clickup" and playbook["date"]
    assert conflict["newer"] == rules["number"]  # the standing rules are the newer source
    assert f"[{rules['number']}] is newer" in answer["answer"]
    [warning] = [w for w in answer["warnings"] if w.startswith("conflict:")]
    assert "memory_files, 2026-11-20" in warning and "clickup" in warning
    numbers = [c["number"] for c in answer["citations"]]
    assert (
        numbers
        == list(range(1, len(numbers) + 1))
        == list(dict.fromkeys(markers(answer["answer"])))
    )


async def test_agreeing_answer_has_no_conflict(runtime: Runtime) -> None:
    answer = await call(runtime, "knowledge_ask", question="When do client reports go out?")
    assert "every second Monday" in answer["answer"]
    assert answer["conflicts"] == []
    assert not [w for w in answer["warnings"] if w.startswith("conflict")]


@pytest.mark.parametrize(
    "question",
    [
        "What did ADR 7 decide?",  # its number
        "What did the monthly client reports record decide?",  # its title
        "What does decisions/0007-monthly-reports.md say?",  # its path
    ],
)
async def test_a_superseded_record_the_question_names_is_returned(
    runtime: Runtime, question: str
) -> None:
    def named_warning(warnings: list[str]) -> str:
        [found] = [w for w in warnings if ADR7 in w and "shown because the question names it" in w]
        return found

    search = await call(runtime, "knowledge_search", query=question, limit=5)
    first = search["hits"][0]
    assert first["doc_id"] == ADR7 and first["superseded_by"] == ADR8
    assert first["lifecycle"] == "deprecated"
    assert f"superseded by {ADR8} ('{ADR8_TITLE}')" in named_warning(search["warnings"])

    answer = await call(runtime, "knowledge_ask", question=question)
    assert answer["mode"] == "extractive"
    assert "first Monday of every month" in answer["answer"]
    assert answer["citations"][0]["doc_id"] == ADR7
    assert answer["citations"][0]["superseded_by"] == ADR8
    assert ADR8_TITLE in named_warning(answer["warnings"])

    context = await call(runtime, "get_context", topic=question)
    block = context["blocks"][0]
    assert block["doc_id"] == ADR7 and block["superseded_by"] == ADR8
    assert "first Monday of every month" in block["text"]
    assert ADR8_TITLE in named_warning(context["warnings"])


async def test_a_superseded_record_stays_hidden_unless_named(runtime: Runtime) -> None:
    search = await call(
        runtime, "knowledge_search", query="When do client reports go out?", limit=10
    )
    assert ADR7 not in {h["doc_id"] for h in search["hits"]}
    assert ADR8 in {h["doc_id"] for h in search["hits"]}
    assert search["warnings"] == []
    unknown = await call(runtime, "knowledge_search", query="What did ADR 70 decide?")
    assert ADR7 not in {h["doc_id"] for h in unknown["hits"]}


async def test_an_answer_keeps_to_the_question(runtime: Runtime) -> None:
    answer = await call(runtime, "knowledge_ask", question="How long should an experiment run?")
    assert answer["mode"] == "extractive"
    assert "two full business cycles" in answer["answer"]
    assert "Tuesday" not in answer["answer"] and "10:00" not in answer["answer"]
    assert [c["title"] for c in answer["citations"]] == ["Surefoot standing rules"]


async def test_with_a_chat_model_its_conflict_lines_become_conflicts(runtime: Runtime) -> None:
    def reply(messages: list[dict[str, Any]]) -> str:
        prompt = messages[-1]["content"]
        rules = re.search(r"\[(\d+)\] Surefoot standing rules", prompt)
        playbook = re.search(r"\[(\d+)\] Experiment playbook / Naming", prompt)
        assert rules and playbook, prompt
        a, b = rules.group(1), playbook.group(1)
        return (
            f"Test names follow `CLIENT-YYYYMM-short-slug` [{a}]; the playbook says "
            f"`BRAND-YYMM short-slug` [{b}]. [{a}] is newer.\n"
            f"CONFLICT: [{a}] vs [{b}]: the naming convention for experiments"
        )

    with FakeOpenAI(api_key="sk-disagree") as fake, pytest.MonkeyPatch.context() as env:
        fake.chat_answer = reply
        env.setenv("KP_TEST_CHAT_KEY", "sk-disagree")
        llm = copy.copy(runtime)
        llm.registry = runtime.registry.model_copy(
            update={"answer": AnswerConfig(api_key_env="KP_TEST_CHAT_KEY", base_url=fake.base_url)}
        )
        answer = await call(
            llm, "knowledge_ask", question="What is our naming convention for experiments?"
        )
    assert answer["mode"] == "llm" and "CONFLICT" not in answer["answer"]
    cited = {c["source"]: c["number"] for c in answer["citations"]}
    [conflict] = answer["conflicts"]  # the model's and the rules' finding are one conflict
    assert {c["citation"] for c in conflict["claims"]} == {cited["memory_files"], cited["clickup"]}
    assert conflict["newer"] == cited["memory_files"]
    assert [w for w in answer["warnings"] if w.startswith("conflict:")]
