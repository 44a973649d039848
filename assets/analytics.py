"""The weekly query-log report: what agents asked per scope, and what found nothing good."""

import datetime as dt
import json
from collections import Counter, defaultdict
from pathlib import Path

from dagster import (
    AssetExecutionContext,
    DefaultScheduleStatus,
    MaterializeResult,
    MetadataValue,
    ScheduleDefinition,
    asset,
    define_asset_job,
)

from knowledge_platform.sparse import SparseEncoder
from resources.platform import QueryLogResource

#: Fused (RRF) scores rank but do not measure relevance, so a gap is a query that found
#: nothing at all in its scope (after lifecycle and confidentiality filters).
WINDOW = dt.timedelta(days=7)


def read_log(path: Path, since: dt.datetime) -> list[dict]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            row = json.loads(line)
            when = dt.datetime.fromisoformat(row["time"])
        except (ValueError, KeyError, TypeError):
            continue  # a torn or foreign line is not worth failing the report over
        if when.tzinfo is None:
            when = when.replace(tzinfo=dt.UTC)
        if when >= since:
            rows.append(row)
    return rows


def summarize(rows: list[dict], top: int = 10) -> dict[str, dict]:
    """Per scope: queries, most asked topics (stemmed terms) and coverage gaps."""
    enc = SparseEncoder()
    out: dict[str, dict] = defaultdict(lambda: {"queries": 0, "topics": Counter(), "gaps": []})
    for row in rows:
        scope = out[str(row.get("scope", "?"))]
        scope["queries"] += 1
        scope["topics"].update(set(enc.terms(str(row.get("query", "")))))
        if not row.get("hits"):
            scope["gaps"].append(str(row.get("query", "")))
    return {
        name: {
            "queries": s["queries"],
            "topics": s["topics"].most_common(top),
            "gaps": Counter(s["gaps"]).most_common(top),
        }
        for name, s in sorted(out.items())
    }


def report_markdown(summary: dict[str, dict]) -> str:
    if not summary:
        return "No queries in the last 7 days."
    parts = []
    for scope, s in summary.items():
        topics = ", ".join(f"{t} ({n})" for t, n in s["topics"]) or "none"
        gaps = "\n".join(f"- {q} ({n}x)" for q, n in s["gaps"]) or "- none"
        parts.append(
            f"### {scope} — {s['queries']} queries\n\n**Most asked:** {topics}\n\n"
            f"**Coverage gaps** (queries with no hit):\n{gaps}"
        )
    return "\n\n".join(parts)


@asset(
    key=["analytics", "query_report"],
    group_name="analytics",
    kinds={"python"},
    description="Last 7 days of MCP searches and asks: most asked topics and coverage gaps "
    "per scope, from the service's query log.",
)
def query_report(context: AssetExecutionContext, query_log: QueryLogResource) -> MaterializeResult:
    rows = read_log(query_log.get().path, dt.datetime.now(dt.UTC) - WINDOW)
    summary = summarize(rows)
    context.log.info(f"{len(rows)} queries over {len(summary)} scopes")
    return MaterializeResult(
        metadata={
            "queries": len(rows),
            "scopes": len(summary),
            "gaps": sum(len(s["gaps"]) for s in summary.values()),
            "report": MetadataValue.md(report_markdown(summary)),
        }
    )


analytics_job = define_asset_job("analytics_job", selection=[query_report.key])

analytics_weekly_schedule = ScheduleDefinition(
    name="analytics_weekly_schedule",
    job=analytics_job,
    cron_schedule="0 6 * * 1",
    execution_timezone="America/New_York",
    default_status=DefaultScheduleStatus.RUNNING,
    description="Monday 06:00 New York: the week's query report.",
)
