"""The names a document answers to — its title ("the monthly client reports record"), its
number ("ADR 7", "RFC-12", the 0007 of `0007-monthly-reports.md`) and its path's spellings
("decisions/0007-monthly-reports.md", "decisions/0007-monthly-reports", "0007-monthly-reports")
— as keys. Every chunk stores its document's keys (`Chunk.names`, a keyword payload index),
so a question that names a document by number or path finds it with one filtered lookup
instead of reading every chunk of the collection; the same keys decide, in memory, whether
a question names a retrieved chunk's document.

A question names a document when a key of the document is among the question's keys: a
title or spelling is a run of the question's words (case and punctuation aside), a number
is a numbered reference of the same family, or of any family when the question gives none
("doc 7").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import PurePosixPath

#: The longest title or path spelling (in words) a question is matched against.
LONGEST = 24
_FAMILY = {
    "adr": "decision",
    "decision": "decision",
    "record": "decision",
    "rfc": "rfc",
    "runbook": "runbook",
    "ticket": "ticket",
    "doc": "",
    "document": "",
    "": "",
}
NUMBERED = re.compile(
    r"\b(adr|rfc|decision|record|runbook|ticket|doc|document)s?"
    r"(?:\s+(?:no\.?|number))?\s*[-#:]?\s*0*(\d{1,6})\b",
    re.I,
)
#: A record's code: a few letters, a hyphen and its number ("CR-014", "P-06", "SD-9"), or
#: letters in up to three hyphened groups ("SOP-CELLAR-09", "POL-HR-3"), its letters the
#: family ("cr", "sop-cellar"). A question may write it in any case; a document's title or file
#: name opens with it in capitals (not "ops-2026-01-12.md").
_LETTERS = r"[A-Za-z]{1,4}(?:-[A-Za-z]{1,8}){0,2}"
CODE = re.compile(rf"\b({_LETTERS})-0*(\d{{1,6}})\b(?![.-]\d)")
_LEADING_CODE = re.compile(r"^([A-Z]{1,4}(?:-[A-Z]{1,8}){0,2})-0*(\d{1,6})(?![\w.]|-\d)")
#: A code with its year between its letters and its number ("OB-2026-02", "INC-2026-007"):
#: its family is its letters and year ("ob2026"), so OB-2026-02 is not OB-2025-02.
YEAR_CODE = re.compile(r"\b([A-Za-z]{1,4})-((?:19|20)\d{2})-0*(\d{1,6})\b(?![.-]\d)")
_LEADING_YEAR_CODE = re.compile(r"^([A-Z]{1,4})-((?:19|20)\d{2})-0*(\d{1,6})(?![\w.])")
_FAMILIES = frozenset(_FAMILY.values())
_LEADING_NUMBER = re.compile(r"^0*(\d{1,6})(?=[-_ .]|$)")
_KIND_FAMILY = {"decision": "decision", "runbook": "runbook"}
#: A folder that names the family of the numbered files in it, whatever their source made
#: of their kind (a memory workspace's decisions/0004-....md is decision 4).
_FOLDER_FAMILY = {
    "decisions": "decision",
    "adr": "decision",
    "adrs": "decision",
    "runbooks": "runbook",
}


def norm(text: str) -> str:
    """Lower-case words, punctuation as spaces: how titles and paths are compared."""
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


def numbered(text: str) -> set[tuple[str, int]]:
    """(family, number) of every numbered reference: "ADR 7" -> ("decision", 7), "CR-014"
    -> ("cr", 14)."""
    found = {(_FAMILY[w.lower().rstrip("s")], int(n)) for w, n in NUMBERED.findall(text)}
    found |= {_year_code(*code) for code in YEAR_CODE.findall(text)}
    return found | {_code(w, n) for w, n in CODE.findall(text) if not _a_year(n)}


def reference(name: str) -> tuple[str, int] | None:
    """The one numbered reference `name` is, whole ("CR-019", "RFC-10", "ADR 7"), as
    (family, number); None for anything else ("see ADR 7", "mid-2026", a path)."""
    text = name.strip()
    if whole := NUMBERED.fullmatch(text):
        return _FAMILY[whole[1].lower().rstrip("s")], int(whole[2])
    if (code := CODE.fullmatch(text)) and not _a_year(code[2]):
        return _code(code[1], code[2])
    if dated := YEAR_CODE.fullmatch(text):
        return _year_code(*dated.groups())
    return None


def _code(letters: str, number: str) -> tuple[str, int]:
    """A code's (family, number): "CR-014" -> ("cr", 14), "RFC-12" -> ("rfc", 12)."""
    family = letters.lower()
    return _FAMILY.get(family.rstrip("s"), family), int(number)


