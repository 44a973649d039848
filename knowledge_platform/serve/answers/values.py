"""Typed values in a sentence — codes, dates, times, weekdays, durations, frequencies,
percentages, money, numbers and names — normalised so that two ways of writing one value
compare equal ("14 days" and "two weeks", "2:00 am" and "02:00", "December 20" and
"2026-12-20").

Each pattern claims its span, so a date is not also read as three numbers. `same` compares
two values of one kind; a date without a year matches that day in any year.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from knowledge_platform.dating import MONTH_NAMES, NUMBER_WORDS, WEEKDAYS, month_number

Kind = Literal[
    "code",
    "date",
    "time",
    "weekday",
    "duration",
    "frequency",
    "percent",
    "money",
    "number",
    "name",
    "phrase",
]
#: "phrase": a value in words no pattern types ("booked appointments per visitor"), as a
#: statement of change names it (changes.py); never found by `values`.

_MONTH = MONTH_NAMES
_WORDS = NUMBER_WORDS
_NUM = r"(?:\d+(?:\.\d+)?|" + "|".join(w for w in _WORDS if len(w) > 2) + ")"
#: Days per unit; a business cycle is a week.
_UNITS = {
    "second": 1 / 86400,
    "minute": 1 / 1440,
    "hour": 1 / 24,
    "day": 1,
    "night": 1,
    "week": 7,
    "fortnight": 14,
    "month": 30,
    "quarter": 91,
    "year": 365,
    "cycle": 7,
    # a log's or a procedure's short forms: "circulate 60 min", "2 hrs", "6 wks"
    "min": 1 / 1440,
    "hr": 1 / 24,
    "wk": 7,
    "yr": 365,
}
_UNIT = (
    r"(second|minute|hour|day|night|week|fortnight|month|quarter|year|"
    r"(?:business\s+)?cycle)s?"
)
_FREQ_WORDS = {
    "hourly": 1 / 24,
    "daily": 1,
    "nightly": 1,
    "weekly": 7,
    "biweekly": 14,
    "fortnightly": 14,
    "monthly": 30,
    "quarterly": 91,
    "annually": 365,
    "yearly": 365,
}
_ORDINAL = {"other": 2, "second": 2, "third": 3, "fourth": 4}
#: Capitalised words that are not names: sentence openers, labels, pronouns, prepositions and
#: a tracker's words for what happened to a task ("· Status changed from In review to Done").
_NOT_NAME_WORDS = """a an and the this that these those it its we our us you your they
their he she his her i if when while for every each all no not do does did is are was were be
use run draft decision decisions status owner owners focus primary note notes step steps why
how what who where which context close open first then after before during until since also
yes ok see per page post write record pause add request store rotate update revoke start
create created changed done in on at to from by of with into via"""
#: A title before a person's name is no part of it ("Dr. Sam Okafor" is Sam Okafor).
HONORIFICS = frozenset({"dr", "mr", "mrs", "ms", "mx", "prof", "sgt", "capt", "lt", "det"})
NOT_NAMES = frozenset(_NOT_NAME_WORDS.split()) | HONORIFICS

_PATTERNS: list[tuple[Kind, re.Pattern[str]]] = [
    ("code", re.compile(r"`([^`\n]{1,80})`")),
    ("code", re.compile(r"(?<![\w-])([A-Z][A-Z0-9]*(?:[-_][A-Za-z0-9]+)+)(?![\w-])")),
    ("code", re.compile(r"(?<![\w-])([A-Z][A-Z0-9]+-)(?![\w-])")),  # a prefix: "INC-"
    ("code", re.compile(r"(?<![\w#&])([#@][A-Za-z0-9][\w.-]*[A-Za-z0-9])")),  # #channel, @handle
    ("date", re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    # "17/06/2026", "Weds 10/7", "signed Weds (10/28)": a day in digits, not two numbers
    # ("24/7 cover" and "4/5 stars" have no year and no weekday before them)
    ("date", re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})\b")),
    # "effective 8/3", "from 9/1", "due 11/20": a day after a word that says when
    (
        "date",
        re.compile(
            r"(?:(?<=\beffective )|(?<=\bfrom )|(?<=\bstarting )|(?<=\bsince )|(?<=\buntil )|"
            r"(?<=\bas of )|(?<=\bdue )|(?<=\bthrough )|(?<=\bthru ))(\d{1,2})/(\d{1,2})"
            r"(?![/\d])",
            re.I,
        ),
    ),
    # a table row's date cell without a year: "Date: 07-30" (month first unless over 12)
    ("date", re.compile(r"(?:(?<=date: )|(?<=day: ))(\d{1,2})[-/](\d{1,2})(?![\d/-])", re.I)),
    (
        "date",
        re.compile(
            r"\b(?:mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun|monday|tuesday|wednesday|"
            r"thursday|friday|saturday|sunday)\.?\s+\(?(\d{1,2})/(\d{1,2})(?![/\d])",
            re.I,
        ),
    ),
    (
        "date",
        re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", re.I),
    ),
    (
        "date",
        re.compile(
            # "14 May", "the 3rd of June", a table's "14-Oct"
            rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?:\s+(?:of\s+)?|-)({_MONTH})\.?"
            rf"(?:,?\s+(\d{{4}}))?\b",
            re.I,
        ),
    ),
    # a ratio: "Minnow 1:4", "ratio 1:12" (a single figure after the colon is no time)
    ("number", re.compile(r"(?<![\d:])(\d{1,2}:\d)(?![\d:])|(?<=ratio )(\d{1,2}:\d{2})\b", re.I)),
    ("time", re.compile(r"\b(\d{1,2}):(\d{2})(?:\s*([ap])\.?m\.?\b)?", re.I)),
    ("time", re.compile(r"\b(\d{1,2})\s*([ap])\.?m\.?(?!\w)", re.I)),
    ("time", re.compile(r"\b(noon|midday|midnight)\b", re.I)),
    # a log's 24-hour time in its "Time" cell: "Time: 1400; FC: 1.2" is the 2 pm check
    ("time", re.compile(r"(?<=\btime: )([01]\d|2[0-3])([0-5]\d)()(?![\d:.])", re.I)),
    # a day of each month ("on the first working day of each month", "the 15th of the month")
    (
        "weekday",
        re.compile(
            r"\b((?:first|second|third|fourth|last|final|\d{1,2}(?:st|nd|rd|th))\s+"
            r"(?:(?:working|business|calendar)\s+)?(?:day\s+)?of\s+(?:the|each|every)\s+month)\b",
            re.I,
        ),
    ),
    (
        "frequency",
        re.compile(
            rf"\bevery\s+(other|second|third|fourth|{_NUM})?\s*"
            rf"({_UNIT}|{'|'.join(WEEKDAYS)})s?\b",
            re.I,
        ),
    ),
    # "twice daily": twice as often as "daily" (and not the same value as "once daily")
    (
        "frequency",
        re.compile(r"\b(once|twice|three times)\s+(" + "|".join(_FREQ_WORDS) + r")\b", re.I),
    ),
    ("frequency", re.compile(r"\b(" + "|".join(_FREQ_WORDS) + r")\b", re.I)),
    (
        "frequency",
        re.compile(
            r"\b(once|twice|three times)\s+(?:a|per|every)\s+(day|week|month|"
            r"quarter|year)\b",
            re.I,
        ),
    ),
    ("percent", re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|percent\b|per\s+cent\b)", re.I)),
    ("money", re.compile(r"([$€£])\s?(\d[\d,]*(?:\.\d+)?)\s*([kKmM])?\b")),
    (
        "duration",
        re.compile(
            rf"\b(an?|{_NUM})[\s-]+(?:full\s+|working\s+|business\s+|calendar\s+)*"
            rf"{_UNIT}\b",
            re.I,
        ),
    ),
    # a unit's short form after figures: "circulate 60 min", "2 hrs", "6 wks"
    ("duration", re.compile(r"\b(\d+(?:\.\d+)?)\s?(min|hr|wk|yr)s?\b\.?", re.I)),
    # an invoice's payment terms: "net 30" is 30 days to pay
    ("duration", re.compile(r"\b[Nn]et[\s-]?(\d{1,3})(?:\s+(days?))?\b(?![.,]\d)")),
    # "by the end of the next working day": a day's wait
    (
        "duration",
        re.compile(
            r"\bend\s+of\s+(?:the\s+)?(next)\s+(?:working\s+|business\s+)?(day|week)\b", re.I
        ),
    ),
    ("weekday", re.compile(r"\b(" + "|".join(WEEKDAYS) + r")s?\b", re.I)),
    ("number", re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?[x\u00d7](?!\w)")),  # a ratio: "4.2x"
    # a temperature, with its scale: "cure at 320°F" (its unit sets it apart from "125 mesh")
    ("number", re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?\u00b0\s?[CF]\b")),
    # "1,803.5 hours" is one number, not 1 and 803.5
    ("number", re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?)(?![\w.]*\w)")),
    # a measure written with its unit: "TTFB 468ms", "LCP 2.4s", "page weight 850kb"
    ("number", re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?(?:ms|s|kb|mb|gb|px)\b", re.I)),
    (
        "number",
        re.compile(
            r"\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
            r"fifteen|twenty|thirty|ninety)\b",
            re.I,
        ),
    ),
    # "one round of revisions" is a count; "no one", "one of them", "one more" are not
    (
        "number",
        re.compile(
            r"(?<!\bno\s)(?<!\bany\s)(?<!\bthe\s)(?<!\beach\s)(?<!\bthis\s)(?<!\bthat\s)"
            r"\b(one)(?=\s+[a-z]+\b)(?!\s+(?:of|more|another|other|that|which|who|is|was|"
            r"thing|way|time|day|off|by|to|or|and|in|on|at|for)\b)",
            re.I,
        ),
    ),
    (
        "name",
        re.compile(
            # a double-barrelled word is one ("Delphine Okonkwo-Reyes", "Mary-Jane")
            r"(?<![\w`/])([A-Z][a-z]+[A-Za-z]*(?:-[A-Z][a-z]+[A-Za-z]*)?(?:\s+(?:(?:de|van|"
            r"von|der|den|da|di|du|le|la|del|ter|bin)\s+)*[A-Z][a-z]+[A-Za-z]*"
            r"(?:-[A-Z][a-z]+[A-Za-z]*)?)*)\b(?!/)"
        ),
    ),
]


@dataclass(frozen=True)
class Value:
    kind: Kind
    norm: str
    text: str


def _number(word: str) -> float:
    word = word.lower()
    return float(_WORDS[word]) if word in _WORDS else float(word)


def _fmt(days: float) -> str:
    return f"{days:.4g}d"


#: A weekday's short form that is no English word ("sat", "sun" and "wed" are), as a hurried
#: question writes it: "staff mtg still thurs lunch?".
_SHORT_WEEKDAY = re.compile(r"\b(mon|tues?|weds|thu|thurs?|fri)\b\.?(?!\s*\d)", re.I)


def short_weekdays(text: str) -> list[Value]:
    """The weekdays a question writes short ("thurs"). Not read in pages: a log names its
    weekday so on every line ("Tue 4:30 pm"), and any two lines would disagree on it."""
    return [
        Value("weekday", next(d for d in WEEKDAYS if d.startswith(m[1][:3].lower())), m[0])
        for m in _SHORT_WEEKDAY.finditer(text)
    ]


def _normalise(kind: Kind, m: re.Match[str]) -> str | None:
    g = m.groups()
    if kind == "code":
        return " ".join(g[0].lower().split())
    if kind == "date":
        if g[0].isdigit() and len(g[0]) == 4:
            return f"{g[0]}-{g[1]}-{g[2]}"
        if g[0].isdigit() and g[1].isdigit():  # in digits: a first part over 12 is the day
            first, second = int(g[0]), int(g[1])
            month, day = (second, first) if first > 12 else (first, second)
            if not (1 <= month <= 12 and 1 <= day <= 31):
                return None
            year = g[2] if len(g) > 2 and g[2] else "*"
            return f"{'20' + year if len(year) == 2 else year}-{month:02d}-{day:02d}"
        month, day = (g[0], g[1]) if not g[0].isdigit() else (g[1], g[0])
        return f"{g[2] or '*'}-{month_number(month):02d}-{int(day):02d}"
    if kind == "time":
        if g[0].lower() in ("noon", "midday"):
            return "12:00"
        if g[0].lower() == "midnight":
            return "00:00"
        hour, minute = int(g[0]), int(g[1]) if len(g) == 3 and g[1] else 0
        meridiem = (g[2] if len(g) == 3 else g[1]) or ""
        if meridiem.lower() == "p" and hour < 12:
            hour += 12
        if meridiem.lower() == "a" and hour == 12:
            hour = 0
        return f"{hour:02d}:{minute:02d}"
    if kind == "frequency":
        return _frequency(g)
    if kind == "percent":
        return f"{float(g[0]):g}%"
    if kind == "money":
        scale = {"k": 1e3, "m": 1e6}.get((g[2] or "").lower(), 1)
        return f"{g[0]}{float(g[1].replace(',', '')) * scale:g}"
    if kind == "duration":
        unit = (g[1] or "day").lower().split()[-1]  # "net 30": days
        return _fmt((1 if g[0].lower() == "next" else _number(g[0])) * _UNITS[unit])
    if kind == "weekday":  # a weekday, or a day of each month
        day = " ".join(g[0].lower().replace("business", "working").split())
        return re.sub(r"\b(?:each|every)\b", "the", day).replace("final", "last")
    if kind == "number":
        ratio = next((r for r in g if r and ":" in r), None)
        return ratio or f"{_number(g[0].replace(',', '')):g}"
    name = g[0]
    words = name.split()
    while words and words[0].lower() in NOT_NAMES:
        words.pop(0)
    return " ".join(words).lower() if words else None


def _frequency(g: tuple[str | None, ...]) -> str:
    if len(g) == 1:
        return _fmt(_FREQ_WORDS[str(g[0]).lower()])
    first, second = (g[0] or "").lower(), (g[1] or "").lower()
    if first in ("once", "twice", "three times"):
        times = {"once": 1, "twice": 2, "three times": 3}[first]
        return _fmt((_FREQ_WORDS.get(second) or _UNITS[second]) / times)
    every = _ORDINAL.get(first) or (_number(first) if first else 1)
    unit = second.rstrip("s")
    if unit in WEEKDAYS:
        return _fmt(7 * every)
    return _fmt(_UNITS[unit.split()[-1]] * every)


def values(text: str) -> list[Value]:
    """The typed values in `text`, in the order the patterns claim them."""
    return list(_values(text))


#: A weekday's short form ("Thu"), no name.
_DAY_SHORT = frozenset({*(d[:3] for d in WEEKDAYS), "tues", "thur", "thurs", "weds"})


@lru_cache(maxsize=8192)  # a search compares each hit's sentences with every change it reads
def _values(text: str) -> tuple[Value, ...]:
    taken = [False] * len(text)
    found: list[Value] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            start, end = m.span()
            if any(taken[start:end]):
                continue
            if (
                kind == "name"
                and " " not in m.group(1)
                # "[Thu 16:31] Ines: ...": when the line was written
                and (_sentence_start(text, start) or m.group(1).lower() in _DAY_SHORT)
            ):
                continue
            if kind == "time" and _STAMP.match(text, end) and not text[:start].strip():
                taken[start:end] = [True] * (end - start)  # "10:10 — ...": when it was said
                continue
            norm = _normalise(kind, m)
            if norm:
                found.append(Value(kind, norm, m.group(0)))
                taken[start:end] = [True] * (end - start)
                day = m.group(m.lastindex or 0).lower().rstrip("s") if kind == "frequency" else ""
                if day in WEEKDAYS:  # "every second Monday": a frequency and a weekday
                    found.append(Value("weekday", day, m.group(0)))
    return tuple(found)


#: What follows a chat line's time stamp ("10:10 — Heads up: ..."): the stamp says when the
#: line was written, not a time the line states.
_STAMP = re.compile(r"\s*[\u2014\u2013|]|\s+-\s")


def _sentence_start(text: str, pos: int) -> bool:
    before = text[:pos].rstrip()
    # a word in bold or italics starts no sentence by being so ("logged in **FixTrack**"),
    # though a list's "* " does
    if before.endswith(("**", "__")) or (before.endswith("_") and not before.endswith("\\_")):
        before = before.rstrip("*_").rstrip()
    return not before or before[-1] in ".!?;(\n-*#>"


def same(a: Value, b: Value) -> bool:
    """Whether two values of one kind are the same value (dates: a missing year matches)."""
    if a.kind != b.kind:
        return False
    if a.kind == "date":
        ya, ma = a.norm.split("-", 1)
        yb, mb = b.norm.split("-", 1)
        return ma == mb and (ya == yb or "*" in (ya, yb))
    if a.kind in ("code", "name"):
        return _loose(a.norm) == _loose(b.norm) or a.norm in b.norm or b.norm in a.norm
    return a.norm == b.norm


def _loose(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())
