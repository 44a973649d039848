"""Sentences of the retrieved passages, each knowing where it came from: its document's
reference number, its retrieval rank, and the heading trail it sits under (which is often
what the sentence is about: "Account director: Jonas." under "## HOT")."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from knowledge_platform.convert.markdown import TABLE_RULE
from knowledge_platform.dating import (
    CHANGE,
    CHANGE_CUE,
    CHAT_STAMP,
    MESSAGE_STAMP,
    month_row,
    reports_on,
    week_before,
    week_numbered,
)
from knowledge_platform.models import WRITER, Chunk, Hit
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.sources import Sources
from knowledge_platform.serve.answers.values import values
from knowledge_platform.sparse import SparseEncoder

#: A chat stamp without its group: re.split would return what a group captures.
_UNNAMED_STAMP = CHAT_STAMP.replace("?P<said>", "?:")
_UNNAMED_MESSAGE = MESSAGE_STAMP.replace("?P<said>", "?:")
_SPLIT = re.compile(
    r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[`])|\n{2,}|\n(?=\s*(?:[-*+]|\d+\.)\s)"
    rf"|\n(?=\s*{_UNNAMED_STAMP})"  # a chat message or its reply
    # ... or a message or log line stamped another way: "[Mon 06:20] Ines: ...", "[15:20]
    # Priya: ...", "09:05 — First day back" (a line of its own, full stop or not)
    r"|\n(?=[ \t]*\[[^\]\n]{0,24}\b\d{1,2}:\d{2}\b[^\]\n]{0,12}\])"
    r"|\n(?=[ \t]*\d{1,2}:\d{2}(?:[ \t]?[AaPp][Mm])?[ \t]*[\u2014\u2013|-][ \t])"
    rf"|\n(?=[ \t]*(?i:{_UNNAMED_MESSAGE}))"  # "Nov 2, 2026 8:05 AM — Theo: ..."
)
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+\.|#+)\s+")
#: A message's handle opening its text: "Ben: ...", "Rosa Delgado: ..."
_HANDLE = re.compile(r"^\W{0,3}([A-Z][\w'-]+(?:\s[A-Z](?:[\w'-]+|\.))?):\s")
#: A sentence its writer says of themself: "I'm the Pourtrail admin", "ask me".
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I\u2019m|I've|I'll|I'd|me|my|mine)\b")
#: A split after one of these was not the end of a sentence ("e.g. `HOT-2611`", "2026 rate
#: (eff. 7/1)", "Rev. 3 (Aug 2026)", "Okoye v. Lakeview"). (Not a capital alone: "on shift A."
#: ends one.)
_ABBREVIATION = re.compile(
    r"\b(?:e\.g|i\.e|etc|vs?|cf|incl|approx|no|fig|mr|ms|mrs|dr|eff|init|rev|est|dept|ext|ref|"
    r"tel|avg|qty|pp|para|sec|jr|sr)\.$",
    re.I,
)
MIN_CHARS = 12
#: A converter's label opening a part ("Speaker notes:" before a slide's notes): not what was said.
_LABEL = re.compile(r"^speaker notes:\s*", re.I)
#: A date at the start of a line: a comment's "**user** (2026-03-04):", a log's "2026-03-04:"
_LEADING_DATE = re.compile(
    r"^[\W_]{0,4}(?:\*\*[^*\n]{1,40}\*\*\s*)?[(\[]?(\d{4}-\d{2}-\d{2})"
    r"[)\]]?\s*(?:[:\u2014\u2013-]|\*\*)"
)
#: The clock time a log line opens with ("- 09:40 render farm queue cleared", "[14:05] FYI:"):
#: when it was written down, not a value it states.
_CLOCK_STAMP = re.compile(
    r"^\[?(?:[01]?\d|2[0-3]):[0-5]\d(?:[ \t]?[AaPp]\.?[Mm]\.?)?\]?"
    r"(?:\s*[\u2014\u2013|-]\s*(?![\d:])|\s+)(?=[^\d\s\u2013-])"
)
#: So is a chat message's day and time, opening its line or inside a thread quoted whole
#: ("[2026-11-02 08:59] billie: ... ↳ [2026-11-02 09:28] zephyrine: ugh"), or spelled or in
#: figures opening its line ("Nov 2, 2026 8:05 AM — Theo: ...", "14/10 08:55 - Glen: ...").
_THREAD_STAMP = re.compile(rf"{CHAT_STAMP}\s*|^\s*{_UNNAMED_MESSAGE}\s*", re.I)
#: A chat message's or log line's stamp opening a line anywhere in a text (as `_SPLIT` reads
#: them).
_STAMPED_LINE = re.compile(
    rf"(?m)^\s*(?:{CHAT_STAMP}|{_UNNAMED_MESSAGE}"
    r"|\[[^\]\n]{0,24}\b\d{1,2}:\d{2}\b[^\]\n]{0,12}\]"  # "[Mon 10:05] Marek:", "[15:20]"
    r"|\d{1,2}:\d{2}(?:[ \t]?[AaPp][Mm])?[ \t]*[\u2014\u2013|-][ \t])",  # "09:05 — ..."
    re.I,
)
terms = SparseEncoder().terms


def split_sentences(text: str) -> list[str]:
    return list(_split(text))


#: Where a paragraph or a list item ends: the sentences between say one thing together.
_BLOCK = re.compile(r"\n{2,}|\n(?=\s*(?:[-*+]|\d+\.)\s)")


@lru_cache(maxsize=2048)
def _blocks(text: str) -> dict[str, str]:
    """Each sentence of `text` (as split_sentences gives it) -> the paragraph or list item
    it is part of, when that holds more than it."""
    out: dict[str, str] = {}
    lead = ""  # the bold line a list opens under, which names what its items are about
    for block in _BLOCK.split(_tables_as_lines(_unquoted(text))):
        parts = _split(block)
        item = bool(_LIST_ITEM.match(block))
        if item and lead and len(parts) == 1:
            out[parts[0]] = f"{lead}: {parts[0]}"
            continue
        titled = _LEAD_LINE.match(block)
        lead = (titled[1] or titled[2]).strip() if titled else lead if item else ""
        if len(parts) > 1:
            whole = " ".join(parts)
            out.update((p, whole) for p in parts)
    return out


#: A bold line of its own over a list ("**Borough of West Marlow — Marlow Mill Park**" over
#: "- Mowing: 24 visits/season"): a heading the file did not mark as one; or a line that
#: leads into it with a colon ("What changes from 1 September:").
_LEAD_LINE = re.compile(r"^\s*(?:\*\*([^*\n]{3,80})\*\*|([^*\n]{3,80}?):)\s*$")
#: A list's item (not a heading line, which `_BULLET` also strips): what a bold line leads.
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")


#: A line that is a label and its value, without a full stop ("Date: 2026-11-03", "Owner:
#: Yusra", "Notice no.: PN-007"): a line of its own, not the start of the sentence on the next
#: line.
_LABEL_LINE = re.compile(r"(?m)^(\s*[A-Z][\w .]{0,24}:[^\n.!?;,:]{1,40})\n(?=\s*[A-Z0-9])")


#: A heading line inside a passage ("### Site visit: Larkspire" over a log's entry): a
#: sentence of its own that the entry under it is part of, not the start of its first sentence.
_HEADING_LINE = re.compile(r"(?m)^[ \t]*#{1,6}[ \t]+(.*?[^.!?:\s])[ \t#]*\n")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


#: How `_tables_as_lines` writes a row's cells: "Column: cell", joined by CELL_JOIN.
CELL_JOIN = "; "
_NAMED_CELL = re.compile(r"^([^:;]{1,60}): (.+)$")


def row_cells(sentence: str) -> list[tuple[str, str]] | None:
    """The (column, cell) pairs of a sentence `_tables_as_lines` wrote for a table's row of
    three or more named cells ("Client: Corrowyn Skincare; Account manager: Obadiah Tiernan;
    Client contact: Mireille Grocott."); None for any other sentence."""
    cells: list[tuple[str, str]] = []
    for part in (p.strip() for p in sentence.rstrip(".").split(CELL_JOIN)):
        if m := _NAMED_CELL.match(part):
            cells.append((m[1], m[2]))
        elif cells:  # a cell's own semicolon ("IFUs, leaflets; study docs now and then")
            cells[-1] = (cells[-1][0], f"{cells[-1][1]}{CELL_JOIN}{part}")
        else:
            return None
    return cells if len(cells) >= 3 else None


#: A mail's quoting of the message it answers ("> " before each line, "> > " deeper): the
#: quoted message is read as text of its own.
_QUOTE = re.compile(r"(?m)^[ \t]*(?:>[ \t]?)+")
#: A mail's header line: a paragraph of its own, not the start of the message's first sentence.
_MAIL_HEADER = re.compile(r"(?m)^((?:From|To|Cc|Bcc|Date|Sent|Subject):[ \t].*)$")


def _unquoted(text: str) -> str:
    """`text` without a mail's quote marks, its header lines paragraphs of their own."""
    if ">" in text:
        text = _QUOTE.sub("", text)
    if "From:" in text:
        text = _MAIL_HEADER.sub("\n\n\\1\n\n", text)
    return text


def _tables_as_lines(text: str) -> str:
    """A markdown table's rows as paragraphs that name their columns ("| Quillbrook Dairy |
    Obadiah Tiernan |" under "| Client | Account manager |" is "Client: Quillbrook Dairy;
    Account manager: Obadiah Tiernan."): a row says what its header says it is."""
    if "|" not in text:
        return text
    lines = text.split("\n")
    out: list[str] = []
    header: list[str] = []
    for i, line in enumerate(lines):
        if not line.lstrip().startswith("|"):
            header = []
            out.append(line)
            continue
        if i + 1 < len(lines) and TABLE_RULE.match(lines[i + 1]) and not header:
            header = _cells(line)
            continue
        if TABLE_RULE.match(line):
            continue
        cells = _cells(line)
        said = [
            f"{name}: {cell}" if name else cell
            for name, cell in zip([*header, *[""] * len(cells)], cells, strict=False)
            if cell
        ]
        out.append("\n\n" + CELL_JOIN.join(said).rstrip(".") + ".\n\n" if said else "")
    return "\n".join(out)


@lru_cache(maxsize=2048)  # each hit's text is split once per search, not once per pair
def _split(text: str) -> tuple[str, ...]:
    parts: list[str] = []
    text = _HEADING_LINE.sub("\\1.\n", _tables_as_lines(_unquoted(text)))
    for part in _SPLIT.split(_LABEL_LINE.sub("\\1\n\n", text)):
        part = _LABEL.sub("", " ".join(_BULLET.sub("", part).split()))
        if parts and _ABBREVIATION.search(parts[-1]):
            parts[-1] = f"{parts[-1]} {part}"
        elif part:
            parts.append(part)
    return tuple(p for p in parts if len(p) >= MIN_CHARS and not p.startswith("|"))


#: (from, to) of a window of days, either end open.
During = tuple[dt.date | None, dt.date | None]
#: A paragraph or list item this short is also a candidate whole: "Security contact: Ana
#: Ruiz. Report a lost laptop to the security contact." answers whom to tell of a lost
#: laptop, which neither of its sentences does alone.
WHOLE_CHARS = 200


@dataclass(frozen=True)
class Sentence:
    text: str
    ref: int
    rank: int
    position: int
    chunk: Chunk
    #: the paragraph or list item the sentence is part of ("" when it stands alone): "Got
    #: the orchard blossom shots" says what "Photographer: Mina Castellane." is about
    block: str = ""

    @property
    def date(self) -> dt.date | None:
        """When the sentence was said: a date leading its line ("**maya** (2026-03-04): ...",
        "2026-03-04: ...") when not after its chunk's date, else the chunk's date."""
        found = _LEADING_DATE.match(self.text)
        if found:
            try:
                day = dt.date.fromisoformat(found.group(1))
            except ValueError:
                return self.chunk.date
            if self.chunk.date is None or day <= self.chunk.date:
                return day
        return self.chunk.date

    @property
    def lead(self) -> str:
        """The line a list item is led by ("What changes from 1 September" over "- **Nightjar**
        espresso, 5 lb: $58.50 → **$63.00**"), '' for any other sentence."""
        if self.block.endswith(f": {self.text}") and "\n" not in self.block:
            lead = self.block[: -len(self.text) - 2]
            return lead if len(_split(lead)) <= 1 else ""  # "Required" is too short to split
        return ""

    @property
    def speaker(self) -> str:
        """Who says the sentence in the first person: the handle its message opens with
        ("Ben: Big one for the taproom: ... I'm the Pourtrail admin, so logins ... come to
        me."), for a sentence of it after the first, in a chat's messages (a stamped line:
        a paragraph's "Note: ..." label is no writer), or a single mail's writer (its
        "From:" line: `WRITER`); '' for any other."""
        if not _FIRST_PERSON.search(self.text) or _HANDLE.match(self.text):
            return ""
        if not _STAMPED_LINE.search(self.chunk.text):
            # a mail's: its writer ("From: Owen Tate" over "... I'm the Scribeway admin")
            return str(self.chunk.extra.get(WRITER) or "")
        handle = _HANDLE.match(self.block)
        return handle.group(1) if handle else ""

    @property
    def heading(self) -> str:
        """The section heading right above the sentence ('' at the top of a document)."""
        headers = [h for h in self.chunk.headers if h != self.chunk.title]
        return headers[-1] if headers else ""

    @property
    def trail(self) -> str:
        return " > ".join(h for h in dict.fromkeys([self.chunk.title, *self.chunk.headers]) if h)

    @property
    def context(self) -> str:
        """The sentence with its heading trail: what it says, and about what."""
        return f"{self.trail}: {self.text}" if self.trail else self.text

    @property
    def about(self) -> str:
        """What names what the sentence is about: its heading trail, its words and the rest of
        its paragraph or list item ("One-page checkout wins." of a bullet that opens
        "Saltmarsh checkout test stopped after 24 days.")."""
        return f"{self.context} {self.block}" if self.block else self.context


#: A section's own number or record code and the dash after it: "5. ", "SOP-13 — ".
_SECTION_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[A-Z]{2,}-\d+)\s*[\u2013\u2014:.-]?\s+")


