"""Google Drive: the Changes API token is probed every two minutes; a moved token runs a pull."""

from __future__ import annotations

import datetime as dt

from knowledge_platform.connectors.spec import Freshness, PushSpec, SourceSpec

SPEC = SourceSpec(
    name="google_drive",
    push=PushSpec(
        path="/hooks/google-drive", module="knowledge_platform.connectors.google_drive.push"
    ),
    connector="knowledge_platform.connectors.google_drive.connector:GoogleDriveConnector",
    freshness=Freshness(warn_after=dt.timedelta(hours=6), fail_after=dt.timedelta(days=1)),
    api_pool="google_api",
    probe_seconds=120,
    deadline="2 minutes (the Changes API probe) plus one run",
)
