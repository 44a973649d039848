"""The part of a passage a search hit shows: at most `SNIPPET_CHARS` characters, starting at
the sentence with the most query words; the whole passage is in get_document."""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

SNIPPET_CHARS = 200
_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"[.!?:;]\s+")
#: (start, end, word): where a query word occurs in a text, as a whole lower-cased word.
Occurrence = tuple[int, int, str]


@lru_cache(maxsize=256)  # a search's hits share one query
def _terms(query: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(query.lower()) if len(w) > 2)


def _found(flat: str, terms: frozenset[str]) -> tuple[list[Occurrence], set[int] | None]:
    """Every occurrence of a query word in `flat` as a whole word, lower-cased, in order; and
    where a query word ends that begins a longer word (a window ending there cuts that word to
    the query word: `_cut`), None when unknown."""
    lower = flat.lower()
    if len(lower) != len(flat):  # lower-casing made two words of one ('İ' -> 'i̇'): read each
        whole = [
            (m.start(), m.end(), w)
            for m in _WORD.finditer(flat)
            for w in _WORD.findall(m.group().lower())
            if w in terms
        ]
        return whole, None
    found: list[Occurrence] = []
    prefixes: set[int] = set()
    for term in terms:  # a few words, found by str.find: no Python step per word of the text
        at = lower.find(term)
        while at >= 0:
            end = at + len(term)
            if not (at and _is_word(lower, at - 1)):
                if _is_word(lower, end):
                    prefixes.add(end)
                else:
                    found.append((at, end, term))
            at = lower.find(term, at + 1)
    return sorted(found), prefixes


def _cut(flat: str, terms: frozenset[str], start: int, end: int) -> set[str]:
    """The query words in what `end` leaves of a word it cuts (none when it cuts none);
    `start`: where the piece began (a sentence's start: no word crosses it)."""
    if not (start < end < len(flat) and _is_word(flat, end - 1) and _is_word(flat, end)):
        return set()
    first = end - 1
    while first > start and _is_word(flat, first - 1):
        first -= 1
    return set(_WORD.findall(flat[first:end].lower())) & terms


def _is_word(text: str, at: int) -> bool:
    """Whether the character at `at` is a word character (`\\w`: alphanumeric or "_"), read
    without the regular expression engine: this runs for every occurrence of a query word."""
    if at >= len(text):
        return False
    c = text[at]
    return c.isalnum() or c == "_"


def snippet(text: str, query: str, size: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    if len(flat) <= size:
        return flat
    terms = _terms(query)
    found, prefixes = _found(flat, terms)
    starts = [0, *(m.end() for m in _SENTENCE_END.finditer(flat))]
    ends = [*starts[1:], len(flat)]
    at = [s for s, _, _ in found]  # sorted: each sentence's words are one slice of `found`
    # each sentence's query words (a sentence ends in a space: no word crosses)
    said = [
        {w for _, _, w in found[bisect_left(at, a) : bisect_left(at, b)]}
        for a, b in zip(starts, ends, strict=True)
    ]

    def in_window(i: int) -> int:
        """Query words from sentence i's start to `size` characters on (a word cut at the
        end counts as cut)."""
        first, end = starts[i], starts[i] + size
        seen = {w for _, e, w in found[bisect_left(at, first) : bisect_left(at, end)] if e <= end}
        return len(seen | _cut(flat, terms, first, end)) if terms else 0

    # Most query words in the window, then in its first sentence, then the earliest. Only
    # the first sentence, those with a query word and those whose window cuts a word to one
    # can be best: any other's window words are all in the next sentence with one's.
    could = [
        i
        for i, first in enumerate(starts)
        if not i or said[i] or prefixes is None or first + size in prefixes
    ]
    best = max(could, key=lambda i: (in_window(i), len(said[i]), -starts[i]))
    start = starts[best]
    piece = flat[start : start + size]
    if start + size < len(flat):
        piece = piece[: piece.rfind(" ")] if " " in piece else piece
        piece += "…"
    return ("…" if start else "") + piece
