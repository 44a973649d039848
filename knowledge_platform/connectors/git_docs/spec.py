"""Git docs: the branch head is probed every two minutes; a new sha runs a diff pull."""

from __future__ import annotations

from knowledge_platform.connectors.spec import SourceSpec

SPEC = SourceSpec(
    name="git_docs",
    connector="knowledge_platform.connectors.git_docs.connector:GitDocsConnector",
    probe_seconds=120,
    probe_key="sha",
    deadline="2 minutes (the branch-head probe) plus one run",
)
