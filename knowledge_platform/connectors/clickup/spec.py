"""ClickUp: an ordinary run every 30 minutes (id sweep, changed tasks, docs)."""

from __future__ import annotations

import datetime as dt

from knowledge_platform.connectors.spec import Freshness, PushSpec, SourceSpec

SPEC = SourceSpec(
    name="clickup",
    push=PushSpec(path="/hooks/clickup", module="knowledge_platform.connectors.clickup.push"),
    connector="knowledge_platform.connectors.clickup.connector:ClickUpConnector",
    freshness=Freshness(warn_after=dt.timedelta(minutes=90), fail_after=dt.timedelta(hours=3)),
    api_pool="clickup_api",
    poll_minutes=30,
    deadline="30 minutes (the incremental schedule) plus one run",
    bounds=(
        "a comment (which moves no date_updated) on a task quiet for longer than "
        "comment_window_days is seen within ceil(quiet tasks / quiet_thread_rereads) "
        "ordinary runs, by the weekly full pull at the latest, and within seconds with "
        "webhooks registered (taskCommentPosted)",
    ),
)
