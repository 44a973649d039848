"""Numbered items a question names: "What's playbook rule 2?", "What did rule 10 decide?",
"What did D-1 decide?". A page's numbered list ("2. Every campaign name follows ...") under a
heading or title that names the kind of item ("## Rules", "House rules"), a line that names
the item itself ("Rule 3: Nothing ships ..."), or a section whose heading does ("## D-4 —
Font licences") is a record as much as a decision record's own file is: the answer is that
item, whatever its words share with the question's, and an item that another says it
supersedes ("10. Supersedes rule 5: ...", "This supersedes D-3", "Status: replaced by D-9")
is said to be superseded, with the item that supersedes it.

Decision records kept one per file are found by references.py; these are the records that
live inside one page."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from knowledge_platform.models import Chunk, Hit
from knowledge_platform.sparse import SparseEncoder

_terms = SparseEncoder().terms

#: The kinds of item a question may name by number, or by letter and number ("D-4").
_KINDS = (
    "rule|principle|guideline|step|item|point|clause|policy|section|decision|commitment|"
    "requirement|standard"
)
_ASKED = re.compile(
    rf"\b(?:(?P<kind>{_KINDS})s?\s*(?:no\.?\s*|number\s*|#\s*)?0*(?P<n>\d{{1,3}})"
    r"|(?P<letter>[A-Z]{1,3})-0*(?P<ln>\d{1,3})"  # "D-4", "SP-11"
    r"|(?P<code>(?-i:[A-Z]{1,3}))0*(?P<cn>\d{1,3}))\b",  # "S9": in capitals, without a hyphen
    re.I,
)
#: The longest item text quoted.
MAX_ITEM_CHARS = 400


@dataclass(frozen=True)
class Asked:
    """What the question names: a kind ("rule") or a letter or three ("D", "SP"), and a
    number."""

    kind: str
    number: int

    @property
    def lettered(self) -> bool:
        """Named by letters ("D-4", "SP-3", "S9"), not by a kind's word ("rule 4")."""
        return len(self.kind) <= 3  # every word of _KINDS is longer

    @property
    def letter(self) -> str:
        return self.kind if self.lettered else self.kind[0]

    def names(self, n: int | str | None = None) -> str:
        """A pattern for how a text names item `n` (default: the asked one; a pattern with a
        group reads the number): "rule 5", "Rule #5", "D-5"."""
        n = self.number if n is None else n
        word = "" if self.lettered else rf"{re.escape(self.kind)}s?\s*#?\s*0*{n}\b|"
        return rf"(?:{word}\b{re.escape(self.letter)}-?0*{n}\b)"


@dataclass(frozen=True)
class Item:
    asked: Asked
    number: int
    text: str
    chunk: Chunk
    #: the item that says it supersedes this one, if one was retrieved
    superseded_by: Item | None = None

    @property
    def label(self) -> str:
        return _label(self.asked, self.number)


def asked(question: str) -> Asked | None:
    """The item the question names, e.g. Asked("rule", 5), Asked("d", 4)."""
    m = _ASKED.search(question)
    if m is None:
        return None
    if m.group("kind"):
        return Asked(m.group("kind").lower(), int(m.group("n")))
    if m.group("letter"):
        return Asked(m.group("letter").lower(), int(m.group("ln")))
    return Asked(m.group("code").lower(), int(m.group("cn")))


def find_item(question: str, hits: Sequence[Hit]) -> Item | None:
    """The item the question names among the retrieved passages: of a document whose title
    shares a word with the question first ("playbook rule 2"), then in retrieval order."""
    wanted = asked(question)
    if wanted is None:
        return None
    words = set(_terms(question))
    ranked = sorted(
        enumerate(hits), key=lambda p: (not (set(_terms(p[1].chunk.title)) & words), p[0])
    )
    for _, hit in ranked:
        for n, text in _items_of(hit.chunk, wanted):
            if n == wanted.number:
                return Item(wanted, n, text, hit.chunk, _successor(wanted, n, text, hit, hits))
    return None


def _opening(asked: Asked, n: str = r"(?P<n>\d{1,3})") -> str:
    """An item's opening: heading or list marks, the kind's word or its letter and a
    hyphen ("Rule 3:", "D-4 —") or nothing (a list's "2."), the number, a separator."""
    kind = "(?!)" if asked.lettered else re.escape(asked.kind)  # (?!): letters only
    return (
        rf"^\s*(?:#{{1,6}}\s*|[-*+]\s*)?(?:\*\*)?"
        rf"(?:(?P<kind>{kind})s?\s*#?\s*|(?P<letter>{re.escape(asked.letter)})-?)?"
        rf"0*{n}(?P<title>\s+(?![\u2014\u2013-])[^*\n()]{{1,60}}?(?=(?:\s*\([^()\n]{{1,80}}\))?[.:]?\*\*))?"
        rf"(?P<note>\s*\([^()\n]{{1,80}}\))?(?:\*\*)?\s*[.):\u2014\u2013-]\s*(?:\*\*)?\s*"
    )


