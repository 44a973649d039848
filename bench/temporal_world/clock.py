"""The evaluation's fixed clock and the time expressions its dated questions use.

Every expression has a *narrow* window (what every sensible reading agrees on: the answer is
placed there) and a *wide* one (the union of the readings: a week starting Sunday or Monday,
"two weeks ago" as that week or as the day 14 days back, give or take three days). Distractors
of the same subject are placed outside the wide window, so a label never depends on which
reading a resolver picks; one of them after it wherever the year allows, so "the newest
statement" is not the answer by accident.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

#: The service's "now" for the whole evaluation (KP_NOW), a Friday afternoon in New York.
KP_NOW = "2026-11-20T16:00"
TIMEZONE = "America/New_York"
TODAY = dt.date(2026, 11, 20)
FIRST_DAY = dt.date(2026, 1, 5)


def d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def weekdays(first: dt.date = FIRST_DAY, last: dt.date = TODAY) -> list[dt.date]:
    days = (first + dt.timedelta(n) for n in range((last - first).days + 1))
    return [day for day in days if day.weekday() < 5]


@dataclass(frozen=True)
class Expression:
    text: str
    narrow: tuple[dt.date, dt.date]
    wide: tuple[dt.date, dt.date]

    def inside(self, day: dt.date, *, wide: bool = False) -> bool:
        first, last = self.wide if wide else self.narrow
        return first <= day <= last

    def describe(self) -> str:
        return (
            f"{_span(self.narrow)} (every reading within {_span(self.wide)})"
            if self.narrow != self.wide
            else _span(self.narrow)
        )


def _span(window: tuple[dt.date, dt.date]) -> str:
    first, last = window
    return first.isoformat() if first == last else f"{first.isoformat()}..{last.isoformat()}"


def _x(text: str, narrow: tuple[str, str], wide: tuple[str, str] | None = None) -> Expression:
    n = (d(narrow[0]), d(narrow[1]))
    return Expression(text, n, (d(wide[0]), d(wide[1])) if wide else n)


#: Today is Friday 2026-11-20. A week is Sunday-Saturday or Monday-Sunday; "last week" and
#: "last month" are the previous calendar week and month, not the last 7 or 30 days.
EXPRESSIONS: tuple[Expression, ...] = (
    _x("yesterday", ("2026-11-19", "2026-11-19")),
    _x("last week", ("2026-11-09", "2026-11-13"), ("2026-11-08", "2026-11-15")),
    _x("two weeks ago", ("2026-11-06", "2026-11-06"), ("2026-11-01", "2026-11-09")),
    _x("last month", ("2026-10-01", "2026-10-31")),
    _x("in March", ("2026-03-01", "2026-03-31")),
    _x("since Monday", ("2026-11-17", "2026-11-20"), ("2026-11-16", "2026-11-20")),
    _x("this quarter", ("2026-10-01", "2026-11-20"), ("2026-10-01", "2026-12-31")),
    _x("on 12 May", ("2026-05-12", "2026-05-12")),
    _x("three days ago", ("2026-11-17", "2026-11-17")),
    _x("last Friday", ("2026-11-13", "2026-11-13")),
    _x("the week before last", ("2026-11-02", "2026-11-06"), ("2026-11-01", "2026-11-08")),
    _x("earlier this month", ("2026-11-02", "2026-11-19"), ("2026-11-01", "2026-11-20")),
    _x("in June", ("2026-06-01", "2026-06-30")),
    _x("in August", ("2026-08-01", "2026-08-31")),
    _x("in April", ("2026-04-01", "2026-04-30")),
    _x("in October", ("2026-10-01", "2026-10-31")),
    _x("in the second quarter", ("2026-04-01", "2026-06-30")),
    _x("on 3 February", ("2026-02-03", "2026-02-03")),
    _x("on 21 July", ("2026-07-21", "2026-07-21")),
    _x("on 9 September", ("2026-09-09", "2026-09-09")),
)
