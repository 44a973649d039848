import datetime as dt
import json

from dagster import materialize

from assets.analytics import query_report, summarize
from resources.platform import platform_resources


def _log(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\nnot json\n")


def test_report_counts_topics_and_gaps_per_scope(kp_env):
    now = dt.datetime.now(dt.UTC)
    old = (now - dt.timedelta(days=30)).isoformat()
    rows = [
        {
            "time": now.isoformat(),
            "scope": "internal",
            "query": "checkout test results",
            "hits": 5,
            "top_score": 0.03,
        },
        {
            "time": now.isoformat(),
            "scope": "internal",
            "query": "checkout banner",
            "hits": 5,
            "top_score": 0.03,
        },
        {
            "time": now.isoformat(),
            "scope": "acme",
            "query": "pricing page audit",
            "hits": 0,
            "top_score": None,
        },
        {"time": old, "scope": "internal", "query": "ancient", "hits": 0, "top_score": 0},
    ]
    _log(kp_env.query_log, rows)
    result = materialize([query_report], resources=platform_resources(kp_env))
    meta = result.asset_materializations_for_node("analytics__query_report")[0].metadata
    assert meta["queries"].value == 3
    assert meta["gaps"].value == 1
    report = meta["report"].value
    assert "checkout (2)" in report and "pricing page audit (1x)" in report
    assert "ancient" not in report


def test_summarize_counts_only_empty_results_as_gaps():
    s = summarize(
        [
            {"scope": "x", "query": "q", "hits": 0, "top_score": None},
            {"scope": "x", "query": "found", "hits": 3, "top_score": 0.5},
        ]
    )
    assert s["x"]["gaps"] == [("q", 1)]
    assert s["x"]["queries"] == 2
