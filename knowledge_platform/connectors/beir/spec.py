"""BEIR corpora: benchmark data, indexed on demand."""

from __future__ import annotations

from knowledge_platform.connectors.spec import SourceSpec

SPEC = SourceSpec(
    name="beir",
    connector="knowledge_platform.connectors.beir.connector:BeirConnector",
)