def _year_code(letters: str, year: str, number: str) -> tuple[str, int]:
    """A year-coded record's (family, number): "OB-2026-02" -> ("ob2026", 2)."""
    return f"{letters.lower()}{year}", int(number)


def _a_year(number: str) -> bool:
    """The 2026 of "mid-2026" or "FY-2025": a year, not a record's number."""
    return len(number) == 4 and 1900 <= int(number) <= 2100


def number_key(family: str, number: int) -> str:
    return f"n:{family or '*'}:{number}"


def _words_key(words: str) -> str:
    return f"w:{words}"


def name_keys(title: str, source_id: str, kind: str) -> list[str]:
    """The keys of a document: its title (two words or more) and each part after a colon
    (three or more: "ADR 7: monthly client reports"), its numbers (from the title's start and
    the file name's), and its path, the path without its suffix, and a file stem with a
    digit, hyphen or underscore in it (not "team" for team.md)."""
    keys: list[str] = []
    whole = norm(title)
    if len(whole.split()) >= 2:
        keys.append(_words_key(whole))
    parts = (norm(part) for part in title.split(":")[1:])
    keys += [_words_key(words) for words in parts if len(words.split()) >= 3]
    path = PurePosixPath(source_id)
    family = _KIND_FAMILY.get(kind) or next(
        (_FOLDER_FAMILY[p] for p in map(str.lower, path.parts[:-1]) if p in _FOLDER_FAMILY), ""
    )
    numbers = {(f or family, n) for f, n in numbered(title.split(":")[0]) if f in _FAMILIES}
    if match := _LEADING_NUMBER.match(path.stem):
        numbers.add((family, int(match.group(1))))
    for name in (title, path.stem):  # "CR-014 — Second LED wall", CR-014-led-wall.md
        if code := _LEADING_CODE.match(name):
            numbers.add(_code(*code.groups()))
        if dated := _LEADING_YEAR_CODE.match(name):
            numbers.add(_year_code(*dated.groups()))
    for f, n in sorted(numbers):
        keys += [number_key("", n), number_key(f, n)] if f else [number_key("", n)]
    spelled = [source_id]
    if len(path.parts) > 1 or re.search(r"[-_\d]", path.stem):
        spelled.append(str(path.with_suffix("")))
    if re.search(r"[-_\d]", path.stem):
        spelled.append(path.stem)
    keys += [_words_key(w) for s in spelled if (w := norm(s))]
    return list(dict.fromkeys(keys))


@lru_cache(maxsize=256)
def question_keys(question: str) -> frozenset[str]:
    """The keys a question names documents by: every run of up to LONGEST of its words, and
    its numbered references (a family's, or any family's when it names none: "doc 7")."""
    words = norm(question).split()
    runs = {
        _words_key(" ".join(words[i:j]))
        for i in range(len(words))
        for j in range(i + 1, min(len(words), i + LONGEST) + 1)
    }
    return frozenset(runs | {number_key(f, n) for f, n in numbered(question)})


def names(question: str, keys: Iterable[str]) -> bool:
    """Whether `question` names the document with `keys`."""
    return not question_keys(question).isdisjoint(keys)
