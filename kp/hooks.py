"""`kp hooks register` and `kp hooks status`: the source webhooks of README "Webhooks"."""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from knowledge_platform.errors import KnowledgePlatformError
from knowledge_platform.settings import Settings

hooks_app = typer.Typer(
    help="Source webhooks: register them, see their health.", no_args_is_help=True
)
console = Console(stderr=True, soft_wrap=True)
out = Console(soft_wrap=True)


def _fail(message: str) -> typer.Exit:
    console.print(f"[red]error:[/red] {escape(message)}")
    return typer.Exit(code=2)


def _when(ts: float | None) -> str:
    if ts is None:
        return "never"
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


@hooks_app.command("register")
def register_cmd(
    source: Annotated[
        str | None,
        typer.Option(help="clickup, google_drive or git_docs (default: every one configured)."),
    ] = None,
    scope: Annotated[str | None, typer.Option(help="One scope (default: every scope).")] = None,
) -> None:
    """Create or renew webhooks and Drive channels through each source's API; record them
    under $KP_HOME/hooks (ids and where secrets live, never their values)."""
    from knowledge_platform.config.registry import load_registry
    from knowledge_platform.hooks.register import register

    settings = Settings()
    try:
        outcomes = register(
            load_registry(settings.config), settings.home_dir, source=source, scope=scope
        )
    except KnowledgePlatformError as exc:
        raise _fail(str(exc)) from None
    if not outcomes:
        out.print("no source with webhooks (clickup, google_drive, git_docs) is configured")
    for o in outcomes:
        out.print(f"{o.action}: {escape(o.message)}")
        if o.secret_value:  # ClickUp makes the secret; this is the one time it is shown
            out.print(f"  signing secret (shown once): {o.secret_value}")


@hooks_app.command("status")
def status_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    check: Annotated[bool, typer.Option(help="Ask ClickUp for each webhook's health.")] = True,
) -> None:
    """Registered webhooks and channels: last delivery, the source's word on their health,
    expiry; refused deliveries per source and reason."""
    from knowledge_platform.config.registry import load_registry
    from knowledge_platform.hooks.queue import open_queue
    from knowledge_platform.hooks.status import hooks_status

    settings = Settings()
    try:
        report = hooks_status(
            load_registry(settings.config),
            settings.home_dir,
            open_queue(settings.home_dir),
            check_sources=check,
        )
    except KnowledgePlatformError as exc:
        raise _fail(str(exc)) from None
    if as_json:
        out.print_json(json.dumps(report.as_dict()))
        return
    table = Table(title=f"webhooks (queue: {report.queue})")
    for col in (
        "source",
        "scope",
        "id",
        "health",
        "last delivery",
        "expires",
        "secret in",
        "detail",
    ):
        table.add_column(col)
    for h in report.hooks:
        table.add_row(
            h.source,
            h.scope,
            h.id,
            h.health,
            _when(h.last_delivery),
            _when(h.expires_at) if h.expires_at else "",
            h.secret,
            h.detail,
        )
    out.print(table if report.hooks else "no webhooks registered: run `kp hooks register`")
    for r in report.rejects:
        times = "once" if r["count"] == 1 else f"{r['count']} times"
        out.print(
            f"refused {r['source']} {r['status']} {r['code']}: {times}, last "
            f"{_when(r['last_at'])} ({escape(r['last_reason'])})"
        )
