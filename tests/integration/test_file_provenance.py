"""What an agent sees of a converted file, through the real assets and a real MCP client over
HTTP: `knowledge_search` hits, `knowledge_ask` citations, `get_context` blocks and
`list_decisions` citations name the file, its MIME type, the page/slide/sheet the text is on,
the source's url and version (git sha, Drive version, ClickUp attachment id); a document kept
at its last good version says it is stale and since when; other hits carry none of these keys.

One git docs repository (a 3-page PDF, a PPTX with notes, a DOCX with headings and a table, an
XLSX with two sheets, a PDF decision record), one Drive upload and one ClickUp attachment, all
indexed once for the module (about 12 s of setup here)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from typer.testing import CliRunner

from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.access import ensure_admin_token
from knowledge_platform.settings import Settings
from kp.app import app
from tests import office_files
from tests.assets.conftest import Materializer
from tests.conformance.sources.clickup import ClickUpTasksHarness
from tests.conformance.sources.google_drive import GoogleDriveHarness
from tests.conftest import write_registry
from tests.integration.test_git_docs import commit, git
from tests.mcp.test_http import serving

pytestmark = pytest.mark.integration

PDF = "application/pdf"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
FILE_KEYS = {"file_name", "mime_type", "page", "slide", "sheet", "stale", "last_refreshed"}

PAGES = [
    "The osprey kickoff opens the engagement.",
    "Page two lists the heron milestones.",
    "The egret budget is forty hours a month.",
]
SLIDES = [
    ("Plover review", "Sessions rose seven percent.", "Mention the sandpiper caveat."),
    ("Next steps", "The curlew test starts in May.", ""),
]
BRIEF = [
    ("title", "Avocet brief"),
    ("h1", "Scope"),
    ("p", "The stilt audit covers checkout."),
    ("h2", "Budget"),
    ("table", [["Item", "Hours"], ["Dunlin setup", "12"]]),
]
SHEETS: dict[str, Sequence[Sequence[str]]] = {
    "Plan": [["Task", "Owner"], ["Godwit review", "Ana"]],
    "Budget": [["Line", "USD"], ["Whimbrel ads", "900"]],
}
URL = "https://git.example.test/handbook/blob/{sha}/{path}"


@dataclass
class Indexed:
    url: str
    token: str
    sha: str
    drive_version: str
    attachment_id: str
    task_id: str


def _registry(
    root: Path,
    repo: Path,
    drive: GoogleDriveHarness,
    clickup: ClickUpTasksHarness,
    mp: pytest.MonkeyPatch,
) -> Settings:
    git_docs = {
        "repo": str(repo),
        "branch": "main",
        "url_template": URL,
        "globs": ["**/*.md", "**/*.pdf", "**/*.pptx", "**/*.docx", "**/*.xlsx"],
    }
    registry = {
        "embedding": {"provider": "hash"},
        "store": {"engine": "edge"},
        "answer": {"api_key_env": "KP_TEST_NO_SUCH_KEY"},
        "internal": {
            "sources": {
                "git_docs": git_docs,
                "google_drive": drive.settings("internal"),
                "clickup": clickup.settings("internal"),
            }
        },
    }
    path = write_registry(root / "registry.yaml", registry)
    mp.setenv("KP_HOME", str(root / "home"))
    mp.setenv("KP_CONFIG", str(path))
    return Settings()


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Indexed]:
    root = tmp_path_factory.mktemp("file-provenance")
    with pytest.MonkeyPatch.context() as mp:
        drive, clickup = GoogleDriveHarness(root, mp), ClickUpTasksHarness(root, mp)
        drive.start()
        clickup.start()
        try:
            yield from _index(root, mp, drive, clickup)
        finally:
            drive.stop()
            clickup.stop()


def _index(
    root: Path, mp: pytest.MonkeyPatch, drive: GoogleDriveHarness, clickup: ClickUpTasksHarness
) -> Iterator[Indexed]:
    repo = root / "handbook"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    sha = commit(
        repo,
        {
            "contracts/sow.pdf": office_files.pdf(PAGES),
            "contracts/brief.pdf": office_files.pdf(["The bittern retainer renews in June."]),
            "decks/review.pptx": office_files.pptx(SLIDES),
            "briefs/avocet.docx": office_files.docx(BRIEF),
            "plans/q3.xlsx": office_files.xlsx(SHEETS),
            "decisions/adr-9.pdf": office_files.pdf(
                ["Status: accepted\n\nWe will host the wren service on the embedded engine."]
            ),
            "README.md": "# Handbook\n\nThe contracts folder holds the kestrel agreements.\n",
        },
        day=1,
    )
    upload = drive.fake.add_upload(
        "Audit report.pdf",
        drive.folders["internal", "a"],
        PDF,
        office_files.pdf(["Audit summary.", "The ibis funnel leaks at checkout."]),
        file_id="upload-audit",
    )
    task = clickup.fake.add_task("L-a", "Quarterly review", description="See the deck.")
    attachment = clickup.fake.add_attachment(
        task,
        "pelican.pptx",
        office_files.pptx(
            [("Pelican plan", "The pelican launch is in week two.", "Say it twice.")]
        ),
        mimetype=PPTX,
    )
    settings = _registry(root, repo, drive, clickup, mp)
    run = Materializer(settings)
    for source in ("git_docs", "google_drive", "clickup"):
        run(source)
    # The brief is replaced by a password-protected edit it cannot read: kept stale.
    commit(
        repo,
        {"contracts/brief.pdf": office_files.pdf(["The bittern retainer ends."], password="pw")},
        day=2,
    )
    run("git_docs")
    token, _, _ = ensure_admin_token(settings)
    runtime = Runtime(settings)
    try:
        with serving(runtime) as url:
            meta = drive.fake.files[upload]
            yield Indexed(
                url=url,
                token=token,
                sha=sha,
                drive_version=str(meta.version),
                attachment_id=attachment,
                task_id=task,
            )
    finally:
        runtime.close()


async def _call(indexed: Indexed, tool: str, **arguments: Any) -> dict[str, Any]:
    async with Client(indexed.url, auth=indexed.token) as client:
        return await _on(client, tool, **arguments)


async def _on(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error
    return result.structured_content or {}


async def _hit(indexed: Indexed, phrase: str, client: Client | None = None) -> dict[str, Any]:
    arguments = {"query": phrase, "limit": 10}
    found = await (
        _on(client, "knowledge_search", **arguments)
        if client
        else _call(indexed, "knowledge_search", **arguments)
    )
    return next(h for h in found["hits"] if phrase in h["snippet"].lower())


async def _version(indexed: Indexed, hit: dict[str, Any]) -> str:
    """A hit's source version: hits carry handles, the document carries its provenance."""
    document = await _call(indexed, "get_document", doc_id=hit["doc_id"], scope=hit["scope"])
    return document["version"]


