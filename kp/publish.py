"""`kp publish`: copy the embedded Edge collections under $KP_HOME/qdrant into a Qdrant
server, the one-off step of moving an embedded deployment to production."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from knowledge_platform.errors import ConfigError
from knowledge_platform.settings import Settings
from knowledge_platform.store.edge import EdgeStore
from knowledge_platform.store.migrate import PublishResult, publish
from knowledge_platform.store.server import QdrantServerStore


def run_publish(
    settings: Settings, *, url: str | None, api_key: str | None, scopes: Sequence[str] | None = None
) -> list[PublishResult]:
    if not url:
        raise ConfigError("no Qdrant server to publish to: pass --url or set QDRANT_URL")
    if not settings.shards_dir.is_dir():
        raise ConfigError(
            f"no embedded shards at {settings.shards_dir}; set KP_HOME to the "
            "embedded deployment's data directory"
        )
    edge = EdgeStore(settings.shards_dir)
    target = QdrantServerStore(url=url, api_key=api_key)
    try:
        return publish(edge, target, scopes)
    finally:
        edge.close()
        target.close()


def results_table(results: Sequence[PublishResult], url: str) -> Table:
    table = Table(title=f"kp publish → {url}")
    for col in ("collection", "model", "dim", "edge points", "published", "server points"):
        table.add_column(col, justify="left" if col in ("collection", "model") else "right")
    for r in results:
        table.add_row(
            r.collection,
            r.model_id,
            str(r.dim),
            str(r.source_points),
            str(r.published),
            str(r.target_points),
        )
    return table


def report(results: Sequence[PublishResult], url: str, out: Console, console: Console) -> None:
    out.print(results_table(results, url))
    for r in results:
        if r.target_points > r.source_points:
            console.print(
                f"{r.collection}: the server holds {r.target_points - r.source_points}"
                " point(s) the shards do not; the next collection run reconciles them"
            )
