"""The scoring rules of bench/temporal.py (its docstring states them), over the tool results
as the interface note (notes/temporal-interface.md) describes them. Fields the service does
not send yet default to empty, so the same code scores the code before and after."""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from .model import Question


class _Tolerant(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Hit(_Tolerant):
    """A search hit; a citation is one with a number."""

    doc_id: str = ""
    source_id: str = ""
    title: str = ""
    date: str | None = None
    time_kind: str | None = None
    superseded_by: str | None = None


class Citation(Hit):
    number: int


class Claim(_Tolerant):
    citation: int
    value: str = ""
    text: str = ""
    date: str | None = None


class Conflict(_Tolerant):
    kind: str = ""
    claims: list[Claim] = Field(default_factory=list)
    newer: int | None = None


class Asked(_Tolerant):
    """knowledge_ask's structured result (mode "error": the tool call itself failed)."""

    answer: str = ""
    mode: str = "error"
    citations: list[Citation] = Field(default_factory=list)
    conflicts: list[Conflict] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    confidence: float = 0.0
    interpreted_dates: dict[str, object] | None = None


class Searched(_Tolerant):
    hits: list[Hit] = Field(default_factory=list)
    interpreted_dates: dict[str, object] | None = None
    warnings: list[str] = Field(default_factory=list)


#: Words that show a value as old in the answer's sentence that carries it.
OLD_MARKERS = re.compile(
    r"\b(superseded|supersedes|earlier|was|were|until|previously|formerly|old|older|outdated|"
    r"no longer|instead of|replaced|replaces|retired|(moved|raised|changed|switched) from|"
    r"handed [^.]{0,60}over)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_LEADING_MARKS = re.compile(r"^((?:\[\d+\]\s*)+)")
_CITED = re.compile(r"\[(\d+)\]")


def norm(text: str) -> str:
    return " ".join(text.lower().split())


def contains(text: str, value: str) -> bool:
    return norm(value) in norm(text)


def is_doc(ids: Iterable[str], path: str) -> bool:
    """`path` names this document: its doc_id or source_id is it or ends with /path or :path."""
    return any(x == path or x.endswith(("/" + path, ":" + path)) for x in ids if x)


def shown_as_old(value: str, asked: Asked) -> bool:
    """A claim carrying `value` in a conflict whose `newer` is another citation; or every
    sentence of the answer that carries it is marked: it cites a citation with
    `superseded_by`, or it says so (OLD_MARKERS)."""
    for conflict in asked.conflicts:
        for claim in conflict.claims:
            if (
                contains(claim.value + " " + claim.text, value)
                and conflict.newer is not None
                and conflict.newer != claim.citation
            ):
                return True
    superseded = {c.number for c in asked.citations if c.superseded_by}
    carrying = [s for s in sentences(asked.answer) if contains(s, value)]
    return bool(carrying) and all(
        OLD_MARKERS.search(s) or superseded & {int(n) for n in _CITED.findall(s)} for s in carrying
    )


def sentences(text: str) -> list[str]:
    """The answer's sentences, each with the citation markers that follow it ("... end. [2]
    Next ..." gives "... end. [2]" and "Next ...")."""
    out: list[str] = []
    for part in _SENTENCE_END.split(text):
        marks = _LEADING_MARKS.match(part)
        if marks and out:
            out[-1] += " " + marks.group(1).strip()
            part = part[marks.end() :]
        if part.strip():
            out.append(part.strip())
    return out


def answered(asked: Asked) -> bool:
    return asked.mode not in ("not_found", "error")


def recalled(q: Question, asked: Asked) -> bool:
    """answerable_recall: an answer (not not_found) that contains an expected string."""
    return answered(asked) and any(contains(asked.answer, e) for e in q.expect)


def current_or_dated(q: Question, asked: Asked) -> bool:
    """The expected value is in the answer, and each old/out-of-window value is absent or
    shown as old."""
    return recalled(q, asked) and all(
        not contains(asked.answer, old) or shown_as_old(old, asked) for old in q.old
    )


def conflict_flagged(q: Question, asked: Asked) -> bool:
    """A conflict entry with a claim carrying each value, whose `newer` is the citation of a
    claim carrying the newer value (and of none carrying the older)."""
    older = next(v for v in q.expect if v != q.newer)
    for conflict in asked.conflicts:
        new = {c.citation for c in conflict.claims if contains(c.value + " " + c.text, q.newer)}
        old = {c.citation for c in conflict.claims if contains(c.value + " " + c.text, older)}
        if new and old and conflict.newer in new - old:
            return True
    return False


def named(q: Question, asked: Asked) -> bool:
    """Cites the named record, contains its expected text, and for a superseded record says
    "supersed..." in the answer or a warning, or the record's citation has superseded_by."""
    cites = [c for c in asked.citations if is_doc((c.doc_id, c.source_id), q.docs[0])]
    if not cites or not recalled(q, asked):
        return False
    if not q.superseded:
        return True
    said = "supersed" in norm(asked.answer + " " + " ".join(asked.warnings))
    return said or any(c.superseded_by for c in cites)


def reciprocal_rank(q: Question, searched: Searched) -> float:
    for rank, hit in enumerate(searched.hits, start=1):
        if any(is_doc((hit.doc_id, hit.source_id), path) for path in q.docs):
            return 1.0 / rank
    return 0.0


def type_score(q: Question, asked: Asked) -> bool:
    """The figure each type adds to its own column."""
    if q.type in ("current", "dated"):
        return current_or_dated(q, asked)
    if q.type == "conflict":
        return conflict_flagged(q, asked)
    if q.type == "named":
        return named(q, asked)
    if q.type == "unanswerable":
        return asked.mode == "not_found"
    return recalled(q, asked)