def _source_id(hit: dict[str, Any]) -> str:
    return hit["doc_id"].split(":", 1)[1]


GIT_FILES = [
    ("heron milestones", "sow.pdf", PDF, "page", 2),
    ("egret budget", "sow.pdf", PDF, "page", 3),
    ("sandpiper caveat", "review.pptx", PPTX, "slide", 1),
    ("curlew test", "review.pptx", PPTX, "slide", 2),
    ("godwit review", "q3.xlsx", XLSX, "sheet", 1),
    ("whimbrel ads", "q3.xlsx", XLSX, "sheet", 2),
    ("dunlin setup", "avocet.docx", DOCX, None, None),
]


@pytest.mark.anyio
async def test_a_git_file_hit_names_its_file_type_place_url_and_sha(indexed: Indexed) -> None:
    async with Client(indexed.url, auth=indexed.token) as client:
        for phrase, file_name, mime, unit, number in GIT_FILES:
            hit = await _hit(indexed, phrase, client)
            assert (hit["file_name"], hit["mime_type"]) == (file_name, mime), phrase
            assert await _version(indexed, hit) == indexed.sha
            assert hit["url"] == URL.format(sha=indexed.sha, path=_source_id(hit))
            units = {"page", "slide", "sheet"} & hit.keys()
            assert units == ({unit} if unit else set()), phrase
            assert hit.get(unit or "page") == number, phrase
            assert "stale" not in hit and "last_refreshed" not in hit