def names_a_thing(heading: str) -> bool:
    """A heading that names something (a client, a product: "HOT", "The Shade Store"), not a
    section label ("Notes", "Leads", "Decisions"; a binder's "5. Curing" or "SOP-13 —
    Facilities and equipment checks": its number orders sections, it names no subject)."""
    words = [w for w in _SECTION_NUMBER.sub("", heading).split() if any(c.isalpha() for c in w)]
    label = " ".join(words)
    return (
        any(w.isupper() and len(w) > 1 for w in words)
        or any(v.kind in ("name", "code") for v in values(label))
        or (len(words) > 1 and all(w[:1].isupper() for w in words if w.isalpha()))
    )


def candidates(sources: Sources, max_hits: int, during: During | None = None) -> list[Sentence]:
    """Every distinct sentence of the top `max_hits` hits, and of any later hit the statements
    of change (an old value named, or a change cue: "now run every minute": a newer value may
    be said where retrieval ranked it low; the rest of a daily log that says it is not what
    retrieval found it for) and the log entries said within `during`, the window the
    question's own words name ("Who did we hire this quarter?" is answered by what was said
    then, which the standing pages in force then may outrank), best hit first."""
    top = _distinct(sources, list(enumerate(sources.hits[:max_hits])))
    later = [
        (rank, hit)
        for rank, hit in enumerate(sources.hits)
        if rank >= max_hits
        and (CHANGE in hit.chunk.marks or (during is not None and hit.chunk.time_kind == "event"))
    ]
    seen = {s.text.lower() for s in top}
    more = [
        s
        for s in _distinct(sources, later)
        if s.text.lower() not in seen
        and (
            change_in(s.text).says_change
            or CHANGE_CUE.search(s.text)
            or (during is not None and said_during(s, during))
        )
    ]
    return [*top, *more]


