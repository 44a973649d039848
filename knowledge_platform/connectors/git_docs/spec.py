"""Git docs: the branch head is probed every two minutes; a new sha runs a diff pull."""

from __future__ import annotations

from knowledge_platform.connectors.spec import PinSpec, PushSpec, SourceSpec

SPEC = SourceSpec(
    name="git_docs",
    push=PushSpec(path="/hooks/git", module="knowledge_platform.connectors.git_docs.push"),
    connector="knowledge_platform.connectors.git_docs.connector:GitDocsConnector",
    probe_seconds=120,
    deadline="2 minutes (the branch-head probe) plus one run",
    pin=PinSpec(setting="at_sha", version="a commit sha (hex digits)"),
)
