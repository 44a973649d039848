"""Conflicts between the sentences an answer rests on: a sentence the answer quotes and an
eligible sentence of another document that gives a different value for the same thing
(conflicts.disagreement), shown with both values, citations, sources and dates, and which
of the two is newer."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from knowledge_platform.dating import CHANGE
from knowledge_platform.serve.answers.asks import is_person, read_ask
from knowledge_platform.serve.answers.conflicts import Disagreement, Statement, disagreement
from knowledge_platform.serve.answers.contract import Citation, Claim, Conflict
from knowledge_platform.serve.answers.relevance import Scored
from knowledge_platform.serve.answers.sentences import Sentence

#: The share of the picked sentence's question words the other side of a conflict has at
#: least, unless it says what changed: a sentence with a third of them is about something
#: else that shares a word or two.
SIDE_LEXICAL = 0.5

MAX_CONFLICTS = 2
#: The kinds of value that answer each kind a question asks for (asks.py): two sources that
#: differ only in another kind disagree about nothing the question asks ("mireya takes over
#: vantcliffe as of 1 September" and "as of 1 Oct it's 10% contingency" for who leads the
#: account; a retainer's fee and an approval limit for who approves). A words-only value
#: ("phrase", as a statement of change names it) answers any; a kind not listed, all.
_ANSWERED_BY: dict[str, frozenset[str]] = {
    "person": frozenset({"name"}),
    # "What do we use for marking up PDFs?": a tool's name, not its "$38 a seat a month"
    "name": frozenset({"name", "code"}),
    "place": frozenset({"name", "code"}),
    "money": frozenset({"money", "number"}),
    "number": frozenset({"number", "money", "percent", "duration"}),
    "percent": frozenset({"percent", "number"}),
    "duration": frozenset({"duration", "number", "date", "weekday", "time"}),
    "date": frozenset({"date", "weekday", "time"}),
    "time": frozenset({"time", "weekday", "date"}),
    "weekday": frozenset({"weekday", "date", "time", "frequency"}),
    "frequency": frozenset({"frequency", "weekday", "duration", "time"}),
    "code": frozenset({"code", "number", "name"}),
}


@lru_cache(maxsize=256)  # asked for each pair of sentences an answer compares
def _answering(question: str) -> frozenset[str] | None:
    """The kinds of value that answer the question; None for any."""
    kinds = read_ask(question).kinds
    if not kinds or any(k not in _ANSWERED_BY for k in kinds):
        return None
    return frozenset({"phrase"}).union(*(_ANSWERED_BY[k] for k in kinds))


def _of_asked_kind(question: str, found: Disagreement | None) -> Disagreement | None:
    """`found` if it is of a kind of value that answers the question (`_ANSWERED_BY`); asked
    who, two names of which one is a platform's ("Zubair" and "Google Form") answer nothing."""
    if (
        found is not None
        and found.kind == "name"
        and read_ask(question).kinds == ("person",)
        and not (is_person(found.a) and is_person(found.b))
    ):
        return None
    answering = _answering(question)
    if found is None or answering is None or found.kind in answering:
        return found
    return None


@dataclass(frozen=True)
class Side:
    scored: Scored
    value: str

    @property
    def sentence(self) -> Sentence:
        return self.scored.sentence