def reported_week(s: Sentence) -> tuple[dt.date, dt.date] | None:
    """The week a log entry says it reports on as "last week" ("Last week: 136,920 words"
    said on Monday, or under its heading "Numbers, last week"), or by its number ("W45
    totals: PWM 452 appts" said on 9 November), if it does."""
    if s.chunk.time_kind != "event":
        return None
    heading = s.chunk.headers[-1] if s.chunk.headers else ""
    return (
        week_before(heading, s.date) or week_before(s.text, s.date) or week_numbered(s.text, s.date)
    )


#: A table row's first cell, as the row reads: "Month: **Nov 2026 MTD (thru 11/15)**; ...".
_FIRST_CELL = re.compile(r"^[^:;]{1,30}:\s*([^;]+);")
#: A total to date, of no one month: "YTD thru Oct", "Q3 to date" (a "Total" row is its
#: table's, of the table's days).
_TO_DATE = re.compile(r"^\W*(?:ytd|qtd|year[\s-]to[\s-]date|(?:q[1-4]\s+)?to\s+date)\b", re.I)


def row_month(s: Sentence) -> dt.date | None:
    """The first day of the month a table row is of, by its first cell ("Month: Oct 2026;
    Arden: $84,310"); `dt.date.max` for a row of a total to date ("YTD thru Oct"), of no one
    month; None for any other sentence."""
    m = _FIRST_CELL.match(s.text)
    if m is None:
        return None
    cell = m.group(1).strip(" *_")
    return dt.date.max if _TO_DATE.match(cell) else month_row(cell)


