"""`kp`: run the platform, index, search and inspect it. Dagster is imported only by the
commands that need it, so `kp search` stays quick."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from knowledge_platform.errors import KnowledgePlatformError
from knowledge_platform.models import Reference
from knowledge_platform.settings import Settings
from kp.hooks import hooks_app

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Surefoot knowledge platform. State lives in $KP_HOME (default ./.kp).",
)
console = Console(stderr=True, soft_wrap=True)
out = Console(width=None if sys.stdout.isatty() else 160)


def _fail(message: str) -> typer.Exit:
    console.print(f"[red]error:[/red] {escape(message)}")
    return typer.Exit(code=2)


@app.command()
def up(
    dagster_port: Annotated[int, typer.Option(help="Dagster UI port.")] = 3000,
    mcp_port: Annotated[
        int | None, typer.Option(help="MCP port (default $KP_MCP_PORT or 8001).")
    ] = None,
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
) -> None:
    """Dagster UI + daemon and the MCP service; indexes the registry's sources on first start."""
    from kp.supervisor import run_platform

    settings = Settings()
    try:
        code = run_platform(
            settings, host=host, dagster_port=dagster_port, mcp_port=mcp_port or settings.mcp_port
        )
    except KnowledgePlatformError as exc:
        raise _fail(str(exc)) from None
    raise typer.Exit(code=code)


@app.command()
def index(
    source: Annotated[str | None, typer.Option(help="One source (default: every source).")] = None,
    scope: Annotated[str | None, typer.Option(help="One scope (default: every scope).")] = None,
    full: Annotated[bool, typer.Option(help="Full pull (sweeps deletions).")] = False,
    full_reconcile: Annotated[bool, typer.Option(help="Allow deletions past the guard.")] = False,
    at: Annotated[
        str | None,
        typer.Option(help="Rebuild --source from this version (a commit, for a git source)."),
    ] = None,
) -> None:
    """Materialize source assets in-process (recorded in Dagster) and print what changed."""
    from kp.indexing import run_index
    from kp.stopping import IndexStopped

    try:
        rows = run_index(
            Settings(),
            source=source,
            scope=scope,
            full=full,
            full_reconcile=full_reconcile,
            at=at,
            console=console,
        )
    except KnowledgePlatformError as exc:
        raise _fail(str(exc)) from None
    except IndexStopped as exc:
        console.print(f"[yellow]{escape(str(exc))}[/yellow]")
        raise typer.Exit(code=128 + exc.signum) from None
    table = Table(title="kp index")
    columns = [
        "source",
        "scope",
        "documents",
        "skipped",
        "chunks",
        "embedded",
        "cached",
        "added",
        "updated",
        "deleted",
        "unchanged",
        "checks",
        "seconds",
    ]
    for col in columns:
        table.add_column(col, justify="left" if col in ("source", "scope") else "right")
    failed = False
    for row in rows:
        if row.get("error"):
            failed = True
            where = f"{row['source']}/{row['scope']}"
            console.print(f"[red]{where} failed:[/red] {escape(str(row['error']))}")
            continue
        table.add_row(*(str(row.get(c, "")) for c in columns))
    out.print(table)
    for row in rows:  # one line per sub-resource that failed, vanished or was held
        for line in row.get("problems", []):
            out.print(f"{row['source']}/{row['scope']}: {escape(line)}", soft_wrap=True)
    if failed:
        raise typer.Exit(code=1)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    scope: Annotated[str, typer.Option(help="Scope to search.")] = "internal",
    limit: Annotated[int, typer.Option(min=1, max=50)] = 5,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Hybrid search of one scope, straight against the store."""
    from knowledge_platform.runtime import Runtime
    from knowledge_platform.serve.retrieval import require_text

    try:
        query = require_text(query)  # the rule knowledge_search applies
    except KnowledgePlatformError as exc:
        raise _fail(str(exc)) from None
    runtime = Runtime(Settings())
    try:
        if scope not in runtime.registry.scopes:
            raise _fail(f"unknown scope {scope!r}; known: {', '.join(runtime.registry.scopes)}")
        hits = runtime.retriever.search(scope, query, limit=limit)
    except KnowledgePlatformError as exc:
        raise _fail(str(exc)) from None
    finally:
        runtime.close()
    if as_json:
        out.print_json(
            json.dumps([{"score": h.score, **h.chunk.payload()} for h in hits], default=str)
        )
        return
    if not hits:
        out.print("no hits")
    for rank, hit in enumerate(hits, 1):
        c, ref = hit.chunk, Reference.of(hit.chunk)
        out.print(
            f"[bold]{rank}. {escape(c.title)}[/bold]{_trail(c.title, c.headers)}  "
            f"score={hit.score:.3f}"
        )
        out.print(
            f"   {c.source} · {c.date or 'undated'}{_place(ref)} · {c.url or c.uri or c.source_id}"
        )
        if ref.stale:
            since = (
                f" (last read {ref.last_refreshed:%Y-%m-%d %H:%M} UTC)"
                if ref.last_refreshed
                else ""
            )
            out.print(f"   [yellow]stale[/yellow]: {escape(ref.stale)}{since}")
        out.print(f"   {c.text[:240].replace(chr(10), ' ')}")


def _place(ref: Reference) -> str:
    """' · sow.pdf p. 3' for a hit of a converted file: its name and page, slide or sheet."""
    n = ref.page or ref.slide or ref.sheet
    unit = "p." if ref.page else "slide" if ref.slide else "sheet"
    text = " ".join(p for p in (ref.file_name, f"{unit} {n}" if n else "") if p)
    return f" · {escape(text)}" if text else ""


def _trail(title: str, headers: list[str]) -> str:
    """The heading trail after the title; its first heading is usually the title itself."""
    if headers and headers[0].strip().casefold() == title.strip().casefold():
        headers = headers[1:]
    return f" [dim]> {escape(' > '.join(headers))}[/dim]" if headers else ""


@app.command()
def status(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Index status per source x scope, from Dagster's GraphQL API."""
    from knowledge_platform.connectors.catalog import spec
    from knowledge_platform.runtime import Runtime
    from knowledge_platform.serve.access import ADMIN_PRINCIPAL, grant_for
    from knowledge_platform.serve.querylog import QueryLog
    from mcp_service.blocked import describe
    from mcp_service.dagster_client import DagsterClient
    from mcp_service.service import KnowledgeService

    settings = Settings()
    runtime = Runtime(settings)
    try:
        service = KnowledgeService(
            runtime, DagsterClient(settings.dagster_url), QueryLog(settings.query_log)
        )
        # The CLI runs with the operator's file access to KP_HOME: it sees every scope.
        report = service.index_status(grant_for(runtime.registry, ADMIN_PRINCIPAL, admin=True))
        sources = runtime.registry.sources
    finally:
        runtime.close()
    if as_json:
        out.print_json(report.model_dump_json())
        return
    out.print(report.health)
    table = Table()
    columns = (
        "source",
        "scope",
        "last materialized",
        "last run",
        "points",
        "freshness",
        "checks",
        "git sha",
    )
    for col in columns:
        table.add_column(col)
    for e in report.sources:
        table.add_row(
            e.source,
            e.scope,
            str(e.last_materialization or "never"),
            (e.latest_run_status or "") + (" (blocked)" if e.blocked else ""),
            str(e.points if e.points is not None else ""),
            e.partition_freshness,
            ", ".join(e.failing_checks) or "ok",
            (e.sha or "")[:12],
        )
    out.print(table)
    for e in report.sources:  # a run waiting for a pool slot past the source's deadline
        for step in e.blocked:
            out.print(
                f"{e.source}/{e.scope}: {escape(describe(step, report.checked_at))}", soft_wrap=True
            )
    for source in sources:  # what an ordinary run sees late, said as the sync contract does
        for bound in spec(source).bounds:
            out.print(f"[dim]{source}: {escape(bound)}[/dim]")


