"""The part of a passage a search hit shows: at most `SNIPPET_CHARS` characters, starting at
the sentence with the most query words; the whole passage is in get_document."""

from __future__ import annotations

import re

SNIPPET_CHARS = 200
_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"[.!?:;]\s+")


def snippet(text: str, query: str, size: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    if len(flat) <= size:
        return flat
    terms = {w for w in _WORD.findall(query.lower()) if len(w) > 2}
    starts = [0, *(m.end() for m in _SENTENCE_END.finditer(flat))]
    ends = [*starts[1:], len(flat)]
    # each sentence's query words, read once (a sentence ends in a space: no word crosses)
    said = [
        terms & set(_WORD.findall(flat[a:b].lower())) for a, b in zip(starts, ends, strict=True)
    ]

    def in_window(i: int) -> int:
        """Query words from sentence i's start to `size` characters on (a word cut at the
        end counts as cut)."""
        end, seen, k = starts[i] + size, set[str](), i
        while k < len(starts) and ends[k] <= end:
            seen |= said[k]
            k += 1
        if k < len(starts) and starts[k] < end:
            seen |= terms & set(_WORD.findall(flat[starts[k] : end].lower()))
        return len(seen)

    # Most query words in the window, then in its first sentence, then the earliest.
    best = max(range(len(starts)), key=lambda i: (in_window(i), len(said[i]), -starts[i]))
    start = starts[best]
    piece = flat[start : start + size]
    if start + size < len(flat):
        piece = piece[: piece.rfind(" ")] if " " in piece else piece
        piece += "…"
    return ("…" if start else "") + piece
