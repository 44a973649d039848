"""Documentation governance through the MCP tools: a real git repository of runbooks and
decision records, pulled by the git_docs connector and indexed by the core pipeline, read by
two principals of one scope (a plain one and an admin, plus a `restricted` one).

A restricted runbook is invisible to the plain principal through every tool and visible to
the admin; list_runbooks filters by prefix, tag and lifecycle; a superseded record says so
(with its successor) in every result that shows it; answers and documents carry the
`doc://` uri, the commit sha and the lifecycle."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from knowledge_platform.config.registry import Registry, hash_token
from knowledge_platform.ingest.indexing import index_source
from knowledge_platform.ingest.runtime import IngestRuntime
from knowledge_platform.runtime import Runtime
from mcp_service.server import build_server
from tests.integration.test_git_docs import commit, git
from tests.mcp.fixtures import TODAY, make_settings

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parents[2]
LEAK = "runbooks/incidents/key-leak.md"
FILES = {
    "runbooks/incidents/outage.md": (
        "---\ntitle: Site outage\ntags: [incident, oncall]\n---\n# Site outage\n\n## Steps\n"
        "Pause the experiments, page the on-call engineer, post in the incident channel.\n"
    ),
    LEAK: (
        "---\ntitle: Heron key leak\ntags: [incident, security]\nconfidentiality: restricted\n"
        "---\n# Heron key leak\n\n## Steps\nRotate the heron vault key within one hour and "
        "revoke the old one after the nightly sync.\n"
    ),
    "runbooks/deploy.md": (
        "---\ntitle: Deploying the tracker\ntags: [deploy]\n---\n# Deploying the tracker\n\n"
        "Tag a release and let the pipeline ship the tracker script.\n"
    ),
    "runbooks/drafts/rollback.md": (
        "---\ntitle: Rolling back\ntags: [deploy]\nlifecycle: draft\n---\n# Rolling back\n\n"
        "Draft: revert the tracker release tag.\n"
    ),
    "decisions/0001-monthly-reports.md": (
        "---\ntitle: Monthly reports\nstatus: accepted\n---\n# Monthly reports\n\n## Decision\n"
        "Client reports go out on the first Monday of every month.\n"
    ),
    "decisions/0002-biweekly-reports.md": (
        "---\ntitle: Biweekly reports\nstatus: accepted\nsupersedes: 0001-monthly-reports.md\n"
        "---\n# Biweekly reports\n\n## Decision\nClient reports go out every second Monday.\n"
    ),
    "decisions/0003-heron-vault.md": (
        "---\ntitle: Heron vault for client keys\nstatus: accepted\nconfidentiality: "
        "restricted\n---\n# Heron vault for client keys\n\n## Decision\nClient keys live in "
        "the heron vault only.\n"
    ),
}
MEMORY = {
    "memory/notes.md": f"---\ndate: {TODAY}\n---\n# Notes\n\nThe kiwi audit starts Monday.\n",
    "memory/hr.md": (
        f"---\ndate: {TODAY}\nconfidentiality: restricted\n---\n# Heron payroll\n\n"
        "The heron payroll review moves to Friday.\n"
    ),
}
#: A statement of work in the same repository: searchable, but a file, not a runbook.
SOW = "contracts/plant-therapy-sow.pdf"
TOKENS = {"maya": "maya-token-0001", "rita": "rita-token-0002", "ops": "ops-token-0003"}


def _registry(root: Path, repo: Path) -> Registry:
    return Registry.model_validate(
        {
            "embedding": {"provider": "hash"},
            "store": {"engine": "edge"},
            "answer": {"api_key_env": "KP_TEST_NO_SUCH_KEY"},
            "internal": {
                "sources": {
                    "git_docs": {"repo": str(repo), "globs": ["**/*.md", "**/*.pdf"]},
                    "memory_files": {"path": str(root / "memory")},
                }
            },
            "principals": [
                {"name": "maya", "token_sha256": hash_token(TOKENS["maya"])},
                {"name": "rita", "token_sha256": hash_token(TOKENS["rita"]), "role": "restricted"},
                {"name": "ops", "token_sha256": hash_token(TOKENS["ops"]), "admin": True},
            ],
            "base_dir": root,
        }
    )


def index(runtime: IngestRuntime, source: str) -> int:
    """One run of the source's steps (incremental after the first, from the snapshots);
    returns how many chunks were sent to the model."""
    return index_source(runtime, source).embedded


@pytest.fixture
def handbook(tmp_path: Path) -> Iterator[tuple[Runtime, str]]:
    repo = tmp_path / "handbook"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    head = commit(
        repo, {**FILES, SOW: (REPO / "demo/files/plant-therapy-sow.pdf").read_bytes()}, day=3
    )
    (tmp_path / "memory").mkdir()
    for rel, text in MEMORY.items():
        (tmp_path / rel).write_text(text)
    runtime = IngestRuntime(make_settings(tmp_path), registry=_registry(tmp_path, repo))
    index(runtime, "git_docs")
    index(runtime, "memory_files")
    yield runtime, head
    runtime.close()


async def call(runtime: Runtime, principal: str, tool: str, **args: Any) -> dict[str, Any]:
    async with Client(build_server(runtime, default_principal=principal)) as client:
        result = await client.call_tool(tool, args)
    return result.structured_content or {}


async def seen_by(runtime: Runtime, principal: str) -> dict[str, set[str]]:
    """The titles each tool shows `principal` for questions aimed at the restricted texts."""
    q = "heron vault key rotate leak payroll"
    search = await call(runtime, principal, "knowledge_search", query=q, limit=50)
    ask = await call(runtime, principal, "knowledge_ask", question=q)
    context = await call(runtime, principal, "get_context", topic=q)
    decisions = await call(runtime, principal, "list_decisions")
    memory = await call(runtime, principal, "list_recent_memory", days=3)
    runbooks = await call(runtime, principal, "list_runbooks", prefix="runbooks/incidents/")
    try:
        document = await call(runtime, principal, "get_document", doc_id=f"git_docs:{LEAK}")
        documents = {document["title"]}
    except ToolError as exc:
        assert "no document" in str(exc)
        documents = set()
    return {
        "knowledge_search": {h["title"] for h in search["hits"]},
        "knowledge_ask": {c["title"] for c in ask["citations"]},
        "get_context": {b["title"] for b in context["blocks"]},
        "list_decisions": {d["title"] for d in decisions["decisions"]},
        "list_recent_memory": {e["title"] for e in memory["entries"]},
        "list_runbooks": {r["title"] for r in runbooks["runbooks"]},
        "get_document": documents,
    }


RESTRICTED = {"Heron key leak", "Heron vault for client keys", "Heron payroll"}


async def test_restricted_documents_only_reach_admins_and_named_principals(handbook) -> None:
    runtime, _ = handbook
    plain = await seen_by(runtime, "maya")
    for tool, titles in plain.items():
        assert not titles & RESTRICTED, (tool, titles)
    assert "Site outage" in plain["list_runbooks"]  # the same query does reach maya's level
    for principal in ("ops", "rita"):
        full = await seen_by(runtime, principal)
        expected = {
            "knowledge_search": RESTRICTED,
            "knowledge_ask": {"Heron key leak"},
            "get_context": {"Heron key leak"},
            "list_decisions": {"Heron vault for client keys"},
            "list_recent_memory": {"Heron payroll"},
            "list_runbooks": {"Heron key leak"},
            "get_document": {"Heron key leak"},
        }
        for tool, titles in expected.items():
            assert titles <= full[tool], (principal, tool, full[tool])


async def test_list_runbooks_filters_by_prefix_tag_and_lifecycle(handbook) -> None:
    runtime, head = handbook

    async def paths(**args: Any) -> list[str]:
        found = await call(runtime, "ops", "list_runbooks", **args)
        return [r["path"] for r in found["runbooks"]]

    assert await paths(prefix="runbooks/") == [
        "runbooks/deploy.md",
        LEAK,
        "runbooks/incidents/outage.md",
    ]
    assert await paths(prefix="/runbooks/incidents") == [LEAK, "runbooks/incidents/outage.md"]
    assert await paths(tag="deploy") == ["runbooks/deploy.md"]
    assert await paths(tag="Deploy", include_drafts=True) == [
        "runbooks/deploy.md",
        "runbooks/drafts/rollback.md",
    ]
    assert await paths(prefix="decisions/", tag="incident") == []
    assert await paths(prefix="nowhere/") == []
    every = await call(runtime, "ops", "list_runbooks")
    outage = next(r for r in every["runbooks"] if r["path"] == "runbooks/incidents/outage.md")
    assert outage["sha"] == head and outage["updated"] == "2026-03-03"
    assert outage["lifecycle"] == "stable" and outage["kind"] == "runbook"
    assert outage["uri"] == f"doc://git_docs/runbooks/incidents/outage.md@{head}"
    assert outage["tags"] == ["incident", "oncall"] and every["warnings"] == []
    assert SOW not in {r["path"] for r in every["runbooks"]}  # indexed, but not a runbook
    sow = await call(runtime, "ops", "get_document", doc_id=f"git_docs:{SOW}")
    assert sow["title"] == "plant-therapy-sow"
    with pytest.raises(ToolError, match="tag"):
        await call(runtime, "ops", "list_runbooks", tag="")


async def test_superseded_records_point_at_their_successor_everywhere(handbook) -> None:
    """0001 says `accepted`, but 0002 `supersedes:` it: it is superseded all the same —
    left out of default results, shown when asked for or named, always naming 0002."""
    runtime, head = handbook
    old = "git_docs:decisions/0001-monthly-reports.md"
    new = "git_docs:decisions/0002-biweekly-reports.md"
    q = "when do monthly client reports go out"
    default = await call(runtime, "maya", "knowledge_search", query=q, limit=10)
    assert new in [h["doc_id"] for h in default["hits"]]
    assert old not in [h["doc_id"] for h in default["hits"]]
    search = await call(
        runtime, "maya", "knowledge_search", query=q, limit=10, include_deprecated=True
    )
    marks = {h["doc_id"]: h.get("superseded_by") for h in search["hits"]}
    assert marks[old] == new and marks[new] is None
    assert {h["doc_id"]: h["lifecycle"] for h in search["hits"]}[old] == "deprecated"
    ask = await call(runtime, "maya", "knowledge_ask", question=q)
    assert old not in [c["doc_id"] for c in ask["citations"]]
    assert "first Monday" not in ask["answer"]
    named = await call(
        runtime, "maya", "knowledge_ask", question="What did the monthly reports record decide?"
    )
    cited = {c["doc_id"]: c for c in named["citations"]}
    assert cited[old]["superseded_by"] == new and "first Monday" in named["answer"]
    assert any("superseded by " + new in w for w in named["warnings"])
    for c in cited.values():  # provenance an auditor can check out
        assert c["uri"].startswith("doc://git_docs/") and c["uri"].endswith("@" + head)
        assert c["sha"] == head
    context = await call(runtime, "maya", "get_context", topic="the monthly reports record")
    assert {b["doc_id"]: b["superseded_by"] for b in context["blocks"]}[old] == new
    document = await call(runtime, "maya", "get_document", doc_id=old)
    assert document["superseded_by"] == new and document["sha"] == head
    assert document["uri"] == f"doc://git_docs/decisions/0001-monthly-reports.md@{head}"
    runbooks = await call(
        runtime, "maya", "list_runbooks", prefix="decisions/", include_deprecated=True
    )
    assert {r["doc_id"]: r["superseded_by"] for r in runbooks["runbooks"]} == {old: new, new: None}
    decisions = await call(runtime, "maya", "list_decisions")
    record = next(d for d in decisions["decisions"] if d["citation"]["doc_id"] == old)
    assert record["superseded"] and record["superseded_by"] == new


async def test_a_new_record_marks_an_unchanged_one_superseded(handbook, tmp_path: Path) -> None:
    """The link is resolved over the whole snapshot: an incremental pull that brings only
    the successor still rewrites the predecessor's points (payload only, no re-embedding)."""
    runtime, _ = handbook
    repo = tmp_path / "handbook"
    commit(
        repo,
        {
            "runbooks/site-down.md": (
                "---\ntitle: Site down\nsupersedes: incidents/outage.md\n---\n# Site down\n\n"
                "Follow the status page playbook.\n"
            )
        },
        day=4,
    )
    embedded = index(runtime, "git_docs")
    assert embedded == 1  # the new runbook's one chunk; the old one's payload only
    found = await call(
        runtime,
        "maya",
        "list_runbooks",
        prefix="runbooks/incidents/outage",
        include_deprecated=True,
    )
    assert [r["superseded_by"] for r in found["runbooks"]] == ["git_docs:runbooks/site-down.md"]


async def test_a_source_can_be_restricted_in_the_registry(handbook) -> None:
    runtime, _ = handbook
    memory = await call(runtime, "maya", "list_recent_memory", days=3)
    assert [e["title"] for e in memory["entries"]] == ["Notes"]
    registry = runtime.registry.model_copy(deep=True)
    registry.internal.sources["memory_files"]["confidentiality"] = "restricted"
    restricted = IngestRuntime(runtime.settings, registry=registry)  # the same KP_HOME
    try:
        index(restricted, "memory_files")
    finally:
        restricted.close()
    memory = await call(runtime, "maya", "list_recent_memory", days=3)
    assert memory["entries"] == []
    memory = await call(runtime, "rita", "list_recent_memory", days=3)
    assert {e["title"] for e in memory["entries"]} == {"Notes", "Heron payroll"}
    assert {e["confidentiality"] for e in memory["entries"]} == {"restricted"}