clients_app = typer.Typer(help="Onboard clients.", no_args_is_help=True)
app.add_typer(clients_app, name="clients")
app.add_typer(hooks_app, name="hooks")


@clients_app.command("add")
def clients_add(
    client_id: Annotated[str, typer.Argument(help="Client id: lowercase letters, digits, '_'.")],
    director: Annotated[str, typer.Option(help="Account director (gets access to the client).")],
    name: Annotated[str | None, typer.Option(help="Display name.")] = None,
    source: Annotated[
        list[str] | None,
        typer.Option(help="A source for the client: name or name:key=value,... (repeatable)."),
    ] = None,
) -> None:
    """Add a client to the registry; `kp up`'s registry sensor then backfills its sources."""
    from kp.clients import add_client

    settings = Settings()
    try:
        add_client(settings.config, client_id, director=director, name=name, sources=source or [])
    except KnowledgePlatformError as exc:
        raise _fail(str(exc)) from None
    console.print(f"added client {client_id!r} to {settings.config}")
    console.print(
        "under `kp up` the registry sensor adds it to its sources' partitions and backfills "
        f"them within a minute; without it run `kp index --scope {client_id}`"
    )


@app.command()
def mcp(
    transport: Annotated[str, typer.Option(help="http or stdio.")] = "http",
    host: Annotated[str | None, typer.Option()] = None,
    port: Annotated[int | None, typer.Option()] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1, max=16, help="HTTP processes sharing the port (default $KP_MCP_WORKERS or 1)."
        ),
    ] = None,
) -> None:
    """Run the MCP service alone (streamable HTTP at /mcp, or stdio)."""
    from mcp_service.app import run

    if transport not in ("http", "stdio"):
        raise _fail("--transport must be 'http' or 'stdio'")
    settings = Settings()
    run(
        settings,
        transport=transport,
        host=host or settings.mcp_host,
        port=port or settings.mcp_port,
        workers=workers,
    )


@app.command()
def publish(
    url: Annotated[str | None, typer.Option(envvar="QDRANT_URL", help="Qdrant server.")] = None,
    api_key: Annotated[
        str | None,
        typer.Option(envvar="QDRANT_API_KEY", show_default=False, help="Qdrant API key."),
    ] = None,
    scope: Annotated[list[str] | None, typer.Option(help="Only this scope (repeatable).")] = None,
) -> None:
    """Copy the embedded Edge collections ($KP_HOME/qdrant) into a Qdrant server."""
    from kp.publish import report, run_publish

    try:
        results = run_publish(Settings(), url=url, api_key=api_key, scopes=scope)
    except KnowledgePlatformError as exc:
        raise _fail(str(exc)) from None
    report(results, url or "", out, console)


def main() -> None:  # pragma: no cover - console entry
    sys.exit(app())
