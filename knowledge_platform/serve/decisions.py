"""Decisions found in indexed chunks, newest first.

Three shapes: `Decision:` lines and `## Decision...` sections in memory files; decision
records (git-docs ADRs, ClickUp tasks tagged `decision`): chunks of kind `decision` whose
`extra["decision"]` holds {status, summary}, with optional `extra["supersedes"]` /
`extra["superseded_by"]` naming other records (by doc id, source id or title).

A decision that says in words what it replaces ("Supersedes the monthly report cadence",
"weekly instead of monthly") lists those words in `supersedes`, and an earlier decision
whose title and summary cover them (PROSE_COVER of their terms, at least two) is marked
superseded by it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from knowledge_platform.models import Chunk, Reference
from knowledge_platform.serve.answers.changes import old_phrases
from knowledge_platform.sparse import SparseEncoder
from knowledge_platform.supersession import names

DECISION_KINDS = ["memory", "decision"]
_LINE = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*)?Decision(?:\*\*)?\s*:(?:\*\*)?\s*(.+)$", re.IGNORECASE
)
_HEADER = re.compile(r"^decisions?\b\s*[:\-—]?\s*(.*)$", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+(.+)$")
_STATUS = re.compile(r"^\s*(?:\*\*)?status(?:\*\*)?\s*:\s*(\w[\w -]*)", re.IGNORECASE | re.M)
_SUPERSEDED_STATUSES = {"superseded", "deprecated", "replaced", "obsolete", "rejected"}
MAX_SUMMARY = 600
PROSE_COVER = 2 / 3
_terms = SparseEncoder().terms


class DecisionCitation(Reference):
    headers: list[str] = Field(default_factory=list)


class Decision(BaseModel):
    date: dt.date | None
    status: str
    summary: str
    title: str
    citation: DecisionCitation
    superseded: bool = False
    superseded_by: str | None = None
    supersedes: list[str] = []


def _cite(chunk: Chunk) -> DecisionCitation:
    return DecisionCitation.of(chunk, headers=list(chunk.headers))


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_SUMMARY else text[: MAX_SUMMARY - 1].rstrip() + "…"


def decision_lines(text: str) -> list[str]:
    """Each `Decision:` paragraph: the line plus its continuation lines."""
    found: list[list[str]] = []
    current: list[str] | None = None
    for line in text.split("\n"):
        match = _LINE.match(line)
        if match:
            current = [match.group(1).strip()]
            found.append(current)
        elif (
            current is not None
            and line.strip()
            and not line.lstrip().startswith(("#", "-", "*", "+"))
        ):
            current.append(line.strip())
        else:
            current = None
    return [_clip(" ".join(parts)) for parts in found]


def _decision_header(chunk: Chunk) -> tuple[str, str] | None:
    """(header, its topic) when the chunk sits in a `Decision...` section."""
    for header in reversed(chunk.headers):
        match = _HEADER.match(header.strip())
        if match:
            return header, match.group(1).strip()
    return None


def _from_memory(chunk: Chunk) -> list[Decision]:
    section = _decision_header(chunk)
    lines = decision_lines(chunk.text)
    if not lines and section:
        bullets = [m.group(1) for line in chunk.text.split("\n") if (m := _BULLET.match(line))]
        if bullets and not section[1]:
            lines = [_clip(b) for b in bullets]  # a `## Decisions` list
        elif chunk.ordinal == 0 or section[1]:
            paragraph = chunk.text.strip().split("\n\n")[0]
            lines = [_clip(paragraph)] if paragraph else []
    topic = section[1] if section and section[1] else None
    status = _status(chunk.text) or ("deprecated" if chunk.lifecycle == "deprecated" else "decided")
    return [
        Decision(
            date=chunk.date,
            status=status,
            summary=line,
            title=topic or _first_words(line),
            citation=_cite(chunk),
            superseded=status.lower() in _SUPERSEDED_STATUSES,
            supersedes=old_phrases(line),
        )
        for line in lines
    ]


def _status(text: str) -> str | None:
    match = _STATUS.search(text)
    return match.group(1).strip().lower() if match else None


def _first_words(text: str, n: int = 8) -> str:
    words = text.split()
    return " ".join(words[:n]) + ("…" if len(words) > n else "")


def _from_record(chunk: Chunk) -> Decision:
    raw = chunk.extra.get("decision")
    info: dict[str, Any] = raw if isinstance(raw, dict) else {}
    status = str(info.get("status") or _status(chunk.text) or "recorded").strip().lower()
    summary = str(info.get("summary") or chunk.text.strip().split("\n\n")[0])
    successor = [chunk.successor] if chunk.successor else names(chunk.extra.get("superseded_by"))
    return Decision(
        date=chunk.date,
        status=status,
        summary=_clip(summary),
        title=chunk.title,
        citation=_cite(chunk),
        superseded=bool(successor)
        or status in _SUPERSEDED_STATUSES
        or chunk.lifecycle == "deprecated",
        superseded_by=successor[0] if successor else None,
        supersedes=names(chunk.extra.get("supersedes")),
    )


def _link(decisions: list[Decision], records: dict[str, Chunk]) -> None:
    """Apply `supersedes` pointers and turn successor names into doc ids where known."""
    by_name: dict[str, Decision] = {}
    for d in decisions:
        chunk = records.get(d.citation.doc_id)
        names = [d.citation.doc_id, d.title] + ([chunk.source_id] if chunk else [])
        by_name.update({n.lower(): d for n in names})
    for d in decisions:
        for name in d.supersedes:
            old = by_name.get(name.lower())
            if old is not None and old is not d:
                old.superseded = True
                old.superseded_by = old.superseded_by or d.citation.doc_id
            if old is None:
                _link_prose(d, name, decisions)
        if d.superseded_by:
            target = by_name.get(d.superseded_by.lower())
            if target is not None:
                d.superseded_by = target.citation.doc_id


def _link_prose(newer: Decision, phrase: str, decisions: list[Decision]) -> None:
    """Mark superseded the earlier decisions whose title and summary cover `phrase`."""
    wanted = set(_terms(phrase))
    if len(wanted) < 2 or newer.date is None:
        return
    for old in decisions:
        if old is newer or old.date is None or old.date >= newer.date:
            continue
        covered = wanted & set(_terms(f"{old.title} {old.summary}"))
        if len(covered) >= 2 and len(covered) >= PROSE_COVER * len(wanted):
            old.superseded = True
            old.superseded_by = old.superseded_by or newer.citation.doc_id


def decisions_from_chunks(chunks: Iterable[Chunk]) -> list[Decision]:
    """Every decision in `chunks` (any order), deduplicated, newest first."""
    ordered = sorted(chunks, key=lambda c: (c.doc_id, c.ordinal))
    records: dict[str, Chunk] = {}
    found: list[Decision] = []
    seen: set[tuple[str, str]] = set()
    for chunk in ordered:
        if chunk.kind == "decision" or isinstance(chunk.extra.get("decision"), dict):
            if chunk.doc_id not in records:
                records[chunk.doc_id] = chunk
                found.append(_from_record(chunk))
            continue
        for decision in _from_memory(chunk):
            key = (chunk.doc_id, decision.summary[:120].lower())
            if key not in seen and not any(
                k[0] == key[0] and (k[1] in key[1] or key[1] in k[1]) for k in seen
            ):
                seen.add(key)
                found.append(decision)
    _link(found, records)
    found.sort(key=lambda d: (d.date or dt.date.min, d.citation.doc_id), reverse=True)
    return found
