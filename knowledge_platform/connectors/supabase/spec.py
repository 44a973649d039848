"""Supabase: an ordinary run every hour (rows changed since the high-water mark, id sweep)."""

from __future__ import annotations

import datetime as dt

from knowledge_platform.connectors.spec import Freshness, SourceSpec

SPEC = SourceSpec(
    name="supabase",
    connector="knowledge_platform.connectors.supabase.connector:SupabaseConnector",
    freshness=Freshness(warn_after=dt.timedelta(hours=2), fail_after=dt.timedelta(hours=4)),
    api_pool="supabase_api",
    poll_minutes=60,
    deadline="60 minutes (the incremental schedule) plus one run",
)