@dataclass(frozen=True)
class Found:
    kind: str
    sides: tuple[Side, Side]
    #: index of the side whose words say the other's value is old ("from X to Y")
    superseding: int | None = None

    def newer(self) -> Side | None:
        """The side dated later; on equal or unknown dates, the side that says the other's
        value changed."""
        a, b = self.sides
        da, db = a.sentence.date, b.sentence.date
        if da is not None and db is not None and da != db:
            return a if da > db else b
        return self.sides[self.superseding] if self.superseding is not None else None

    def older(self) -> Side | None:
        newer = self.newer()
        return None if newer is None else self.sides[1 - self.sides.index(newer)]

    def describe(self) -> str:
        """The disagreement in the answer's text, with reference numbers ([n] markers)."""
        parts = [f"[{s.sentence.ref}] says “{s.value}” ({_where(s.sentence)})" for s in self.sides]
        newer = self.newer()
        tail = (
            f"[{newer.sentence.ref}] is newer."
            if newer
            else "Which is newer is unknown: the sources carry no distinct dates."
        )
        return f"Sources disagree ({self.kind}): {'; '.join(parts)}. {tail}"

    def warning(self, renumber: Mapping[int, int]) -> str:
        parts = [
            f"'{s.sentence.chunk.title}' [{renumber[s.sentence.ref]}] "
            f"({_where(s.sentence)}) says “{s.value}”"
            for s in self.sides
        ]
        newer = self.newer()
        tail = (
            f"[{renumber[newer.sentence.ref]}] is newer" if newer else "which is newer is unknown"
        )
        return f"conflict: sources disagree ({self.kind}): {' vs '.join(parts)}; {tail}"

    def conflict(self, renumber: Mapping[int, int], cited: Sequence[Citation]) -> Conflict:
        newer = self.newer()
        return Conflict(
            kind=self.kind,
            claims=claims(
                [(renumber[s.sentence.ref], s.value, s.sentence.text) for s in self.sides], cited
            ),
            newer=renumber[newer.sentence.ref] if newer else None,
        )


#: An aside in brackets: "Client contact: Delphine Okonkwo-Reyes (Amos Thackeray left in May)".
_ASIDE = re.compile(r"\s*\([^()]*\)")


def _without_asides(text: str, value: str) -> str:
    """A claim's sentence without its asides in brackets that do not hold its value: the
    aside of a hand-over names the one handed over from, which is not what this source says
    holds now."""
    return _ASIDE.sub(lambda m: m.group(0) if value in m.group(0) else "", text)


def claims(sides: Sequence[tuple[int, str, str]], cited: Sequence[Citation]) -> list[Claim]:
    """(citation number, value, sentence) triples as claims with their source's provenance."""
    by_number = {c.number: c for c in cited}
    return [
        Claim(
            citation=n,
            value=value,
            text=_without_asides(text, value),
            title=by_number[n].title,
            source=by_number[n].source,
            date=by_number[n].date,
        )
        for n, value, text in sides
        if n in by_number
    ]


def between(question: str, a: Sentence, b: Sentence) -> Disagreement | None:
    """How two retrieved sentences disagree about what the question asks (conflicts.py), in a
    kind of value that answers it (`_ANSWERED_BY`)."""
    kinds = _answering(question)
    return _of_asked_kind(question, disagreement(question, _statement(a), _statement(b), kinds))


def _statement(sentence: Sentence) -> Statement:
    return Statement(sentence.text, sentence.trail, sentence.chunk.title, sentence.block)


def _where(sentence: Sentence) -> str:
    date = sentence.date
    return f"{sentence.chunk.source}, {date.isoformat() if date else 'undated'}"


def find_conflicts(
    question: str, picked: Sequence[Scored], eligible: Sequence[Scored]
) -> list[Found]:
    """Disagreements between a picked sentence and an eligible one of another document; at
    most one per pair of documents."""
    found: list[Found] = []
    pairs: set[frozenset[str]] = set()
    for p in picked:
        for e in eligible:
            docs = frozenset((p.sentence.chunk.doc_id, e.sentence.chunk.doc_id))
            if len(docs) < 2 or docs in pairs or _another_period(p, e):
                continue
            if e.lexical < SIDE_LEXICAL * p.lexical and CHANGE not in e.sentence.chunk.marks:
                # "Cancel at least 2 hours before class" is no time to arrive by ("Uptime
                # checks now run every minute" says what changed, with few of the words)
                continue
            d = between(question, p.sentence, e.sentence)
            if d is not None:
                pairs.add(docs)
                found.append(
                    Found(
                        d.kind,
                        (Side(p, d.a.text), Side(e, d.b.text)),
                        {"a": 0, "b": 1}.get(d.superseding or ""),
                    )
                )
            if len(found) >= MAX_CONFLICTS:
                return found
    return found


def _another_period(a: Scored, b: Scored) -> bool:
    """Whether one is a log entry of the window a question about what happened then asks
    about and the other a log entry of another day: two periods' figures ("28 inspections
    completed" on 16 October, a June correction of that week's field days), not two sources
    that disagree."""
    if a.during == b.during:
        return False
    other = b if a.during else a
    return other.sentence.chunk.time_kind == "event"
