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

    def hits(start: int, end: int) -> int:
        return len(terms & set(_WORD.findall(flat[start:end].lower())))

    ends = [*starts[1:], len(flat)]
    # Most query words in the window, then in its first sentence, then the earliest.
    start, _ = max(
        zip(starts, ends, strict=True),
        key=lambda se: (hits(se[0], se[0] + size), hits(*se), -se[0]),
    )
    piece = flat[start : start + size]
    if start + size < len(flat):
        piece = piece[: piece.rfind(" ")] if " " in piece else piece
        piece += "…"
    return ("…" if start else "") + piece
