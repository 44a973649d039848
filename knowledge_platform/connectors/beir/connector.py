"""A BEIR-layout corpus (`corpus.jsonl`: one `{"_id", "title", "text"}` per line) as a
source: one document per line, title + abstract. Used by the retrieval benchmarks to index
public test collections such as SciFact through the same asset graph as every source."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import Field

from knowledge_platform.connectors.base import (
    NOTHING_KNOWN,
    Connector,
    Known,
    PullResult,
    Skipped,
    SourceSettings,
)
from knowledge_platform.connectors.cursor import BaseCursor
from knowledge_platform.errors import SourceError
from knowledge_platform.models import Document, content_hash

CORPUS_FILE = "corpus.jsonl"


class BeirSettings(SourceSettings):
    #: The dataset directory (holding corpus.jsonl) or the corpus file itself.
    path: Path
    #: Read only the first N lines (quick runs); None reads them all.
    max_documents: int | None = Field(default=None, gt=0)


class BeirConnector(Connector[BaseCursor]):
    name = "beir"
    settings_model = BeirSettings
    #: Every pull reads the corpus whole: nothing to keep between pulls.
    cursor_model = BaseCursor
    settings: BeirSettings

    @property
    def corpus(self) -> Path:
        path = self.settings.path
        return path / CORPUS_FILE if path.is_dir() else path

    def pull(
        self, cursor: BaseCursor | None, *, full: bool = False, known: Known = NOTHING_KNOWN
    ) -> PullResult[BaseCursor]:
        corpus = self.corpus
        if not corpus.is_file():
            raise SourceError(
                f"beir: no corpus at {corpus}; point `path` at a BEIR dataset "
                f"directory holding {CORPUS_FILE}"
            )
        documents: dict[str, Document] = {}
        skipped: list[Skipped] = []
        limit = self.settings.max_documents
        with corpus.open(encoding="utf-8") as fh:
            for number, line in enumerate(fh, start=1):
                if limit is not None and number > limit:
                    break
                if not line.strip():
                    continue
                try:
                    doc = self._document(json.loads(line), corpus)
                except (ValueError, _Skip) as exc:
                    skipped.append(Skipped(source_id=f"line {number}", reason=str(exc)))
                    continue
                if doc.source_id in documents:
                    skipped.append(Skipped(source_id=doc.source_id, reason="duplicate _id"))
                    continue
                documents[doc.source_id] = doc
        return PullResult(documents=list(documents.values()), full=True, skipped=skipped)

    def _document(self, row: Any, corpus: Path) -> Document:
        if not isinstance(row, dict) or not str(row.get("_id", "")).strip():
            raise _Skip("not an object with an `_id`")
        source_id = str(row["_id"]).strip()
        title = str(row.get("title") or "").strip()
        text = str(row.get("text") or "").strip()
        if not (title or text):
            raise _Skip(f"{source_id}: empty title and text")
        return Document(
            source=self.name,
            source_id=source_id,
            scope=self.scope,
            title=title,
            text=text,
            kind="doc",
            uri=f"{corpus.resolve().as_uri()}#{source_id}",
            version=content_hash(title + "\n" + text)[:16],
            trust="public",
            # Abstracts have no markdown structure: never read a leading '#' as a heading.
            extra={"chunking": "whole"},
        )


class _Skip(Exception):
    pass
