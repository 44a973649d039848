"""Time expressions in a question, resolved to a date window.

"last week", "yesterday", "two weeks ago", "in March", "since Monday", "this quarter",
"on 12 May", "between 3 and 10 March", "in Q2 2026", "the past 10 days", "the week of
4 May" ... are found in the question text and resolved against `today` (the service's clock
in the registry's timezone) into an inclusive window [start, end]. The expression's words
are then not search terms: `Resolved.rest` is the question without them.

Conventions (say them when a user asks what a window meant; `Window.text` shows it):
- weeks start on Monday; "last week" is the previous Monday-Sunday, "two weeks ago" the
  calendar week two back, "this week" Monday to today;
- "last month" is the previous calendar month, "N months ago" the calendar month N back;
- a month, day or quarter without a year is its latest occurrence not after today;
- "last <weekday>" and "on <weekday>" are the latest such day before today ("on" includes
  today);
- "the last/past N days|weeks|months" ends today and starts N units back;
- a window that lies wholly after today is not a filter (a question about a planned date
  names content, not when something was said) and is dropped.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

from knowledge_platform.dating import MONTH_NAMES, NUMBER_WORDS, WEEKDAYS, month_number

_MONTH_NAMES = MONTH_NAMES
_MONTH = rf"(?P<month>{_MONTH_NAMES})\.?"
_WEEKDAY = r"(?P<weekday>" + "|".join(WEEKDAYS) + r")"
_NUMBERS = {**NUMBER_WORDS, "couple of": 2, "few": 3}
_N = r"(?P<n>\d{1,3}|" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + r")"
_UNIT = r"(?P<unit>day|week|month|quarter|year)s?"
_YEAR = r"(?P<year>(?:19|20)\d{2})"
_Y = r"(?:19|20)\d{2}"
_D = r"[0-3]?\d(?:st|nd|rd|th)?"
#: An absolute date: 2026-05-12, 12 May [2026], 12th of May, May 12[th][, 2026].
_DATE = (
    rf"(?:\d{{4}}-\d{{2}}-\d{{2}}|{_D}\s+(?:of\s+)?(?:{_MONTH_NAMES})\.?(?:,?\s+{_Y})?"
    rf"|(?:{_MONTH_NAMES})\.?\s+{_D}(?:,?\s+{_Y})?"
    # a day and month in figures ("13/10", "10/13/2026"): only when one order alone is a day
    rf"|(?<![\d/.])\d{{1,2}}/\d{{1,2}}(?:/(?:\d{{4}}|\d{{2}}))?(?![\d/]))(?![\w-])"
)
_DATE_PARTS = [
    re.compile(p, re.I)
    for p in (
        r"(?P<iso>\d{4}-\d{2}-\d{2})",
        r"(?P<a>\d{1,2})/(?P<b>\d{1,2})(?:/(?P<y>\d{4}|\d{2}))?",
        rf"(?P<day>\d+)(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>{_MONTH_NAMES})\.?(?:,?\s+(?P<year>\d{{4}}))?",
        rf"(?P<month>{_MONTH_NAMES})\.?\s+(?P<day>\d+)(?:st|nd|rd|th)?(?:,?\s+(?P<year>\d{{4}}))?",
    )
]
_ORDINALS = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
}


@dataclass(frozen=True)
class Window:
    """An inclusive date window and the words it was read from; no start: open before its
    end ("before September")."""

    start: dt.date | None
    end: dt.date
    text: str


@dataclass(frozen=True)
class Resolved:
    window: Window | None
    #: the question without the expression's words (and a preposition left dangling)
    rest: str


def _n(word: str) -> int:
    word = " ".join(word.lower().split())
    return _NUMBERS[word] if word in _NUMBERS else int(word)


def _month_end(year: int, month: int) -> dt.date:
    return dt.date(year, month, calendar.monthrange(year, month)[1])


def _add_months(day: dt.date, months: int) -> dt.date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    return dt.date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def _week(day: dt.date) -> tuple[dt.date, dt.date]:
    monday = day - dt.timedelta(days=day.weekday())
    return monday, monday + dt.timedelta(days=6)


def _quarter(year: int, q: int) -> tuple[dt.date, dt.date]:
    return dt.date(year, 3 * q - 2, 1), _month_end(year, 3 * q)


def _latest_month(today: dt.date, month: int, year: str | None) -> tuple[dt.date, dt.date]:
    y = int(year) if year else (today.year if month <= today.month else today.year - 1)
    return dt.date(y, month, 1), _month_end(y, month)


def _latest_day(today: dt.date, month: int, day: int, year: str | None) -> dt.date | None:
    try:
        if year:
            return dt.date(int(year), month, day)
        found = dt.date(today.year, month, day)
        return found if found <= today else dt.date(today.year - 1, month, day)
    except ValueError:
        return None


def _weekday_before(today: dt.date, weekday: str, *, include_today: bool) -> dt.date:
    back = (today.weekday() - WEEKDAYS.index(weekday.lower())) % 7
    if back == 0 and not include_today:
        back = 7
    return today - dt.timedelta(days=back)


def _span(today: dt.date, unit: str, n: int) -> tuple[dt.date, dt.date]:
    """The last `n` units up to today."""
    if unit == "day":
        return today - dt.timedelta(days=n), today
    if unit == "week":
        return today - dt.timedelta(days=7 * n), today
    months = {"month": 1, "quarter": 3, "year": 12}[unit]
    return _add_months(today, -months * n), today


def _ago(today: dt.date, unit: str, n: int) -> tuple[dt.date, dt.date]:
    """The calendar unit `n` back (a day: that day)."""
    if unit == "day":
        day = today - dt.timedelta(days=n)
        return day, day
    if unit == "week":
        return _week(today - dt.timedelta(days=7 * n))
    if unit == "month":
        first = _add_months(today.replace(day=1), -n)
        return first, _month_end(first.year, first.month)
    if unit == "quarter":
        index = (today.year * 4 + (today.month - 1) // 3) - n
        return _quarter(index // 4, index % 4 + 1)
    return dt.date(today.year - n, 1, 1), dt.date(today.year - n, 12, 31)


def _this(today: dt.date, unit: str) -> tuple[dt.date, dt.date]:
    start = _ago(today, unit, 0)[0]
    return start, today


Rule = Callable[[re.Match[str], dt.date], "tuple[dt.date | None, dt.date] | None"]


def _date_of(m: re.Match[str], today: dt.date, group: str = "date") -> dt.date | None:
    return _parse_date(m.group(group), today)


def _parse_date(text: str, today: dt.date) -> dt.date | None:
    for pattern in _DATE_PARTS:
        found = pattern.fullmatch(" ".join(text.split()))
        if found is None:
            continue
        g = found.groupdict()
        if g.get("iso"):
            try:
                return dt.date.fromisoformat(g["iso"])
            except ValueError:
                return None
        if g.get("a"):
            return _figures_day(int(g["a"]), int(g["b"]), g.get("y"), today)
        return _latest_day(today, month_number(g["month"]), int(g["day"]), g.get("year"))
    return None


def _figures_day(a: int, b: int, year: str | None, today: dt.date) -> dt.date | None:
    """A day and month in figures read the one way that is a day ("13/10": 13 October;
    "10/13": 13 October); both ("4/5") or neither, and "24/7" (round the clock): none."""
    if (a, b) == (24, 7) or (a > 12) == (b > 12):
        return None
    day, month = (a, b) if a > 12 else (b, a)
    if year is not None and len(year) == 2:
        year = f"20{year}"
    return _latest_day(today, month, day, year)


def _day(day: dt.date) -> tuple[dt.date, dt.date]:
    return day, day


def _one_day(m: re.Match[str], today: dt.date) -> tuple[dt.date, dt.date] | None:
    day = _date_of(m, today)
    return (day, day) if day else None


def _between(m: re.Match[str], today: dt.date) -> tuple[dt.date, dt.date] | None:
    first = _bound(m.group("a"), today)
    second = _bound(m.group("b"), today)
    if first is None or second is None:
        return None
    return min(first[0], second[0]), max(first[1], second[1])


def _bound(text: str, today: dt.date) -> tuple[dt.date, dt.date] | None:
    """A bare date or month ("3 March", "March 10", "March 2026") as a window."""
    day = _parse_date(text, today)
    if day is not None:
        return day, day
    m = re.fullmatch(rf"{_MONTH}(?:\s+{_YEAR})?", " ".join(text.split()), re.I)
    return _latest_month(today, month_number(m.group("month")), m.group("year")) if m else None


def _part_of_month(m: re.Match[str], today: dt.date) -> tuple[dt.date, dt.date]:
    start, end = _latest_month(today, month_number(m.group("month")), m.group("year"))
    part = m.group("part").lower()
    if part == "early":
        return start, start.replace(day=10)
    if part in ("mid", "the middle of"):
        return start.replace(day=11), start.replace(day=20)
    return start.replace(day=21), end


def _whole_month(m: re.Match[str], today: dt.date) -> tuple[dt.date, dt.date]:
    return _latest_month(today, month_number(m.group("month")), m.group("year"))


def _quarter_rule(m: re.Match[str], today: dt.date) -> tuple[dt.date, dt.date]:
    q = int(m.group("q")) if m.group("q") else _ORDINALS[m.group("qword").lower()]
    if m.group("year"):
        return _quarter(int(m.group("year")), q)
    year = today.year if _quarter(today.year, q)[0] <= today else today.year - 1
    return _quarter(year, q)


_RULE_TEXTS: list[tuple[str, Rule]] = [
    (
        rf"\b(?:between|from)\s+(?P<a>{_DATE}|(?:{_MONTH_NAMES})(?:\s+{_Y})?)\s+(?:and|to|until|"
        rf"through)\s+(?P<b>{_DATE}|(?:{_MONTH_NAMES})(?:\s+{_Y})?)(?![\w-])",
        _between,
    ),
    (r"\bthe\s+day\s+before\s+yesterday\b", lambda m, t: _day(t - dt.timedelta(days=2))),
    (r"\byesterday\b", lambda m, t: _day(t - dt.timedelta(days=1))),
    (r"\blast\s+night\b", lambda m, t: _day(t - dt.timedelta(days=1))),
    (r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b", lambda m, t: (t, t)),
    (
        rf"\b(?:in\s+|over\s+|during\s+|within\s+)?the\s+(?:last|past|previous)\s+{_N}\s+{_UNIT}",
        lambda m, t: _span(t, m.group("unit").lower(), _n(m.group("n"))),
    ),
    (
        r"\b(?:in\s+|over\s+|during\s+)?the\s+(?:last|past)\s+(?P<unit>week|month|year)\b(?!\s+of)",
        lambda m, t: _span(t, m.group("unit").lower(), 1),
    ),
    (
        rf"\b(?:a\s+(?=couple|few))?{_N}\s+{_UNIT}\s+(?:ago|back)\b",
        lambda m, t: _ago(t, m.group("unit").lower(), _n(m.group("n"))),
    ),
    (
        r"\bthe\s+(?P<unit>week|month|quarter|year)\s+before\s+last\b",
        lambda m, t: _ago(t, m.group("unit").lower(), 2),
    ),
    (r"\b(?:a\s+)?fortnight\s+ago\b", lambda m, t: _ago(t, "week", 2)),
    (
        r"\b(?:last|previous)\s+(?P<unit>week|month|quarter|year)\b",
        lambda m, t: _ago(t, m.group("unit").lower(), 1),
    ),
    (
        r"\bearlier\s+this\s+(?P<unit>week|month|quarter|year)\b",
        lambda m, t: (_this(t, m.group("unit").lower())[0], t - dt.timedelta(days=1)),
    ),
    (
        r"\bthis\s+(?P<unit>week|month|quarter|year)\b",
        lambda m, t: _this(t, m.group("unit").lower()),
    ),
    (
        rf"\bthe\s+week\s+of\s+(?P<date>{_DATE})",
        lambda m, t: _week(d) if (d := _date_of(m, t)) else None,
    ),
    (
        rf"\bsince\s+(?:last\s+)?{_WEEKDAY}\b",
        lambda m, t: (_weekday_before(t, m.group("weekday"), include_today=False), t),
    ),
    (rf"\bsince\s+(?P<date>{_DATE})", lambda m, t: (d, t) if (d := _date_of(m, t)) else None),
    (
        rf"\bsince\s+(?:the\s+start\s+of\s+|early\s+)?{_MONTH}(?:\s+{_YEAR})?\b",
        lambda m, t: (
            _latest_month(t, month_number(m.group("month")), m.group("year"))[0],
            t,
        ),
    ),
    # "before September", "prior to 1 March": everything until the day before
    (
        rf"\b(?:before|prior\s+to)\s+(?P<date>{_DATE})",
        lambda m, t: (None, d - dt.timedelta(days=1)) if (d := _date_of(m, t)) else None,
    ),
    (
        rf"\b(?:before|prior\s+to)\s+(?:the\s+start\s+of\s+)?{_MONTH}(?:\s+{_YEAR})?\b",
        lambda m, t: (
            None,
            _latest_month(t, month_number(m.group("month")), m.group("year"))[0]
            - dt.timedelta(days=1),
        ),
    ),
    (
        rf"\b(?:on\s+)?last\s+{_WEEKDAY}\b",
        lambda m, t: _day(_weekday_before(t, m.group("weekday"), include_today=False)),
    ),
    (
        rf"\bon\s+{_WEEKDAY}\b",
        lambda m, t: _day(_weekday_before(t, m.group("weekday"), include_today=True)),
    ),
    (rf"\b(?:on\s+)?(?:the\s+)?(?:{_WEEKDAY},?\s+)?(?P<date>{_DATE})", _one_day),
    (
        rf"\b(?:in\s+|during\s+)?(?P<part>early|mid|late|the\s+middle\s+of)[\s-]+{_MONTH}"
        rf"(?:\s+{_YEAR})?\b",
        _part_of_month,
    ),
    (
        rf"\b(?:in\s+|during\s+)?(?:q(?P<q>[1-4])|the\s+(?P<qword>first|second|third|fourth|1st|"
        rf"2nd|3rd|4th)\s+quarter)(?:\s+(?:of\s+)?{_YEAR})?\b",
        _quarter_rule,
    ),
    # "in March", "for march" ("site visit count for march?": that month's figures)
    (
        rf"\b(?:in|during|throughout|back\s+in|for(?:\s+the\s+month\s+of)?)\s+{_MONTH}"
        rf"(?:\s+{_YEAR})?\b(?!\s+\d)",
        _whole_month,
    ),
    # "sept drawings issued total?" (a question opening with "May" asks leave, not about May)
    (rf"^\s*(?!may\b){_MONTH}(?:\s+{_YEAR})?\b(?!\s+\d)", _whole_month),
    (rf"\b{_MONTH}\s+{_YEAR}\b", _whole_month),
    (
        rf"\b(?:in|during)\s+{_YEAR}\b",
        lambda m, t: (dt.date(int(m.group("year")), 1, 1), dt.date(int(m.group("year")), 12, 31)),
    ),
]
_RULES = [(re.compile(text, re.I), rule) for text, rule in _RULE_TEXTS]
#: Words that may be left dangling once an expression is cut out of a question.
_DANGLING = re.compile(r"\b(?:on|in|during|from|since|at|of|for|as of)\s*(?=[?.!,;:]|$)", re.I)


#: A log's shorthand for a unit of time ("last wk", "this qtr", "yday"), read spelt out.
_SHORTHAND = {"wk": "week", "wks": "weeks", "qtr": "quarter", "yday": "yesterday"}
_SHORT = re.compile(r"\b(" + "|".join(_SHORTHAND) + r")\b", re.I)


def resolve(question: str, today: dt.date) -> Resolved:
    """The first time expression in `question` (by position; the longest at a position) as a
    window, and the question without it. No expression, or one wholly after today: no
    window and the question unchanged."""
    question = _SHORT.sub(lambda m: _SHORTHAND[m[1].lower()], question)
    best: tuple[int, int, tuple[dt.date | None, dt.date]] | None = None
    for pattern, rule in _RULES:
        for m in pattern.finditer(question):
            if best is not None and (m.start(), -m.end()) >= (best[0], -best[1]):
                break
            try:
                found = rule(m, today)
            except (ValueError, KeyError, OverflowError):
                found = None
            if found is not None and (found[0] is None or found[0] <= found[1]):
                best = (m.start(), m.end(), found)
                break
    if best is None:
        return Resolved(None, question)
    start, end, (first, last) = best
    if first is not None and first > today:
        return Resolved(None, question)
    text = " ".join(question[start:end].split())
    rest = " ".join(f"{question[:start]} {question[end:]}".split())
    rest = " ".join(_DANGLING.sub("", rest).split())
    rest = re.sub(r"\s+([?.!,;:])", r"\1", rest)
    return Resolved(Window(first, min(last, today), text), rest)
