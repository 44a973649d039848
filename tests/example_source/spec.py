from __future__ import annotations

from knowledge_platform.connectors.spec import PushSpec, SourceSpec

SPEC = SourceSpec(
    name="notes_push",
    connector="tests.example_source.connector:NotesConnector",
    push=PushSpec(path="/hooks/notes", module="tests.example_source.push"),
    probe_seconds=30,
)
