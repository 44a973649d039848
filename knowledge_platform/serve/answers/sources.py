"""Retrieved hits grouped by document. Each document gets a reference number in retrieval
order (what a chat model is shown); an answer renumbers the ones it uses in order of first
use, so its citations read [1], [2], [3] from left to right. A citation names the page, slide
or sheet of the passage the answer quotes, else of the document's best hit."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from knowledge_platform.models import Chunk, Hit
from knowledge_platform.serve.answers.contract import Citation

_MARKER = re.compile(r"\[(\d+)\]")


class Sources:
    def __init__(self, hits: Sequence[Hit]) -> None:
        self.hits = list(hits)
        self.number: dict[str, int] = {}
        self.citations: dict[int, Citation] = {}
        for hit in self.hits:
            c = hit.chunk
            if c.doc_id in self.number:
                continue
            n = len(self.number) + 1
            self.number[c.doc_id] = n
            self.citations[n] = Citation.of(c, number=n)

    def texts(self, n: int) -> list[str]:
        return [h.chunk.text for h in self.hits if self.number[h.chunk.doc_id] == n]

    def in_order_of_use(
        self,
        text: str,
        quoted: Mapping[int, Chunk] | None = None,
    ) -> tuple[str, list[Citation], dict[int, int]]:
        """`text` with its [n] markers renumbered by first use, the citations it uses under
        their new numbers, and the map from reference number to citation number. `quoted`:
        the chunk the text quotes for a reference number, where it quotes one, in the order
        it quotes them (numbered first: a note before a quote, "(older; [2] is newer)", does
        not number the newer source first)."""
        quoted = quoted or {}
        used = [int(n) for n in _MARKER.findall(text) if int(n) in self.citations]
        order = [*(n for n in quoted if n in used), *used]
        renumber = {old: new for new, old in enumerate(dict.fromkeys(order), 1)}
        cited = [
            Citation.of(quoted[old], number=new)
            if old in quoted
            else self.citations[old].model_copy(update={"number": new})
            for old, new in renumber.items()
        ]

        def swap(m: re.Match[str]) -> str:
            n = int(m.group(1))
            return f"[{renumber[n]}]" if n in renumber else m.group(0)

        return _MARKER.sub(swap, text), cited, renumber
