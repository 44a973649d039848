"""Which retrieved statements are current: a newer statement of change ranks above the older
text whose value it says is old.

A chunk marked CHANGE (dating.marks: "handed over to", "moved from X to Y", "replaces", "no
longer") supersedes an older hit when one of its sentences names as old a value that a
sentence of that hit states, that sentence is about what the question asks (it shares a
term with the question beyond the names it gives), and the change is dated after the hit
(or the hit is undated). Evergreen texts are never moved down for age alone: only a
statement that says their value changed does.
"""

from __future__ import annotations

from collections.abc import Sequence

from knowledge_platform.answers.asks import read_ask, terms
from knowledge_platform.answers.changes import Change, change_in
from knowledge_platform.answers.sentences import split_sentences
from knowledge_platform.dating import CHANGE
from knowledge_platform.models import Chunk, Hit


def changes_of(chunk: Chunk) -> list[Change]:
    """The statements of change in a chunk marked CHANGE."""
    if CHANGE not in chunk.marks:
        return []
    return [c for s in split_sentences(chunk.text) if (c := change_in(s)).says_change]


def supersedes(newer: Chunk, older: Chunk, about: frozenset[str] = frozenset(),
               changes: Sequence[Change] | None = None) -> bool:
    """Whether `newer` says a value `older` states is old, and was said after it; with
    `about` (stemmed terms), only where the older sentence shares one of them."""
    if newer.doc_id == older.doc_id or newer.date is None:
        return False
    if older.date is not None and newer.date <= older.date:
        return False
    found = changes_of(newer) if changes is None else changes
    said = [s for s in split_sentences(older.text) if not about or about & set(terms(s))]
    return any(c.makes_old(s) for c in found for s in said)


def current_first(hits: Sequence[Hit], question: str = "") -> list[Hit]:
    """`hits` with each statement of change moved just above the best-ranked older hit it
    supersedes on what `question` asks; everything else keeps its order."""
    ask = read_ask(question)
    about = frozenset(ask.terms - {t for n in ask.names for t in terms(n)})
    ordered = list(hits)
    for hit in list(ordered):
        found = changes_of(hit.chunk)
        if not found:
            continue
        at = ordered.index(hit)
        target = next((i for i, other in enumerate(ordered[:at])
                       if supersedes(hit.chunk, other.chunk, about, found)), None)
        if target is not None:
            ordered.insert(target, ordered.pop(at))
    return ordered
