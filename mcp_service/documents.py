"""Documents and context blocks reassembled from chunks: ordinal order, section headers put
back, the ~20% window overlap between consecutive pieces of one section removed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from knowledge_platform.models import Chunk, Hit

GAP = "\n\n[…]\n\n"
_PROBE = 48


def cost(chunk: Chunk) -> int:
    return chunk.tokens or max(1, len(chunk.text) // 4)


def remainder(prev: str, nxt: str) -> str | None:
    """`nxt` without the prefix it shares with the end of `prev` (a window overlap), or
    None if the two do not overlap."""
    probe = nxt[: min(_PROBE, len(nxt))]
    start = prev.find(probe) if probe else -1
    while start != -1:
        tail = prev[start:]
        if nxt.startswith(tail):
            return nxt[len(tail) :].lstrip()
        start = prev.find(probe, start + 1)
    return None


def assemble(chunks: Sequence[Chunk]) -> tuple[str, list[list[str]]]:
    """Text of `chunks` (any order) and the header trails of the sections it covers."""
    text = ""
    sections: list[list[str]] = []
    previous: Chunk | None = None
    for chunk in sorted(chunks, key=lambda c: c.ordinal):
        adjacent = previous is not None and chunk.ordinal == previous.ordinal + 1
        if previous is not None and chunk.headers == previous.headers:
            piece = remainder(previous.text, chunk.text) if adjacent else None
            if piece is not None:
                text += (" " + piece) if piece else ""
            else:
                text += ("\n\n" if adjacent else GAP) + chunk.text
        else:
            if previous is not None:
                text += "\n\n" if adjacent else GAP
            old = previous.headers if previous is not None else []
            for level, header in enumerate(chunk.headers):
                if old[: level + 1] != chunk.headers[: level + 1]:
                    text += f"{'#' * (level + 1)} {header}\n\n"
            sections.append(list(chunk.headers))
            text += chunk.text
        previous = chunk
    return text.strip(), sections


@dataclass
class Selection:
    doc_id: str
    best: Hit
    chosen: dict[int, Chunk] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return sum(cost(c) for c in self.chosen.values())


def _priority(hits: list[Hit], chunks: list[Chunk]) -> list[Chunk]:
    """Hit chunks first, then their neighbours (ordinal +-1), then the rest of their
    sections, nearest first."""
    by_ordinal = {c.ordinal: c for c in chunks}
    hit_ordinals = [h.chunk.ordinal for h in hits]
    order: list[int] = list(hit_ordinals)
    for o in hit_ordinals:
        order += [o - 1, o + 1]
    sections = {tuple(h.chunk.headers) for h in hits}
    mates = [c.ordinal for c in chunks if tuple(c.headers) in sections]
    order += sorted(mates, key=lambda o: min(abs(o - h) for h in hit_ordinals))
    seen: dict[int, None] = {}
    for o in order:
        if o in by_ordinal:
            seen.setdefault(o, None)
    return [by_ordinal[o] for o in seen]


def select_context(
    hits: Sequence[Hit], doc_chunks: dict[str, list[Chunk]], max_tokens: int
) -> tuple[list[Selection], int, bool]:
    """One selection per document (best hit first) within `max_tokens` in total.
    Returns (selections, tokens used, truncated)."""
    grouped: dict[str, list[Hit]] = {}
    for hit in hits:
        grouped.setdefault(hit.chunk.doc_id, []).append(hit)
    used, truncated = 0, False
    out: list[Selection] = []
    for doc_id, doc_hits in grouped.items():
        chunks = doc_chunks.get(doc_id) or [h.chunk for h in doc_hits]
        selection = Selection(doc_id, doc_hits[0])
        for chunk in _priority(doc_hits, chunks):
            if used + cost(chunk) > max_tokens:
                truncated = True
                continue
            selection.chosen[chunk.ordinal] = chunk
            used += cost(chunk)
        if selection.chosen:
            out.append(selection)
    return out, used, truncated
