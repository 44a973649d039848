"""Workspace memory files: a directory of markdown notes, read whole on every pull (local
and cheap); unchanged files cost nothing downstream because chunks are content-hashed. The
change probe is a fingerprint of every matching file's path, size and mtime."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from knowledge_platform.connectors.base import NOTHING_KNOWN, Connector, Known, PullResult, Skipped
from knowledge_platform.connectors.cursor import BaseCursor
from knowledge_platform.connectors.memory_files.settings import MemoryFilesSettings
from knowledge_platform.dating import document_time, stated_review, usual_order
from knowledge_platform.errors import SourceError
from knowledge_platform.frontmatter import (
    FrontMatterError,
    as_lifecycle,
    confidentiality,
    lifecycle,
    split_front_matter,
)
from knowledge_platform.models import Document, content_hash
from knowledge_platform.supersession import LINKS, names, stated_links


class MemoryFilesCursor(BaseCursor):
    #: The files' fingerprint when the pull started (what `probe` compares with).
    fingerprint: str = ""

    def probe_token(self) -> str | None:
        return self.fingerprint


class MemoryFilesConnector(Connector[MemoryFilesCursor]):
    name = "memory_files"
    settings_model = MemoryFilesSettings
    cursor_model = MemoryFilesCursor
    settings: MemoryFilesSettings

    def pull(
        self,
        cursor: MemoryFilesCursor | None,
        *,
        full: bool = False,
        known: Known = NOTHING_KNOWN,
    ) -> PullResult[MemoryFilesCursor]:
        root = self._root()
        files = self._files(root)
        # Fingerprint first: a file changed while we read is seen by the next probe.
        cursor = MemoryFilesCursor(fingerprint=_fingerprint(root, files))
        texts: dict[str, str] = {}
        skipped: list[Skipped] = []
        for path in files:
            rel = path.relative_to(root).as_posix()
            try:
                texts[rel] = self._text(path)
            except _Skip as exc:
                skipped.append(Skipped(source_id=rel, reason=str(exc)))
            except OSError as exc:  # unreadable now: keep the last good version
                skipped.append(Skipped(source_id=rel, reason=f"cannot read: {exc.strerror}"))
        # a day in figures that a file leaves open (6/8/2026) is read as the workspace writes
        order = usual_order(texts.values())
        documents: list[Document] = []
        for rel, text in texts.items():
            try:
                documents.append(self._read(root / rel, rel, text, order))
            except _Skip as exc:
                skipped.append(Skipped(source_id=rel, reason=str(exc)))
        return PullResult(documents=documents, full=True, skipped=skipped, cursor=cursor)

    def change_token(self, cursor: MemoryFilesCursor | None) -> str | None:
        root = self._root()
        return _fingerprint(root, self._files(root))

    def _root(self) -> Path:
        root = self.settings.path
        if not root.is_dir():
            raise SourceError(f"memory_files: directory {root} does not exist or is not a folder")
        return root

    def _files(self, root: Path) -> list[Path]:
        return [p for p in sorted(root.glob(self.settings.glob)) if p.is_file()]

    def _text(self, path: Path) -> str:
        size = path.stat().st_size
        if size > self.settings.max_bytes:
            raise _Skip(f"file is {size} bytes, over the {self.settings.max_bytes}-byte limit")
        data = path.read_bytes()
        if b"\x00" in data[:8192] and not _mostly_text(data[:8192]):
            raise _Skip("binary file, not markdown")
        try:
            text = data.decode("utf-8").removeprefix("\ufeff")  # as git_docs does
        except UnicodeDecodeError as exc:
            raise _Skip(f"not valid UTF-8 (byte {exc.start})") from None
        return text

    def _read(self, path: Path, rel: str, text: str, day_first: bool | None) -> Document:
        try:
            meta, body = split_front_matter(text)
            # A note's `status: draft` is its lifecycle; other statuses (`done`, `open`) are
            # not lifecycles and leave the default.
            stage = lifecycle(meta, as_lifecycle(meta.get("status")) or "stable")
            level = confidentiality(meta, self.settings.confidentiality)
        except FrontMatterError as exc:
            raise _Skip(str(exc)) from None
        # Undated files (no front-matter date, dated name or dated first heading) carry no
        # date: a checkout's mtime says nothing about when a note was written.
        when, time_kind = document_time(
            meta,
            path.name,
            _first_heading(body),
            stated=stated_review(body, day_first),
            body=body,
            day_first=day_first,
        )
        return Document(
            source=self.name,
            source_id=rel,
            scope=self.scope,
            title=str(meta.get("title") or _first_heading(body) or path.stem),
            text=body,
            kind="memory",
            uri=f"file://{path.resolve()}",
            date=when,
            time_kind=time_kind,
            version=content_hash(text)[:16],
            lifecycle=stage,
            confidentiality=level,
            extra={
                "path": rel,
                "tags": _tags(meta.get("tags")),
                **stated_links(body),  # front matter wins over the preamble's words
                **{key: names(meta[key]) for key in LINKS if key in meta},
            },
        )


class _Skip(Exception):
    pass


def _fingerprint(root: Path, files: list[Path]) -> str:
    digest = hashlib.sha256()
    for file in files:
        try:
            stat = file.stat()
        except OSError:
            continue  # vanished since the listing: the next probe sees the difference
        digest.update(f"{file.relative_to(root)}|{stat.st_size}|{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _mostly_text(sample: bytes) -> bool:
    return sample.count(b"\x00") < len(sample) // 100


def _first_heading(body: str) -> str | None:
    for line in body.splitlines():
        if line.startswith("# "):
            return line[2:].strip() or None
    return None


def _tags(value: Any) -> list[str]:
    if isinstance(value, str):
        return [t.strip() for t in value.split(",") if t.strip()]
    if isinstance(value, list):
        return [str(t) for t in value]
    return []