def said_during(s: Sentence, during: During) -> bool:
    """Whether `s` is a log entry (an event) said within `during` (either end open), or
    reporting on it just after (a month's close, `dating.reports_on`); a month's table row
    by its month, whenever it was written."""
    day, (start, end) = s.date, during
    if (month := row_month(s)) is not None:
        return (
            month != dt.date.max
            and (start is None or month >= start)
            and (end is None or month <= end)
        )
    before = reported_week(s)
    if before is not None:
        return (start is None or before[1] >= start) and (end is None or before[0] <= end)
    return (
        s.chunk.time_kind == "event"
        and day is not None
        and (start is None or day >= start)
        and (
            end is None
            or day <= end
            or reports_on(f"{' '.join(s.chunk.headers)} {s.text}", day, start, end)
        )
    )


def sentences_of(sources: Sources, hits: Sequence[Hit], first_rank: int) -> list[Sentence]:
    """Every distinct sentence of `hits`, ranked from `first_rank` on in their order."""
    return _distinct(sources, list(enumerate(hits, first_rank)))


def _distinct(sources: Sources, hits: Sequence[tuple[int, Hit]]) -> list[Sentence]:
    """The hits' distinct sentences, each followed by its paragraph or list item, once, when
    that is short (WHOLE_CHARS)."""
    seen: set[str] = set()
    out: list[Sentence] = []
    for rank, hit in hits:
        ref = sources.number[hit.chunk.doc_id]
        blocks = _blocks(hit.chunk.text)
        logged = hit.chunk.time_kind == "event"
        for position, text in enumerate(split_sentences(hit.chunk.text)):
            whole = blocks.get(text, "")
            led = whole.endswith(f": {text}")
            if logged:  # a log line's clock time is when it was noted
                text, whole = (
                    _THREAD_STAMP.sub("", _CLOCK_STAMP.sub("", t)) for t in (text, whole)
                )
            if text.lower() not in seen:
                seen.add(text.lower())
                out.append(Sentence(text, ref, rank, position, hit.chunk, whole))
            # (a list item under a bold line is read with it, not quoted with it)
            if whole and len(whole) <= WHOLE_CHARS and whole.lower() not in seen and not led:
                seen.add(whole.lower())
                out.append(Sentence(whole, ref, rank, position, hit.chunk))
    return out