@pytest.mark.anyio
async def test_drive_upload_and_clickup_attachment_hits(indexed: Indexed) -> None:
    upload = await _hit(indexed, "ibis funnel")
    assert (upload["file_name"], upload["mime_type"], upload["page"]) == (
        "Audit report.pdf",
        PDF,
        2,
    )
    assert upload["source"] == "google_drive"
    assert await _version(indexed, upload) == indexed.drive_version
    assert upload["url"] and "upload-audit" in upload["url"]
    attached = await _hit(indexed, "pelican launch")
    assert (attached["file_name"], attached["mime_type"], attached["slide"]) == (
        "pelican.pptx",
        PPTX,
        1,
    )
    assert attached["source"] == "clickup"
    assert await _version(indexed, attached) == indexed.attachment_id
    assert attached["url"] == f"https://app.clickup.com/t/{indexed.task_id}"


@pytest.mark.anyio
async def test_hits_of_plain_text_carry_no_file_keys(indexed: Indexed) -> None:
    hit = await _hit(indexed, "kestrel agreements")
    assert _source_id(hit) == "README.md"
    assert not FILE_KEYS & hit.keys()


@pytest.mark.anyio
async def test_a_stale_file_hit_says_so_and_since_when(indexed: Indexed) -> None:
    hit = await _hit(indexed, "bittern retainer renews")
    assert hit["stale"].startswith("brief.pdf: ") and "password" in hit["stale"], hit["stale"]
    refreshed = dt.datetime.fromisoformat(hit["last_refreshed"])
    assert dt.timedelta(0) <= dt.datetime.now(dt.UTC) - refreshed < dt.timedelta(minutes=10)
    assert hit["file_name"] == "brief.pdf" and hit["page"] == 1


@pytest.mark.anyio
async def test_an_answer_cites_the_page_its_sentence_is_on(indexed: Indexed) -> None:
    answer = await _call(indexed, "knowledge_ask", question="What is the egret budget?")
    assert answer["mode"] == "extractive", answer
    (cited,) = [c for c in answer["citations"] if c.get("file_name") == "sow.pdf"]
    assert (cited["mime_type"], cited["page"], cited["version"]) == (PDF, 3, indexed.sha)


@pytest.mark.anyio
async def test_context_blocks_and_decisions_carry_the_file(indexed: Indexed) -> None:
    context = await _call(indexed, "get_context", topic="curlew test in May")
    block = next(b for b in context["blocks"] if b["file_name"] == "review.pptx")
    assert (block["mime_type"], block["slide"], block["version"]) == (PPTX, 2, indexed.sha)
    decisions = await _call(indexed, "list_decisions")
    (adr,) = [d for d in decisions["decisions"] if d["title"] == "adr-9"]
    assert adr["citation"]["file_name"] == "adr-9.pdf"
    assert (adr["citation"]["mime_type"], adr["citation"]["page"]) == (PDF, 1)


def test_kp_search_shows_the_file_its_page_and_staleness(indexed: Indexed) -> None:
    found = CliRunner().invoke(app, ["search", "egret budget"])
    assert found.exit_code == 0, found.output
    assert " · sow.pdf p. 3 · https://git.example.test/" in found.stdout
    kept = CliRunner().invoke(app, ["search", "bittern retainer renews"])
    assert " · brief.pdf p. 1 · " in kept.stdout
    assert "stale: " in kept.stdout and "(last read 20" in kept.stdout
