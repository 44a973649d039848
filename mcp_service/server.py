"""The FastMCP server: nine tools over one Runtime. Built by `build_server`, never at import.

Auth: over HTTP a bearer token is required (none or unknown: 401). A call without any
access token (stdio, the in-memory client) runs as `default_principal`, or is refused when
there is none. Tools raise ToolError with a one-line message; nothing else leaks.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, TypeVar

import anyio.to_thread
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError, ValidationError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import ToolResult
from fastmcp.utilities.logging import get_logger
from mcp_types import CallToolRequestParams, ToolAnnotations
from pydantic import Field
from pydantic import ValidationError as PydanticValidationError

from knowledge_platform.errors import KnowledgePlatformError, QueryError
from knowledge_platform.models import Kind
from knowledge_platform.redact import redact
from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.access import (
    Authenticator,
    Grant,
    LiveAuthenticator,
    authenticator_for,
)
from knowledge_platform.serve.answers.contract import Answer
from knowledge_platform.serve.querylog import QueryLog
from knowledge_platform.serve.retrieval import require_text
from mcp_service import paging
from mcp_service.auth import Caller
from mcp_service.catalogue import compact_inputs, output_schema
from mcp_service.dagster_client import DagsterClient, DagsterUnavailable
from mcp_service.dagster_models import IndexStatus
from mcp_service.identity import ICONS, TITLE, website
from mcp_service.oauth import auth_provider
from mcp_service.protocol import PAGE_SIZE, conform
from mcp_service.results import StructuredOnce
from mcp_service.schemas import (
    ContextResult,
    DecisionList,
    DocumentResult,
    MemoryList,
    ReindexResult,
    RunbookList,
    SearchResult,
)
from mcp_service.service import KnowledgeService

T = TypeVar("T")
log = get_logger("mcp_service")  # under FastMCP's logger: the same handler, the same mcp.log
#: Readers: read-only (which makes destructive and idempotent moot) over a closed world.
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
LAUNCH = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
INSTRUCTIONS = (
    "Surefoot's knowledge base: memory files, ClickUp, Google Drive, Supabase, the website and "
    "git runbooks, one scope per client. Search `internal` unless the question is about one "
    "client; cite the title and url/uri of what you use."
)

Scope = Annotated[str, Field(min_length=1, max_length=64, description="'internal' or a client id")]
Query = Annotated[
    str, Field(min_length=1, max_length=2000, description="natural-language question or keywords")
]
Cursor = Annotated[
    str | None,
    Field(
        max_length=512, description=("next_cursor of the previous page; omit for the first page")
    ),
]
Drafts = Annotated[bool, Field(description="also drafts")]
Deprecated = Annotated[bool, Field(description="also deprecated documents")]
#: List items per page (decisions, runbooks, memory entries), each page within the result
#: budget bench/context_budget.py checks.
DECISIONS_PAGE, RUNBOOKS_PAGE, MEMORY_PAGE = 25, 50, 10
DateFrom = Annotated[
    dt.date | None, Field(description=("dated on or after; else read from the question"))
]
DateTo = Annotated[dt.date | None, Field(description="dated on or before")]


def _clean(text: str, what: str) -> str:
    try:
        return require_text(text, what)
    except QueryError as exc:
        raise ToolError(str(exc)) from None


@contextmanager
def _edge() -> Iterator[None]:
    """Core errors become one-line ToolErrors; anything else is masked by FastMCP."""
    try:
        yield
    except ToolError:
        raise
    except DagsterUnavailable as exc:
        raise ToolError(f"{exc}; nothing was launched") from None
    except KnowledgePlatformError as exc:
        raise ToolError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None


class OneLineErrors(Middleware):
    """Argument validation failures as one line naming the argument, no pydantic essay."""

    async def on_call_tool(
        self,
        context: MiddlewareContext[CallToolRequestParams],
        call_next: CallNext[CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        try:
            return await call_next(context)
        except ValidationError as exc:
            cause = exc.__cause__
            if isinstance(cause, PydanticValidationError) and cause.errors():
                err = cause.errors()[0]
                where = ".".join(str(p) for p in err["loc"]) or "arguments"
                raise ToolError(f"invalid argument {where}: {err['msg']}") from None
            raise ToolError("invalid arguments: " + str(exc).splitlines()[0]) from None


class LogToolErrors(Middleware):
    """FastMCP logs a failed call as "Error calling tool 'x'" without the reason; this logs
    the reason too (what the caller was told, or the masked exception), so mcp.log says why."""

    async def on_call_tool(
        self,
        context: MiddlewareContext[CallToolRequestParams],
        call_next: CallNext[CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        try:
            return await call_next(context)
        except ToolError as exc:
            cause = exc.__cause__
            reason = f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)
            log.warning(
                "tool %r failed: %s", context.message.name, redact(reason).splitlines()[0]
            )  # any exception: may quote a secret
            raise


def build_server(
    runtime: Runtime,
    *,
    default_principal: str | None = None,
    auth: bool = True,
    authenticator: Authenticator | LiveAuthenticator | None = None,
    dagster: DagsterClient | None = None,
) -> FastMCP:
    settings = runtime.settings
    authn = authenticator or authenticator_for(settings, runtime.check_registry)
    caller = Caller(authn, default_principal)
    service = KnowledgeService(
        runtime, dagster or DagsterClient(settings.dagster_url), QueryLog(settings.query_log)
    )
    mcp = FastMCP(
        "knowledge-platform",
        instructions=INSTRUCTIONS,
        website_url=website(runtime.registry.service),
        icons=ICONS,
        auth=auth_provider(lambda: runtime.registry, authn) if auth else None,
        mask_error_details=True,
        list_page_size=PAGE_SIZE,
        middleware=[LogToolErrors(), OneLineErrors(), StructuredOnce()],
    )
    mcp._mcp_server.title = TITLE  # FastMCP takes no title; the SDK's server has one
    conform(mcp)

    def call(fn: Callable[[Grant], T], grant: Grant) -> T:
        with _edge():
            return fn(grant)

    def run(fn: Callable[[Grant], T]) -> T:
        return call(fn, caller.grant())

    async def run_search(fn: Callable[[Grant], T], scope: str, query: str) -> T:
        """`run` on the event loop when the search is CPU work alone: it holds the GIL either
        way, and a worker thread only adds switching (one process, 8 clients: p95 98-107 ->
        61-66 ms, bench/results/mcp_throughput-2026-12-01.md). A search that waits on the
        model, a network or opening a collection runs in a worker thread, so the loop
        serves others meanwhile. The store is asked only about a scope the caller may read."""
        grant = caller.grant()
        if scope in grant.scopes and service.cpu_only(scope, query):
            return call(fn, grant)
        return await anyio.to_thread.run_sync(call, fn, grant)

    @mcp.tool(annotations=READ, output_schema=output_schema(SearchResult))
    async def knowledge_search(
        query: Query,
        scope: Scope = "internal",
        limit: Annotated[int, Field(ge=1, le=50, description="hits to return")] = 10,
        sources: Annotated[
            list[str] | None, Field(max_length=10, description=("only these sources, e.g. clickup"))
        ] = None,
        kinds: Annotated[
            list[Kind] | None, Field(max_length=10, description=("only these kinds"))
        ] = None,
        date_from: DateFrom = None,
        date_to: DateTo = None,
        include_drafts: Drafts = False,
        include_deprecated: Deprecated = False,
    ) -> SearchResult:
        """Ranked passages, each a snippet with handles; get_document(doc_id) has the whole
        text. knowledge_ask answers with citations, get_context gives whole sections."""
        q = _clean(query, "query")
        return await run_search(
            lambda g: service.search(
                g,
                q,
                scope,
                limit,
                sources,
                kinds,
                date_from,
                date_to,
                include_drafts,
                include_deprecated,
            ),
            scope,
            q,
        )

    @mcp.tool(annotations=READ, output_schema=output_schema(Answer))
    def knowledge_ask(
        question: Query,
        scope: Scope = "internal",
        date_from: DateFrom = None,
        date_to: DateTo = None,
    ) -> Answer:
        """A short answer with numbered citations; `mode` says how it was made."""
        q = _clean(question, "question")
        return run(lambda g: service.ask(g, q, scope, date_from, date_to))

    @mcp.tool(annotations=READ, output_schema=output_schema(ContextResult))
    def get_context(
        topic: Query,
        scope: Scope = "internal",
        max_tokens: Annotated[
            int, Field(ge=100, le=6000, description=("budget for the text of all blocks"))
        ] = 1500,
        date_from: DateFrom = None,
        date_to: DateTo = None,
    ) -> ContextResult:
        """Whole sections around the best matches, one block per document, within
        max_tokens: text to ground your own writing."""
        t = _clean(topic, "topic")
        return run(lambda g: service.context(g, t, scope, max_tokens, date_from, date_to))

    @mcp.tool(annotations=READ, output_schema=output_schema(DecisionList))
    def list_decisions(
        client: Annotated[
            str | None,
            Field(min_length=1, max_length=64, description="client id; omit for internal"),
        ] = None,
        cursor: Cursor = None,
    ) -> DecisionList:
        """Decisions (memory `Decision:` lines, decision records, decision tasks), newest
        first, with status and superseded pointers."""
        found = run(lambda g: service.decisions(g, client))
        found.decisions, found.next_cursor = paging.items(
            found.decisions, cursor, DECISIONS_PAGE, "list_decisions", client
        )
        return found

    @mcp.tool(annotations=READ, output_schema=output_schema(MemoryList))
    def list_recent_memory(
        days: Annotated[int, Field(ge=1, le=365, description="how far back")] = 7,
        scope: Scope = "internal",
        cursor: Cursor = None,
    ) -> MemoryList:
        """Memory entries dated within the last `days` days, newest first."""
        found = run(lambda g: service.recent_memory(g, days, scope))
        found.entries, found.next_cursor = paging.items(
            found.entries, cursor, MEMORY_PAGE, "list_recent_memory", days, scope
        )
        return found

    @mcp.tool(annotations=READ, output_schema=output_schema(DocumentResult))
    def get_document(
        doc_id: Annotated[
            str, Field(min_length=1, max_length=512, description="doc_id from a search hit")
        ],
        scope: Scope = "internal",
        cursor: Cursor = None,
    ) -> DocumentResult:
        """A whole document with provenance, a page of text at a time (next_cursor). Use
        after a search when the snippet is not enough."""
        found = run(lambda g: service.document(g, doc_id, scope))
        found.text, found.next_cursor = paging.text(
            found.text, cursor, "get_document", doc_id, scope
        )
        return found

    @mcp.tool(annotations=READ, output_schema=output_schema(RunbookList))
    def list_runbooks(
        prefix: Annotated[
            str | None,
            Field(
                max_length=512,
                description=("path prefix in the repository, e.g. 'runbooks/incidents/'"),
            ),
        ] = None,
        tag: Annotated[
            str | None, Field(min_length=1, max_length=64, description="a front-matter tag")
        ] = None,
        scope: Scope = "internal",
        include_drafts: Drafts = False,
        include_deprecated: Deprecated = False,
        cursor: Cursor = None,
    ) -> RunbookList:
        """Runbooks, decision records and docs from git, by path; get_document has the
        text."""
        found = run(
            lambda g: service.runbooks(g, prefix, tag, scope, include_drafts, include_deprecated)
        )
        found.runbooks, found.next_cursor = paging.items(
            found.runbooks,
            cursor,
            RUNBOOKS_PAGE,
            "list_runbooks",
            prefix,
            tag,
            scope,
            include_drafts,
            include_deprecated,
        )
        return found

    @mcp.tool(annotations=LAUNCH, output_schema=output_schema(ReindexResult))
    def trigger_reindex(
        source: Annotated[
            str, Field(min_length=1, max_length=64, description=("a source name, or 'all'"))
        ] = "all",
        scope: Annotated[
            str | None,
            Field(min_length=1, max_length=64, description=("one scope; omit for every scope")),
        ] = None,
    ) -> ReindexResult:
        """Admins only: launch reindex runs, one per source x scope. Follow them with
        get_index_status."""
        return run(lambda g: service.reindex(g, source, scope))

    @mcp.tool(annotations=READ, output_schema=output_schema(IndexStatus))
    def get_index_status() -> IndexStatus:
        """Freshness of the index per source x scope you may read, from Dagster. Use before
        trusting an empty search."""
        return run(service.index_status)

    compact_inputs(mcp)
    return mcp