def _items_of(chunk: Chunk, wanted: Asked) -> Iterator[tuple[int, str]]:
    """(number, text) of each item of `wanted`'s kind in `chunk`: the section it heads, its
    lines that name one, and the entries of a numbered list under a title or heading that
    names the kind ("## Rules")."""
    opening = re.compile(_opening(wanted) + r"(?P<text>\S.*)$", re.I)
    headers = [h for h in chunk.headers if h != chunk.title] or chunk.headers
    head = opening.match(headers[-1]) if headers else None
    if head and (head.group("kind") or head.group("letter")):
        yield int(head.group("n")), _clipped(f"{_noted(head)}: {chunk.text}")
        return
    listed = _names_kind(chunk, wanted)
    lines = chunk.text.splitlines()
    yield from _table_rows(lines, wanted)
    for at, line in enumerate(lines):
        m = opening.match(line)
        if m and (m.group("kind") or m.group("letter") or (listed and _numbered(line))):
            yield int(m.group("n")), _clipped(" ".join([_noted(m), *_wrapped(lines[at + 1 :])]))


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _table_rows(lines: Sequence[str], wanted: Asked) -> Iterator[tuple[int, str]]:
    """(number, text) of each row of a markdown table whose first cell names an item of
    `wanted`'s kind ("| SD-4 | 2 Mar 2026 | Plinthwork German: ... | Superseded by SD-9 |" of
    a decision register), the row's other cells said under their column's heading
    ("Date: 2 Mar 2026; Decision: ...; Status: Superseded by SD-9")."""
    first = re.compile(rf"(?:\*\*)?{wanted.names(_ANY_NUMBER)}(?:\*\*)?", re.I)
    header: list[str] | None = None
    for line in lines:
        if not line.lstrip().startswith("|"):
            header = None  # a table ends at its first line that is not a row
            continue
        cells = _cells(line)
        if all(re.fullmatch(r":?-{3,}:?", c) for c in cells if c):
            continue  # the line under the heading row
        if header is None:
            header = cells
            continue
        m = first.fullmatch(cells[0])
        if m is None:
            continue
        said = [f"{h}: {c}" if h else c for h, c in zip(header[1:], cells[1:], strict=False) if c]
        yield int(next(n for n in m.groups() if n)), _clipped("; ".join(said))


def _wrapped(lines: Sequence[str]) -> list[str]:
    """The lines an item's paragraph wraps onto: up to a blank line, a list entry, a heading
    or a line that opens in bold (the next item's)."""
    out: list[str] = []
    for line in lines:
        if not line.strip() or re.match(r"\s*(?:[-*+]\s|\d{1,3}[.)]\s|#|\*\*)", line):
            break
        out.append(line.strip())
    return out


def _noted(m: re.Match[str]) -> str:
    """An item's text with the title and the note its number carries in bold ("**SP-4 Fall
    protection (superseded by SP-11).** Harness ...", "**Rule 10 (supersedes rule 4).**")."""
    title, note = ((m.group(g) or "").strip() for g in ("title", "note"))
    if title:
        return f"{title}{f' {note}' if note else ''}. {m.group('text')}"
    return f"{note} {m.group('text')}" if note else m.group("text")


def _numbered(line: str) -> bool:
    """A numbered list's entry ("2. ...", "2) ..."), not a line that opens with a figure."""
    return bool(re.match(r"^\s*\d{1,3}[.)]\s", line))


def _clipped(text: str) -> str:
    text = " ".join(text.replace("**", "").split())
    return text if len(text) <= MAX_ITEM_CHARS else text[: MAX_ITEM_CHARS - 1] + "…"


def _names_kind(chunk: Chunk, wanted: Asked) -> bool:
    stem = set(_terms(wanted.kind))
    return not wanted.lettered and any(stem & set(_terms(h)) for h in (chunk.title, *chunk.headers))


#: "supersedes rule 5", "replaces D-4", "retires rule 5"; "replaced by D-9" in the item itself.
_SUPERSEDES = r"\b(?:supersed(?:es|ing)|replac(?:es|ing)|retir(?:es|ing)|overrid(?:es|ing))\s+"
_ANY_NUMBER = r"(\d{1,3})"
_SUPERSEDED_BY = r"\b(?:superseded|replaced|retired|overridden)\s+by\s+"


def _successor(wanted: Asked, n: int, text: str, hit: Hit, hits: Sequence[Hit]) -> Item | None:
    """The item of the same kind that supersedes item `n` (whose text is `text`, in `hit`):
    one it says replaced it ("Status: replaced by D-9"), or one that says it supersedes it
    (the same document's first)."""
    later = re.compile(_SUPERSEDED_BY + wanted.names(_ANY_NUMBER), re.I).search(text)
    says = re.compile(_SUPERSEDES + wanted.names(), re.I)
    for other in sorted(hits, key=lambda h: h.chunk.doc_id != hit.chunk.doc_id):
        for m, said in _items_of(other.chunk, wanted):
            named = later is not None and str(m) in later.groups()
            if m != n and (named or says.search(said)):
                return Item(wanted, m, said, other.chunk)
    return None


@dataclass(frozen=True)
class Superseding:
    """The item that supersedes another, and both their labels ("D-3", "D-11")."""

    chunk: Chunk
    old: str
    new: str


def superseding_item(chunk: Chunk, others: Sequence[Chunk]) -> Superseding | None:
    """Of `others`, the item that says it supersedes the one `chunk`'s section heading names
    ("## D-3 — Code review" is superseded by "## D-11 ...: This supersedes D-3."), if its
    heading names one."""
    item = _heading_item(chunk)
    if item is None:
        return None
    says = re.compile(_SUPERSEDES + item.names(), re.I)
    for other in others:
        later = _heading_item(other)
        if other.id != chunk.id and later is not None and says.search(other.text):
            return Superseding(other, _label(item, item.number), _label(later, later.number))
    return None


def _heading_item(chunk: Chunk) -> Asked | None:
    """The item a chunk's section heading opens with ("D-4 — Font licences"), if any."""
    headers = [h for h in chunk.headers if h != chunk.title]
    head = _ASKED.match(headers[-1].strip()) if headers else None
    return asked(head.group(0)) if head else None


def _label(asked: Asked, number: int) -> str:
    """How an item is named: "D-4", "Rule 5"."""
    kind = asked.kind
    return f"{kind.upper()}-{number}" if asked.lettered else f"{kind.title()} {number}"
