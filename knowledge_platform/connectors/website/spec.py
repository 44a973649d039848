"""The website: an ordinary run every six hours (sitemaps and pages with conditional GETs)."""

from __future__ import annotations

import datetime as dt

from knowledge_platform.connectors.spec import Freshness, SourceSpec

SPEC = SourceSpec(
    name="website",
    connector="knowledge_platform.connectors.website.connector:WebsiteConnector",
    freshness=Freshness(warn_after=dt.timedelta(days=1), fail_after=dt.timedelta(days=2)),
    poll_minutes=360,
    deadline="6 hours (the incremental schedule) plus one run",
)
