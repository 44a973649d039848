"""When a text was said: a document's effective date and kind of time, and a section's.

The most specific evidence wins: a dated heading over its document's date; a review date in
front matter (`updated`, `reviewed`, ...) over `date`; then a dated file name or first
heading; then what the source knows (a commit, a record's update time).

The kind of time says how long a text stays true. An *event* is true as of its day: a daily
log, a dated section, a meeting note. A *standing* text is true until changed: a rule, a
roster, a runbook, a decision record, a reviewed reference file.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from knowledge_platform.frontmatter import parse_date
from knowledge_platform.models import TimeKind

#: Front-matter keys that say when a standing text was last checked to be true.
REVIEW_KEYS = (
    "updated",
    "last_updated",
    "reviewed",
    "last_reviewed",
    "revised",
    "as_of",
    "verified",
)
#: Month and weekday names, one definition for every reader of dates in text (dating,
#: serve.when, answers.values).
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
#: A regex alternation of month names and their abbreviations ("sept" too; "may" once).
MONTH_NAMES = "|".join([*MONTHS, *(m[:3] for m in MONTHS if m != "may"), "sept"])
#: A chat export's message stamp, a reply's after its "↳": "[2026-03-04 09:12] nadia: ...";
#: the day it was written in group `said`. The chunker dates messages by it, the answers read
#: past it (the handle after it signs the message).
CHAT_STAMP = r"(?:[\u21b3>][ \t]*)?\[(?P<said>\d{4}-\d{2}-\d{2})[ T]\d{1,2}:\d{2}(?::\d{2})?\]"
#: A message's stamp that spells its day or writes it in figures, opening its line: "Nov 2,
#: 2026 8:05 AM — Theo: ...", "30/03 07:48 - Hector: ...", a day book's "19/11 — Till:
#: $5,218.40" (the day in group `said`, maybe a time, then a dash).
MESSAGE_STAMP = (
    r"(?:[\u21b3>][ \t]*)?\[?(?P<said>(?:" + MONTH_NAMES + r")\.?\s+\d{1,2},?\s+\d{4}"
    r"|\d{1,2}/\d{1,2}(?:/\d{2,4})?)(?:,?\s+\d{1,2}:\d{2}(?:\s?[AaPp]\.?[Mm]\.?)?\]?[ \t]*"
    r"|[ \t]+(?=[\u2014\u2013-]))[\u2014\u2013|-]"
)
#: Numbers written as words, as dates, durations and values say them ("two weeks ago").
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fourteen": 14,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "ninety": 90,
}

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH = MONTH_NAMES


def month_number(name: str) -> int:
    """1..12 for a month name or abbreviation ("Sept.", "mar")."""
    start = name.lower().rstrip(".")[:3]
    return next(i for i, m in enumerate(MONTHS, 1) if m.startswith(start))


_SPELLED = [
    re.compile(
        rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<month>{_MONTH})\.?,?\s+"
        rf"(?P<year>\d{{4}})\b",
        re.I,
    ),
    re.compile(
        rf"\b(?P<month>{_MONTH})\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+"
        rf"(?P<year>\d{{4}})\b",
        re.I,
    ),
]
#: Words of a statement of change: a text that says a value changed ("handed over to",
#: "moved from X to Y", "replaces", "no longer"). Such chunks are marked CHANGE, so the read
#: side can look for a newer statement that changed what an older text says.
_CUE_DAYS = "|".join([MONTH_NAMES, *WEEKDAYS])
#: A clause's character, a full stop inside a figure ("$0.70") included.
_IN_CLAUSE = r"(?:[^.;!?\n]|\.(?=\d))"
#: What "not" names as old: a word or figure, bold or not ("not **72**").
_OLD = r"\**[\w$\u20ac\u00a3]"
#: The rest of a clause that ends ", not <old>".
_TO_NOT = rf"{_IN_CLAUSE}{{0,80}},\s*not\s+{_OLD}"
#: An arrow between two values: "Tue 14:45 -> Wed 11:00".
ARROW = re.compile(r"\s(?:->|\u2192|=>)\s")
CHANGE_CUE = re.compile(
    rf"{ARROW.pattern}|"
    # a struck-through value before the one that replaced it: "| Wellness exam | ~~$68~~ $74 |"
    r"~~[^~\n]{1,60}~~(?=[ \t]*[^\s~|;])|"
    r"\b(hand(?:ed|s|ing)\s+(?:\w+\s+){0,6}?(?:over|to)|took\s+over|takes\s+over|"
    # "changes" only as a verb: "fewer late design changes next time" changes nothing
    r"moved|moves|switched|switches|changed|changes\s+(?:to|from|hands|over|back)|raised|"
    r"lowered|increased|decreased|"
    r"reduced|replaced|replaces|supersedes|superseded|no\s+longer|instead\s+of|"
    r"from\s+now\s+on|from\s+today|going\s+forward|"
    rf"effective\s+(?:today|immediately|from|on|\d|(?:{MONTH_NAMES})\b)|"
    r"now\s+(?:owns?|leads?|runs?|uses?|goes|go|sits?|lives?|meets?|starts?|costs?|takes?|"
    r"happens?|handles?|manages?)|(?:is|are)\s+now|as\s+of\s+(?:today|now|this)|"
    # a sentence that ends on "now": "All client hosting is on Northvane Cloud now."
    r"(?<!for\s)now(?=\s*[.;!](?:\s|$))|"
    # "idle sites now get torn down after 18 days, not 40": now one value, not the other
    rf"now\s(?={_TO_NOT})|"
    # a correction of what was said before: "Correction to yesterday — it's $56/ton, not 61",
    # "Correction to yesterday's mileage post — sorry! It's 70 cents a mile ($0.70), not 72"
    # "Correction: it's 8 cases not 10"
    rf"correction(?=\s*(?::|to\b|\u2014|\u2013|-)(?:{_IN_CLAUSE}|[!?]\s+){{1,80}}(?:,\s*|\s)"
    rf"not\s+{_OLD})|"
    # "It's Tuesday, not Monday": what it is, not what was said (a name or a figure: "it's a
    # guideline, not a rule" corrects nothing)
    rf"\bit(?:'|\u2019)?s(?=\s{_IN_CLAUSE}{{0,80}},\s*not\s+(?-i:\**(?:[A-Z]|[$\u20ac\u00a3]?\d)))|"
    r"(?:goes|go|went)\s+(?:up|down)|(?:goes|go|going)\s+from|"
    # a tool's end and its successor: "Clipwatch contract ends 10 July and we're not
    # renewing. Moving media monitoring to Echolane"
    r"not\s+renewing|(?:contract|subscription)\s+(?:ends|expires|runs\s+out|lapses)|"
    r"moving(?=\s+(?:\S+\s+){0,4}?to\b)|(?:starts|started)(?=\s+today\s+as\b)|"
    r"t(?:akes|ook)(?=\s+(?:\S+\s+){0,3}?back\s+from\b)|"
    r"cut\s+over\s+to|"
    # the same said otherwise: "has taken over", "has gone up", "swapped X for Y", "was
    # rescheduled", "henceforth", "starting 1 July", "as of Monday", "our new CRM is",
    # "(was $1,000)"
    r"taken\s+over|gone\s+(?:up|down)|swapped|swaps|rescheduled|postponed|brought\s+forward|"
    r"pushed\s+(?:back|to)|extended\s+to|shortened\s+to|upgraded|downgraded|migrated|renamed|"
    r"slip(?:ped|s)\s+(?:to|back|by|until)|delayed\s+(?:to|until|by)|"
    r"will\s+replace|henceforth|from\s+next\s+(?:week|wk|month|quarter|year)|"
    r"from\s+(?:tomorrow|tmrw)|"
    # "promoted to", "bumped to", "cut to 3", "updated to", "4.7x, up from 4.2x"
    r"promoted|bumped\s+(?:up\s+)?to|cut\s+to|updated\s+to|(?:up|down)\s+from|went\s+from|"
    rf"(?:starting|beginning)\s+(?:on\s+|in\s+|from\s+)?(?:today|tomorrow|next|this|\d|"
    rf"(?:{_CUE_DAYS})\b)|as\s+of\s+(?:\d|(?:{_CUE_DAYS})\b)|"
    r"(?:is|are)\s+(?:our|the)\s+new|"
    # "Our new CRM is ..." opening a sentence anywhere in the text, not after a verb
    r"(?<![\w,;:]\s)(?:our|the)\s+new\s+[\w-]+(?:\s+[\w-]+)?\s+(?:is|are)|"
    r"(?<=\()(?:was|previously|formerly|they\s+were|it\s+was)|"
    r"\b(?:is|are)\s+out\s*[,;]\s*(?:\S+\s+){1,4}?(?:is|are)\s+in\b|"
    # a tool's end on a day: "TimeSlate is out as of Friday 7/31 at 6 p.m."; and what replaced
    # it, said before a dash: "We use LexLedger now — from Saturday 8/1 ..."
    r"\b(?:is|are)\s+out\s+(?:as\s+of|from|after|since|for\s+(?:anything|all)\s+new)\b|"
    # "Dumpsters: we're done with Pisgah Roll-Off."
    r"\b(?:we're|we\s+are|we\u2019re)\s+(?:all\s+)?done\s+with\b|"
    r"(?<!right\s)(?<!for\s)now(?=\s+[\u2014\u2013]\s)|"
    r"[,;]\s*was(?=\s+[$\u20ac\u00a3\d])|"
    r"new\s+(?:rate|price|cost|fee|owner|lead|contact|time|day|date|schedule|limit|target)s?:|"
    # "From 1 September, Briony has the Quillbrook account; Obadiah is off it."
    rf"(?<![\w,;:]\s)from\s+(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?(?:\s+(?:{MONTH_NAMES}))?(?=\s*,)|"
    rf"(?<![\w,;:]\s)from\s+(?:{MONTH_NAMES})\s+\d{{1,2}}(?:st|nd|rd|th)?(?=\s*,)|"
    # "Dana signed off: from 1 July it's $425 for the 3-hour block"
    rf"from\s+(?:the\s+)?(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{MONTH_NAMES})|"
    rf"(?:{MONTH_NAMES})\s+\d{{1,2}}(?:st|nd|rd|th)?)"
    r"(?=,?\s+(?:it(?:'|\u2019)s|it\s+is|it\s+will|we(?:'ll|\s+will)?|they)\b)|"
    r"new\s+(?:[\w-]+\s+)?pricing\b|"
    r"(?:is|are|'s|\u2019s|goes|went|comes|came)\s+off\s+(?:it|them|the\s+account)(?=\W))\b",
    re.I,
)
CHANGE = "change"
#: A heading that dates a review of standing text, not an event ("Clients (updated 3 May
#: 2026)").
_REVIEW_WORDS = re.compile(r"\b(updated|reviewed|revised|as\s+of|verified)\b", re.I)


#: A date written year first with dots ("2026.11.17"), as some journals lead their entries.
_DOTTED = re.compile(r"(?<![\d.])((?:19|20)\d{2})\.(0?[1-9]|1[0-2])\.([0-3]?\d)(?![\d.]|\.\d)")


def text_date(text: str) -> dt.date | None:
    """A full date (with its year) written in `text`: ISO, "2026.11.17", "12 May 2026", "May
    12, 2026"."""
    found = parse_date(text)
    if found is not None:
        return found
    dotted = _DOTTED.search(text)
    if dotted:
        with contextlib.suppress(ValueError):
            return dt.date(*(int(g) for g in dotted.groups()))
    for pattern in _SPELLED:
        m = pattern.search(text)
        if m:
            month = month_number(m.group("month"))
            try:
                return dt.date(int(m.group("year")), month, int(m.group("day")))
            except ValueError:
                return None
    return None


#: A heading that names a week by its first day: "Morning standup notes — w/c 16 Nov".
_WEEK_OF = re.compile(
    rf"\b(?:w/c|w\.c\.|week\s+(?:commencing|of|beginning|starting))\s+(?:\w+day,?\s+)?"
    rf"[0-3]?\d(?:st|nd|rd|th)?\s+(?:{_MONTH})\b|\b(?:w/c|week\s+(?:commencing|of|beginning|"
    rf"starting))\s+(?:\w+day,?\s+)?(?:{_MONTH})\.?\s+[0-3]?\d\b",
    re.I,
)
#: A heading that names a week by its number and its days: "QA weekly report — Week 46
#: (9-15 Nov)", "Wk 12: 16-22 March".
_WEEK_HEADING = re.compile(
    rf"\bw(?:ee)?k\.?\s*\d{{1,2}}\b\W+(?P<day>[0-3]?\d)(?:st|nd|rd|th)?\s*(?:(?P<month>{_MONTH})"
    rf"\.?\s*)?[\u2013\u2014-]\s*[0-3]?\d(?:st|nd|rd|th)?\s*(?P<month2>{_MONTH})?",
    re.I,
)


def week_heading(heading: str, today: dt.date | None = None) -> dt.date | None:
    """The first day of the week a heading names by number and days ("Week 46 (9-15 Nov)")
    or by its first day ("w/c 16 Nov", "Week of Monday 9 November"):
    the year is the latest that day is not after `today` (`past_day`)."""
    m = _WEEK_HEADING.search(heading)
    if m is not None and (month := m.group("month") or m.group("month2")):
        return past_day(f"{m.group('day')} {month}", today)
    of = _WEEK_OF.search(heading)  # "Morning standup notes — w/c 16 Nov"
    return past_day(of.group(0), today) if of else None


def document_time(
    meta: Mapping[str, Any],
    name: str,
    first_heading: str | None,
    *,
    known: dt.date | None = None,
    standing: bool = False,
    stated: dt.date | None = None,
    body: str = "",
    day_first: bool | None = None,
) -> tuple[dt.date | None, TimeKind]:
    """A file's effective date and kind of time from its front matter `meta`, file `name`,
    first heading, the date its header block states (`body`'s "Date:", "Issued:" line: see
    `header_date`) and the month its name gives, else the review date its own text states
    (`stated`, see `stated_review`), else `known` (what the source knows: a commit date).
    `standing`: the file's kind is standing text whatever its dates say (a runbook, a
    decision record); so is a page whose header block gives its status ("Status: Accepted").
    `day_first`: how the file's workspace writes days in figures (`usual_order`), for a day
    the file itself leaves open ("Effective: 6/8/2026")."""
    reviewed = [d for key in REVIEW_KEYS if (d := parse_date(meta.get(key))) is not None]
    if reviewed:
        return max(reviewed), "standing"
    said = (
        parse_date(meta.get("date"))
        or parse_date(name)
        or iso_week(name)
        or (text_date(first_heading) if first_heading else None)
        or (week_heading(first_heading) if first_heading else None)
    )
    header, status = header_date(body, day_first) if said is None else (None, False)
    if header is not None and stated is not None and stated > header and _CREATED.search(body):
        # a wiki page's "Created: February 2, 2026" and "Last edited: September 9, 2026": a
        # page kept up to date, as of its last edit
        return stated, "standing"
    said = said or header or month_named(name)
    if said is not None:
        return said, "standing" if standing or (status and said == header) else "event"
    return stated or known, "standing"


#: A page's header field that gives the day it was made: "Created: February 2, 2026 8:55 AM".
_CREATED = re.compile(r"^[\s*_|]*created[*_]*\s*[:|]", re.I | re.M)


#: A file named by its month ("2026-10.md", "foundry-hill-2026-10.md", "2026-05-rate-
#: review.md"): what it holds was said in that month (a full date in the name is read first).
_YEAR_MONTH = re.compile(r"(?<![\dA-Za-z])((?:19|20)\d{2})-(0[1-9]|1[0-2])(?!\d|-\d)")


def month_named(name: str) -> dt.date | None:
    """The first day of the month a file name gives, if one."""
    m = _YEAR_MONTH.search(name)
    return dt.date(int(m.group(1)), int(m.group(2)), 1) if m else None


def heading_span(name: str, date: dt.date | None) -> int:
    """How many days after a log's own date a heading's day may date a section of it: a
    month's file ("dashboard/2026-10.md", dated its first day) heads its weeks up to the
    month's end; any other log, LOG_SPAN_DAYS (a week's log is named by its first day)."""
    month = month_named(name)
    if month is None or date != month:
        return LOG_SPAN_DAYS
    following = dt.date(month.year + month.month // 12, month.month % 12 + 1, 1)
    return (following - month).days - 1


#: A line of a page's header block that says when it was written: "Date: 2026-04-29",
#: "Issued: 28 Jul 2026 (Tomasz)", "**Date:** 3 March 2026", a mail's "Date: Wed, 20 May
#: 2026 09:12 -0500", an incident's "Reported: 17th November 2026", a policy's "Approved: 20
#: April 2026", a decision's "Decided: 2026-02-05". "Effective:" comes after the day it was
#: said, so it counts only alone.
_HEADER_DATE = re.compile(
    r"^[\s*_]*(?P<key>date|dated|issued|published|sent|approved|adopted|reported|logged|raised|"
    r"filed|submitted|recorded|opened|created|written|decided|accepted|agreed|received|"
    r"effective(?:\s+date)?"
    # "Brew date: Thu 11/19/26", "Meeting date:": the day of what the page records (not a
    # day ahead: "Due date:", "Go-live date:")
    r"|(?!(?:due|start|end|expiry|expiration|target|renewal|launch|go-live|deadline|delivery|"
    r"close|closing|completion|next|review|birth)\b)[a-z]+[ \t]+date)[*_]*\s*:[*_]*\s*"
    r"(?P<rest>.{4,60})",
    re.I,
)
#: A header block's line that gives the page's status: a record's, which stands until changed.
_HEADER_STATUS = re.compile(r"^[\s*_]*(?:status|state)[*_]*\s*:", re.I)
#: How many non-blank lines open a page's header block at most.
HEADER_LINES = 12


def header_date(text: str, day_first: bool | None = None) -> tuple[dt.date | None, bool]:
    """The date a page's header block states (its first HEADER_LINES non-blank lines, up to
    its first section heading below the title; a quoted line is another message's; each
    line's fields, `header_fields`), and whether the block states a status too, of a record
    that stands (not one of what happened: an incident "Reported:" with its "Status: open" is
    an event of its day). An "Effective:" date counts only without a date it was said. Days in
    figures are read in the page's own order, else `day_first`'s."""
    order = own_order(text, day_first)
    happened = False
    said: dt.date | None = None
    effective: dt.date | None = None
    status = False
    lines = [line for line in text.split("\n") if line.strip()]
    for i, line in enumerate(lines[:HEADER_LINES]):
        if i and line.lstrip().startswith("#"):
            break
        for field in header_fields(line):
            status = status or _HEADER_STATUS.match(field) is not None
            m = _HEADER_DATE.match(field)
            if m is None:
                continue
            found = written_date(m.group("rest"), order)
            if m.group("key").lower().startswith("effective"):
                effective = effective or found
            elif said is None and found is not None:
                said = found
                happened = _HAPPENED.match(m.group("key")) is not None
    return said or effective, status and not happened


#: The keys of a header date that say when something happened was written down, not when a
#: record that stands was issued: "Reported: 17th November 2026", "Logged:", "Opened:".
_HAPPENED = re.compile(r"reported|logged|opened", re.I)


#: What sets the fields of one header line apart: "Policy bulletin · Issued: 3 Mar 2026 ·
#: Status: Current", "Owner: Rosa | Effective: 6/8/2026".
_FIELD_SEPARATOR = re.compile(r"\s+[\u00b7\u2022|]\s+")
#: A table's rule row ("|---|:--:|") or a cell of one.
_RULE_CELL = re.compile(r"^[\s:-]*$")


def header_fields(line: str) -> list[str]:
    """The fields of a header block's line, each as "Label: value": a properties table's row
    ("| Effective | 6/8/2026 |" -> "Effective: 6/8/2026"; none of a rule row or a row without
    a label), or the parts of a line of fields set apart by a middle dot, a bullet or a bar
    ("Policy bulletin · Issued: 3 Mar 2026 · Status: Superseded by PB-11")."""
    text = line.strip()
    if not text.startswith("|"):
        return [f for f in _FIELD_SEPARATOR.split(text) if f]
    cells = [c.strip() for c in text.strip("|").split("|")]
    label = cells[0].strip("*_ ").rstrip(":").strip() if cells else ""
    value = " ".join(c for c in cells[1:] if c)
    if not label or not value or _RULE_CELL.match(cells[0]):
        return []
    return [f"{label}: {value}"]


#: A week's report named by its ISO week ("2026-W14.md", "status 2026W14"): said in that week.
_ISO_WEEK = re.compile(r"(?<![\dA-Za-z])((?:19|20)\d{2})-?W([0-5]\d)(?!\d)")
#: The day of its week a report named by its week is dated: its Friday, when the week's
#: report is written.
REPORT_WEEKDAY = 5


#: ... or by its week's number alone ("digests/wk46.md", "week-46.md").
_WEEK_NAME = re.compile(r"(?:^|/)(?:wk|week)[-_ ]?([0-5]?\d)(?!\d)[^/]*$", re.I)


def iso_week(name: str, today: dt.date | None = None) -> dt.date | None:
    """The Friday of the ISO week a name gives ("2026-W14.md": 3 April 2026), if one; of a
    week's number alone ("wk46.md"), in the latest year up to `today` (default: the clock's)
    in which that Friday had come."""
    m = _ISO_WEEK.search(name)
    if m is not None:
        with contextlib.suppress(ValueError):
            return dt.date.fromisocalendar(int(m.group(1)), int(m.group(2)), REPORT_WEEKDAY)
        return None
    alone = _WEEK_NAME.search(name)
    if alone is None:
        return None
    now = today or dt.datetime.now(dt.UTC).date()
    for year in (now.year, now.year - 1):
        with contextlib.suppress(ValueError):
            friday = dt.date.fromisocalendar(year, int(alone.group(1)), REPORT_WEEKDAY)
            if friday <= now:
                return friday
    return None


#: A page's own line saying when it was last checked, as wiki exports write it in a header
#: or footer: "_Last updated: 12 February 2026 by Rhoswen_", "Page owner: Bea · Reviewed
#: 2026-03-30", "Rates current as of Feb 2, 2026 (Fern)", or a row of its properties table
#: ("| Last edited | March 4, 2026 2:15 PM |").
_STATED_REVIEW = re.compile(
    r"\b(?:last\s+)?(?:updated|reviewed|revised|verified|edited|modified|checked|touched|"
    r"(?:current|correct|accurate|valid)\s+as\s+(?:of|at)|"
    # "Approved by the board: March 2026 · Next review: March 2027"
    r"(?:approved|adopted)(?:\s+by\s+the\s+[a-z]+)?|"
    # a notice's, a bulletin's or a summary's own day: "Posted Thursday 29 October 2026",
    # "Issued 3/16/26 · G. Ambrose", "Prepared by: Heather Quint, 08/12/2026", "As of 5 January
    # 2026 — Nadia P.", and an agreement's header field "· Signed 3/18/2026 ·" ("New client,
    # signed October 2026" is what happened, not the page's date)
    r"(?:issued|posted|prepared|published)(?:\s+by\s*:?\s*[A-Z][\w.' -]{0,30}?,)?|"
    r"(?:^|(?<=\u00b7 )|(?<=\| ))signed|"
    r"(?<![\w ])as\s+of)\b[\s:*_|]*(?:on\s+)?"
    r"(?P<rest>.{0,40})",
    re.I,
)
#: A heading over a page's table of its versions ("## Version history", "Change log").
_HISTORY = re.compile(
    r"^\s*(?:#{1,6}\s*|\*\*)?(?:version|revision|change|document|edit|amendment)s?\s*"
    r"(?:history|log|notes?|record|table)\b|^\s*(?:#{1,6}\s*|\*\*)?(?:revisions|amendments)\s*$|"
    r"^\s*(?:#{1,6}\s*|\*\*)?changelog\b",
    re.I,
)
#: A date written in figures, day and month in either order: 02/04/2026, 2.4.2026.
_NUMERIC_DATE = re.compile(r"(?<![\d/.])(\d{1,2})[/.](\d{1,2})[/.]((?:19|20)\d{2})(?![\d/]|\.\d)")
#: How many non-blank lines at each end of a page may state its review date.
REVIEW_LINES = 3
#: A page export's property line: "Last edited by: Mags Dufresne", "Tags: QC, SOP".
_PROPERTY_LINE = re.compile(r"^\s*[A-Z][\w ]{1,24}:\s+\S.{0,80}$")
#: How far down a properties table that opens a page is read.
PROPERTY_ROWS = 16
REVIEW_LINE_CHARS = 160


#: A page's version line that dates it: "Revision 4 — 11 August 2026 (Marek Rudd)", "Rev. C —
#: 14/02/2026", "Version 3.1 (approved March 2026)", "Rev. January 2026 — Kevin Marsh", "Rev.
#: 7/10/26 — RD." (no version id: a month or a day follows).
_VERSION_LINE = re.compile(
    rf"^[\s*_#|]*(?:version|revision|rev\.?|v(?=\d))\s*"
    rf"(?:(?!(?:{_MONTH})\b|\d{{1,2}}[/.]\d{{1,2}}[/.]\d)[\w.]{{1,6}})?"
    r"[\s,;:*_()|\u2014\u2013-]*"
    r"(?:(?:approved|issued|dated|published|effective|adopted)\b\s*(?:on\s+)?)?(?P<rest>.{4,40})",
    re.I,
)
_MONTH_YEAR = re.compile(rf"^\W*(?P<month>{_MONTH})\.?,?\s+(?P<year>(?:19|20)\d{{2}})\b", re.I)


def version_date(line: str, day_first: bool | None = None) -> dt.date | None:
    """The date a version line gives (`_VERSION_LINE`), a month alone its first day."""
    m = _VERSION_LINE.match(line)
    return None if m is None else day_or_month(m.group("rest"), day_first)


def day_or_month(text: str, day_first: bool | None = None) -> dt.date | None:
    """The day `text` opens with (`written_date`), else the first day of the month and year
    it opens with ("January 2026", "03.2026"), or of the quarter ("Q2 2026")."""
    found = written_date(text, day_first)
    if found is None and (month := _MONTH_YEAR.match(text)) is not None:
        found = dt.date(int(month.group("year")), month_number(month.group("month")), 1)
    if found is None and (figures := _MONTH_YEAR_FIGURES.match(text)) is not None:
        found = dt.date(int(figures.group(2)), int(figures.group(1)), 1)  # "Revised: 03.2026"
    if found is None and (iso := _ISO_MONTH_START.match(text)) is not None:
        found = dt.date(int(iso.group(1)), int(iso.group(2)), 1)  # "Rev C — 2026-04"
    if found is None and (quarter := _QUARTER_YEAR.match(text)) is not None:
        # "Reviewed Q2 2026 by Ike": the quarter's first day
        found = dt.date(int(quarter.group(2)), 3 * int(quarter.group(1)) - 2, 1)
    return found


#: A quarter and its year: "Q2 2026", "Q3/2026", "Q4-26" is not one (no year of four figures).
_QUARTER_YEAR = re.compile(r"^\W*Q([1-4])[\s/-]*(20\d{2})\b", re.I)
#: A month and year in figures alone: "03.2026", "3/2026".
_MONTH_YEAR_FIGURES = re.compile(r"^\W*(0?[1-9]|1[0-2])[./](20\d{2})(?![\d./])")


#: What a page's header line sets a field apart with ("Leasing team · Reviewed: ...").
_AFTER_SEPARATOR = re.compile(r"(?:^|[\u00b7|\u2022\u2014\u2013(])[\s*_]*$")


def stated_review(text: str, day_first: bool | None = None) -> dt.date | None:
    """The latest review date a page states in its first or last REVIEW_LINES lines (short
    lines only: a log's sentence "the budget was reviewed on 3 May 2026" is not a footer;
    in a longer line, "last reviewed" or one after a separator only: "_Page owner: Sam. Page
    last reviewed 09/22/2026. Sent to every new client ..._", "Leasing team · Reviewed: Aug
    12, 2026 — Brooke. Applies to ..."); a month alone ("Last reviewed January 2026") its
    first day. Days in figures are read in the page's own order, else `day_first`'s."""
    lines = [line for line in text.split("\n") if line.strip()]
    order = own_order(text, day_first)
    head = REVIEW_LINES
    while head < min(len(lines), PROPERTY_ROWS) and (
        lines[head].lstrip().startswith("|") or _PROPERTY_LINE.match(lines[head])
    ):
        # a properties table at the top ("| Owner | Dara |", "| Last edited | ... |"), or an
        # export's property lines ("Created by: Mags", "Last edited: September 9, 2026")
        head += 1
    ends = lines if len(lines) <= head + REVIEW_LINES else lines[:head] + lines[-REVIEW_LINES:]
    found = [
        d
        for line in ends
        for m in _STATED_REVIEW.finditer(line)
        if len(line) <= REVIEW_LINE_CHARS
        or m.group(0)[:4].lower() == "last"
        or _AFTER_SEPARATOR.search(line[: m.start()])
        # "· Updated 9 Sep 2026_": an italic line's closing mark is no part of the year
        if (d := day_or_month(m.group("rest").replace("_", " ").replace("*", " "), order))
        is not None
    ]
    # a version line heads or closes it ("*Version 2026.1 — issued December 2025, effective 1
    # January 2026.*")
    found += [d for line in ends if (d := version_date(line, order)) is not None]
    history = version_history(lines)
    return max([*found, *([history] if history else [])], default=None)


def version_history(lines: Sequence[str]) -> dt.date | None:
    """The newest date in a page's table of versions ("## Version history", then rows
    "| v3 | 02/04/2026 | Rate card updated |") or its changelog's lines ("## Changelog", then
    "2026-07-06  Tallybird: per diem (TD-014)", "- 12 Mar 2026: ..."): the page is as of its
    last version."""
    dates: list[str] = []
    under = False
    for line in lines:
        if _HISTORY.match(line):
            under = True
        elif under and (line.lstrip().startswith("|") or _DATED_LINE.match(line)):
            dates.append(line)
        elif under and dates:
            break  # the table or list ended
    return max(numeric_dates(dates), default=None)


#: A changelog's line that opens with its day ("2026-07-06  ...", "- 12 Mar 2026: ...").
_DATED_LINE = re.compile(
    rf"^\s*(?:[-*+]\s+)?(?:\*\*)?(?:(?:19|20)\d{{2}}-\d{{2}}-\d{{2}}|\d{{1,2}}\s+(?:{_MONTH})\.?\s+"
    rf"(?:19|20)\d{{2}}|(?:{_MONTH})\.?\s+\d{{1,2}},?\s+(?:19|20)\d{{2}}|\d{{1,2}}[/.]\d{{1,2}}[/.]"
    rf"(?:19|20)\d{{2}})\b",
    re.I,
)


def numeric_dates(texts: Sequence[str], day_first: bool | None = None) -> list[dt.date]:
    """Every date in `texts`, spelled or in figures; figures are read day first when one of
    them can only be (13/01/2025), month first when one can only be (01/13/2025), else as
    `day_first` says, else day first, as most of the world writes them."""
    found = [m for t in texts for m in _NUMERIC_DATE.finditer(t)]
    days = any(int(m.group(1)) > 12 for m in found)
    months = any(int(m.group(2)) > 12 for m in found)
    month_first = (months and not days) or (days == months and day_first is False)
    out = [d for t in texts if (d := text_date(t)) is not None]
    for m in found:
        a, b, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
        day, month = (b, a) if month_first else (a, b)
        try:
            out.append(dt.date(year, month, day))
        except ValueError:
            continue
    return out


def written_date(text: str, day_first: bool | None = None) -> dt.date | None:
    """A date `text` writes, spelled ("28 Jul 2026", ISO) or in figures ("09/22/2026", and
    "Thu 11/19/26" with a year of two figures, read as `day_first` says when it says)."""
    return next(iter(numeric_dates([text], day_first)), None) or short_year_date(text, day_first)


_ANY_FIGURES = re.compile(r"(?<![\d/.])(\d{1,2})/(\d{1,2})/(?:\d{4}|\d{2})(?![\d/])")


def own_order(text: str, day_first: bool | None) -> bool | None:
    """How `text` writes days in figures (`figures_order`), else `day_first`."""
    order = figures_order(text)
    return day_first if order is None else order


def usual_order(texts: Iterable[str]) -> bool | None:
    """How most of the texts that show it write days in figures (a workspace's files): day
    first (True), month first (False), or None when as many show either or none does."""
    orders = [figures_order(t) for t in texts]
    day, month = orders.count(True), orders.count(False)
    return None if day == month else day > month


def figures_order(text: str) -> bool | None:
    """How a text writes its days in figures: day first (True) when one can only be read so
    (13/01/26), month first (False) when one can only be so (1/22/26), else None."""
    found = [(int(m[1]), int(m[2])) for m in _ANY_FIGURES.finditer(text)]
    day_first = any(a > 12 >= b for a, b in found)
    month_first = any(b > 12 >= a for a, b in found)
    return None if day_first == month_first else day_first


#: A day in figures with a year of two, maybe after its weekday: "Thu 11/19/26", "3/3/26".
_SHORT_YEAR = re.compile(
    r"(?:\b(?P<weekday>mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?"
    r"(?<![\d/.])(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<year>\d{2})(?![\d/])",
    re.I,
)


def short_year_date(text: str, day_first: bool | None = None) -> dt.date | None:
    """The first day `text` writes in figures with a two-figure year: read as the one figure
    over 12 allows, else as its weekday says ("Sat 7/4/26" is 4 July, "Tue 7/4/26" 7 April),
    else as `day_first` says (the page's other days: `figures_order`), else day first."""
    m = _SHORT_YEAR.search(text)
    if m is None:
        return None
    a, b, year = int(m["a"]), int(m["b"]), 2000 + int(m["year"])
    readings = []
    for day, month in ((b, a), (a, b)) if day_first is False else ((a, b), (b, a)):
        with contextlib.suppress(ValueError):
            readings.append(dt.date(year, month, day))
    if m["weekday"]:
        wanted = next(i for i, w in enumerate(WEEKDAYS) if w.startswith(m["weekday"].lower()))
        readings = [d for d in readings if d.weekday() == wanted] or readings
    return readings[0] if readings else None


def marks(text: str) -> list[str]:
    """What a text says about time: [CHANGE] when it states that something changed."""
    return [CHANGE] if CHANGE_CUE.search(text) else []


#: What numbers the figure after it, not a day: "Box week 25 — 29 Oct" is the 29th.
_NUMBERED = re.compile(r"\b(?:week|wk|no\.?|number|#)\s*$", re.I)
#: A day and month without a year, as a week's log heads its days: "Tuesday 7 April",
#: "Tue 7 Apr", "April 7", "7th April".
_DAY_MONTH = [
    # a range's first day: "(9-16 Nov)" of a week's handover is the 9th (an en dash too)
    re.compile(
        rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s*[-\u2013\u2014]\s*(?P<end>\d{{1,2}})(?:st|nd|rd|th)?\s+"
        rf"(?P<month>{_MONTH})\b",
        re.I,
    ),
    re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<month>{_MONTH})\b\.?(?!\s*\d)", re.I),
    re.compile(
        rf"\b(?P<month>{_MONTH})\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b(?![:.,]?\d)", re.I
    ),
]


def day_in_log(text: str, near: dt.date) -> dt.date | None:
    """The date a heading of a dated log names by day and month alone ("Tuesday 7 April" in
    the week of 6 April 2026's log), in the year that puts it nearest the log's own date."""
    for pattern in _DAY_MONTH:
        m = pattern.search(text)
        # (a range ends after it starts: "Box week 27 — 12 Nov" is the 12th, of week 27)
        if m is None or (
            "end" in m.groupdict()
            and (int(m["end"]) <= int(m["day"]) or _NUMBERED.search(text[: m.start()]))
        ):
            continue
        return nearest_day(month_number(m.group("month")), int(m.group("day")), near)
    return None


def nearest_day(month: int, day: int, near: dt.date) -> dt.date | None:
    """The day and month in the year (of `near`'s, the one before or after) that puts it
    nearest `near`; None when no such day exists."""
    found = []
    for year in (near.year - 1, near.year, near.year + 1):
        with contextlib.suppress(ValueError):
            found.append(dt.date(year, month, day))
    return min(found, key=lambda d: abs(d - near), default=None)


def past_day(text: str, today: dt.date | None = None) -> dt.date | None:
    """A day and month without a year ("w/e 4 Jan") in the latest year it is not after
    `today` (default: the clock's): a report's row of a week or day gone by."""
    today = today or dt.datetime.now(dt.UTC).date()
    return _come_by(day_in_log(text, today), today)


def past_figures(said: str, day_first: bool, today: dt.date | None = None) -> dt.date | None:
    """A day and month in figures ("5/12", read day or month first) in the latest year it
    is not after `today` (default: the clock's): a docket's line or an intake log's Opened
    cell on a page of no date."""
    today = today or dt.datetime.now(dt.UTC).date()
    return _come_by(figures_date(said, today, day_first), today)


def _come_by(found: dt.date | None, today: dt.date) -> dt.date | None:
    """`found` (a day read in the year nearest `today`), a year earlier if it had not come."""
    if found is None or found <= today:
        return found
    with contextlib.suppress(ValueError):  # 29 February: no such day a year before
        return found.replace(year=found.year - 1)
    return None


#: A week's figures by the day it ended: "Numbers w/e 15.11.", "Week ending 8 Nov".
_WEEK_ENDING = re.compile(
    r"\b(?:w/e|w\.e\.|week\s+ending|wk\s+ending|week\s+to)\s+(?P<day>(?:\w+day,?\s+)?[0-3]?\d.{0,12})",
    re.I,
)
_DOTTED_DAY = re.compile(r"^(?P<d>[0-3]?\d)[./](?P<m>[01]?\d)\.?(?![\d/.])")


def week_ending(text: str, near: dt.date | None) -> dt.date | None:
    """The day a week's label says it ended ("Numbers w/e 15.11.": 15 November, the year
    nearest `near`); a day in figures is read day first, as writers of "w/e" do."""
    m = _WEEK_ENDING.search(text)
    if m is None:
        return None
    said = m.group("day")
    if (dotted := _DOTTED_DAY.match(said)) is not None and near is not None:
        return figures_date(f"{dotted['d']}/{dotted['m']}", near, day_first=True)
    return day_named(said, near)


def day_named(text: str, near: dt.date | None) -> dt.date | None:
    """The day a heading or an entry's stamp names: a full date, else a day and month alone
    ("Tuesday 7 April", "14 Apr") in the year that puts it nearest `near`, if given; else a
    day and month with their weekday ("Week of Monday 16 November" on an undated page, "13/10
    (Tue)" after an earlier entry) in the latest year up to `near`'s next, or the clock's, that
    day fell on that weekday (`weekday_year`)."""
    found = text_date(text)
    tried = False  # whether `weekday_year` has read it already
    if found is None and near is not None and _WEEKDAY_FIGURES.search(text):
        found, tried = weekday_year(text, near), True  # "Fri 11/6": its weekday tells the order
    if found is None and near is not None:
        found = day_in_log(text, near)
    if found is None and not tried:  # a weekday settles the year: "Monday 16 November"
        found = weekday_year(text, near)
    return found


#: A day and month in figures, with a year of two or four figures or none ("06/01/26",
#: "16/11"), as a table's date column writes them.
_FIGURES = re.compile(r"^\W*(\d{1,2})[/.](\d{1,2})(?:[/.]((?:19|20)?\d{2}))?(?![\d/.]|\.\d)")


def figures_day_first(cells: Sequence[str]) -> bool:
    """Whether a column's dates in figures put the day first: yes when one of them can only
    be so (16/11), no when one can only be month first (10/27), else yes, as most write."""
    found = [m for c in cells if (m := _FIGURES.match(c))]
    return not (
        any(int(m.group(2)) > 12 for m in found) and not any(int(m.group(1)) > 12 for m in found)
    )


def figures_date(cell: str, near: dt.date | None, day_first: bool = True) -> dt.date | None:
    """The date a cell writes in figures ("06/01/26": 6 January 2026 day first; "16/11" in
    the year that puts it nearest `near`, none without `near`)."""
    m = _FIGURES.match(cell)
    if m is None:
        return None
    a, b = int(m.group(1)), int(m.group(2))
    day, month = (a, b) if day_first else (b, a)
    if not m.group(3):
        return nearest_day(month, day, near) if near is not None else None
    with contextlib.suppress(ValueError):
        return dt.date(int(m.group(3)) + (2000 if len(m.group(3)) == 2 else 0), month, day)
    return None


#: A weekday before a day and month: "Monday 16 November", "Tues 3rd Nov", "Mon, 16 Nov".
_WEEKDAY_DAY = re.compile(
    rf"\b(?P<weekday>mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+(?:the\s+)?(?P<day>\d{{1,2}})"
    rf"(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>{_MONTH})\b(?!\.?\s*\d)|"
    rf"\b(?P<weekday2>mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+(?P<month2>{_MONTH})\.?\s+"
    rf"(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?\b(?![:.,]?\d)",
    re.I,
)
#: How many years back a weekday's day and month are looked for.
WEEKDAY_YEARS = 12


#: A day and month in figures beside their weekday: "13/10 (Tue)", "Tue 13/10".
_WEEKDAY_FIGURES = re.compile(
    r"(?<![\d/.])(?P<a>\d{1,2})[/.](?P<b>\d{1,2})(?![\d/]|\.\d)\s*\(?\s*"
    r"(?P<weekday>mon|tue|wed|thu|fri|sat|sun)[a-z]*\b|"
    r"\b(?P<weekday2>mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+(?P<a2>\d{1,2})[/.]"
    r"(?P<b2>\d{1,2})(?![\d/]|\.\d)",
    re.I,
)


def weekday_year(text: str, today: dt.date | None = None) -> dt.date | None:
    """The date of a day and month named with their weekday and no year ("Monday 16
    November", "13/10 (Tue)"): in the latest year up to `today`'s next (default: the
    clock's) in which that day is that weekday; in figures, the order and year that fit the
    weekday nearest `today`. A weekday fixes the year but for a repeat every six years or
    more, so an undated page's "Week of Monday 9 November" is that week of 2026, not of 2025."""
    last = (today or dt.datetime.now(dt.UTC).date()).year + 1
    m = _WEEKDAY_DAY.search(text)
    if m is not None:
        weekday = (m.group("weekday") or m.group("weekday2")).lower()
        month = month_number(m.group("month") or m.group("month2"))
        return _on_weekday(int(m.group("day") or m.group("day2")), month, weekday, last)
    f = _WEEKDAY_FIGURES.search(text)
    if f is None:
        return None
    a, b = int(f.group("a") or f.group("a2")), int(f.group("b") or f.group("b2"))
    weekday = (f.group("weekday") or f.group("weekday2")).lower()
    # the order and year that fit the weekday nearest `today`: "Mon 11/2" is 2 November 2026,
    # not 11 February 2019; "Fri 11/6" of that week 6 November, not 11 June 2027
    near = today or dt.datetime.now(dt.UTC).date()
    found = [*_weekday_dates(a, b, weekday, last), *_weekday_dates(b, a, weekday, last)]
    return min(found, key=lambda d: abs(d - near), default=None)


def _on_weekday(day: int, month: int, weekday: str, last: int) -> dt.date | None:
    return next(iter(_weekday_dates(day, month, weekday, last)), None)


def _weekday_dates(day: int, month: int, weekday: str, last: int) -> list[dt.date]:
    """The dates of that day and month that fell on that weekday, latest first, from `last`
    back WEEKDAY_YEARS years."""
    found: list[dt.date] = []
    for year in range(last, last - WEEKDAY_YEARS, -1):
        with contextlib.suppress(ValueError):
            if WEEKDAYS[(d := dt.date(year, month, day)).weekday()].startswith(weekday):
                found.append(d)
    return found


_MONTH_HEADING = re.compile(
    rf"^\W*(?P<month>{MONTH_NAMES})\.?\s+(?P<year>(?:19|20)\d{{2}})\W*$", re.I
)


def month_heading(heading: str) -> dt.date | None:
    """The first day of the month a heading names and nothing else ("October 2026",
    "2026-10")."""
    m = _MONTH_HEADING.match(heading)
    if m is not None:
        return dt.date(int(m.group("year")), month_number(m.group("month")), 1)
    iso = _ISO_MONTH.match(heading)
    return dt.date(int(iso.group(1)), int(iso.group(2)), 1) if iso else None


#: A month's row still open: "**Nov 2026 MTD (thru 11/15)**", "Nov 2026 (to date)", "Nov 2026
#: so far".
_MONTH_SO_FAR = re.compile(
    rf"^\W*(?P<month>{MONTH_NAMES})\.?\s+(?P<year>(?:19|20)\d{{2}})\s*"
    r"(?:mtd\b|month[\s-]to[\s-]date\b|to\s+date\b|so\s+far\b|\((?:to|thru|through|as\s+of)\b[^()]*\))"
    r"(?:\s*\([^()]*\))?\W*$",
    re.I,
)


def month_row(cell: str) -> dt.date | None:
    """The first day of the month a table row's first cell names, whole or so far ("Oct
    2026", "Nov 2026 MTD (thru 11/15)")."""
    m = _MONTH_SO_FAR.match(cell)
    if m is not None:
        return dt.date(int(m.group("year")), month_number(m.group("month")), 1)
    return month_heading(cell)


#: A year and month in figures, ISO's way: "2026-10" (not a day's "2026-10-05").
#: ... opening a text ("2026-04 (W. Okafor)"), and as the whole of a heading.
_ISO_MONTH_START = re.compile(r"^\W*((?:19|20)\d{2})-(0[1-9]|1[0-2])(?![\d-])")
_ISO_MONTH = re.compile(_ISO_MONTH_START.pattern + r"\W*$")
#: A month alone in a table's month column: "Jan", "Nov (to 11/19)".
_MONTH_ALONE = re.compile(rf"^\W*(?P<month>{MONTH_NAMES})\.?(?:\s*\([^()]*\))?\W*$", re.I)
#: An ISO week alone in a table's week column: "W38 (09/14-09/18)", "Wk 46".
_WEEK_CELL = re.compile(r"^\W*w(?:k|eek)?\.?\s*([0-5]?\d)\b", re.I)


def month_alone(cell: str, near: dt.date) -> dt.date | None:
    """The first day of the month a table's cell names alone ("Jan"), in `near`'s year."""
    m = _MONTH_ALONE.match(cell)
    return dt.date(near.year, month_number(m.group("month")), 1) if m else None


def week_cell(cell: str, near: dt.date) -> dt.date | None:
    """The Friday (`REPORT_WEEKDAY`) of the ISO week a table's cell names ("W38 (09/14-09/18)")
    in `near`'s year."""
    m = _WEEK_CELL.match(cell)
    if m is None:
        return None
    try:
        return dt.date.fromisocalendar(near.year, int(m.group(1)), REPORT_WEEKDAY)
    except ValueError:
        return None


#: The timezone a timestamp's day is read in when none is given (the registry's default).
DEFAULT_TIMEZONE = "America/New_York"
#: A timestamp with its offset from UTC: "2026-11-20T01:05Z", "2026-11-19 20:05-05:00".
_STAMP_WITH_ZONE = re.compile(
    r"^\W*(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?\s*(Z|UTC|[+-]\d{2}:?\d{2})\b"
)


def local_day(cell: str, timezone: str) -> dt.date | None:
    """The day in `timezone` of a cell's timestamp written with its offset from UTC."""
    m = _STAMP_WITH_ZONE.match(cell)
    if m is None:
        return None
    zone = m[4].replace("UTC", "Z").replace("Z", "+00:00")
    zone = zone if ":" in zone else f"{zone[:3]}:{zone[3:]}"
    try:
        at = dt.datetime.fromisoformat(f"{m[1]}T{m[2]}:{m[3]}{zone}")
        return at.astimezone(ZoneInfo(timezone)).date()
    except (ValueError, ZoneInfoNotFoundError):
        return None


_MONTH_DAY = re.compile(r"^\W*(\d{1,2})-(\d{1,2})\W*$")


def month_day(cell: str, month: dt.date | None) -> dt.date | None:
    """The day a cell writes as "10-14" (month, day) or "14-10" (day, month) under a heading
    of that month, whose figure tells the order."""
    m = _MONTH_DAY.match(cell)
    if m is None or month is None:
        return None
    a, b = int(m[1]), int(m[2])
    day = b if a == month.month else a if b == month.month else None
    try:
        return month.replace(day=day) if day else None
    except ValueError:
        return None


#: How many days after its own date a log's heading may date a section of it: a week's log
#: named by its Monday heads its days up to Sunday.
LOG_SPAN_DAYS = 6


#: A year in figures: "2026" of "Veg box notes - 2026 season", of "## 2026".
YEAR = re.compile(r"\b(?:19|20)\d{2}\b")


def section_time(
    headers: list[str] | tuple[str, ...],
    date: dt.date | None,
    kind: TimeKind,
    span: int = LOG_SPAN_DAYS,
) -> tuple[dt.date | None, TimeKind]:
    """A section's date and kind: its nearest dated heading's, else its document's. In a
    dated log (an event), a heading with a day and month but no year ("Tuesday 7 April")
    dates its section too, unless that day comes more than `span` days after the log's own
    (`heading_span`: a week's log is named by its first day): a week's report says what
    happened under "Lanternfall 2026 (3-13 Dec)", the festival's dates, not its own."""
    near = date if kind == "event" else None
    if date is None:  # an undated page whose title gives its year: "Veg box notes - 2026
        # season" above "## Box week 27 — 12 Nov"
        year = next((int(m[0]) for h in headers if (m := YEAR.search(h))), None)
        near = dt.date(year, 7, 1) if year else None
    for header in reversed(headers):
        found = day_named(header, near)
        if found is not None and not (
            kind == "event" and date is not None and (found - date).days > span
        ):
            return found, "standing" if _REVIEW_WORDS.search(header) else "event"
    if kind != "event" and headers and (month := month_heading(headers[-1])) is not None:
        return month, "event"  # "## October 2026" of a page of months: what October did
    return date, kind


#: A month's figures are often reported in the days after it ends ("March close: 39 site
#: visits", posted on 3 April; "Crumbwell's October close" in the 5 November notes): a text
#: said within REPORT_DAYS after a window of whole months, naming one of its months, is about
#: that window.
REPORT_DAYS = 10
_MONTH_WORD = re.compile(rf"\b(?P<month>{MONTH_NAMES})\b\.?", re.I)


def months_of(start: dt.date | None, end: dt.date | None) -> frozenset[int]:
    """The months a window of whole months covers (1..12), none for any other window."""
    if start is None or end is None or start.day != 1 or end < start:
        return frozenset()
    if (end + dt.timedelta(days=1)).day != 1 or (end - start).days > 366:
        return frozenset()
    months, day = set(), start
    while day <= end:
        months.add(day.month)
        day = (day.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return frozenset(months)


def reports_on(text: str, said: dt.date | None, start: dt.date | None, end: dt.date | None) -> bool:
    """Whether `text`, said on `said` just after the window [start, end], reports on it: said
    within REPORT_DAYS after a window of whole months and naming one of its months ("March
    close: ..."), or naming a day of the window by a word relative to `said` ("yesterday",
    "last night", "Thurs:" in Friday's email)."""
    if said is None or end is None or not end < said <= end + dt.timedelta(days=REPORT_DAYS):
        return False
    return names_month_of(text, start, end) or any(
        (start is None or start <= day) and day <= end for day in days_named(text, said)
    )


_DAY_BEFORE = re.compile(r"\b(?:yesterday|last\s+night)\b", re.I)
#: A log's "Last week (11/9-11/15): 136,920 words" in Monday's minutes, or its heading
#: "Numbers, last week": a label of what follows, the week before (not "much the same as last
#: week", a comparison).
_WEEK_BEFORE = re.compile(
    r"^\W*(?:[\w ]{0,20},\s*)?(?:last|previous)\s+week(?:['\u2019]s)?\b|"
    r"\b(?:last|previous)\s+week(?:['\u2019]s)?(?:\s+numbers|\s+figures)?\s*[(:]",
    re.I,
)


def week_before(text: str, said: dt.date | None) -> tuple[dt.date, dt.date] | None:
    """The week (Monday to Sunday) before the one `said` falls in, when `text` says "last
    week" of it; else None."""
    if said is None or not _WEEK_BEFORE.search(text):
        return None
    monday = said - dt.timedelta(days=said.weekday() + 7)
    return monday, monday + dt.timedelta(days=6)


#: A week named by its ISO number in a log's words: "W45 totals", "wk46", "week 46".
#: (Not a week of something, "week 3 of the trial", nor a count of other weeks a word
#: before it names: "box week 28".)
_WEEK_NUMBER = re.compile(
    r"(?<![\w-])(?:(?-i:W)(?P<w>[0-5]\d)|wk[ \t]?(?P<wk>[0-5]?\d)"
    r"|(?<![A-Za-z][ \t])week[ \t](?P<week>[0-5]?\d))(?![\d:.,/]|\w|[ \t]+of\b)",
    re.I,
)


#: A batch or lot id that writes its day as month and day: "R-1117-03" (17 November, batch 3).
_CODED_DAY = re.compile(r"^[\W_]*[A-Z]{1,4}-(?P<month>[01]\d)(?P<day>[0-3]\d)-\d{1,3}[\W_]*$")


def coded_day(cell: str, near: dt.date) -> dt.date | None:
    """The day a batch id in a table's cell writes ("R-1117-03", a roast log's batch 3 of 17
    November), in the year that puts it nearest `near`, the page's own date."""
    m = _CODED_DAY.match(cell)
    return nearest_day(int(m["month"]), int(m["day"]), near) if m else None


def week_numbered(text: str, said: dt.date | None) -> tuple[dt.date, dt.date] | None:
    """The ISO week (Monday to Sunday) a log entry said on `said` names by its number alone
    ("W45 totals: PWM 452 appts" on Monday 9 November: 2-8 November), if exactly one, in
    the latest year it had begun by `said`; else None."""
    if said is None:
        return None
    weeks = {int(m["w"] or m["wk"] or m["week"]) for m in _WEEK_NUMBER.finditer(text)}
    if len(weeks) != 1:
        return None
    week = weeks.pop()
    for year in (said.year, said.year - 1):
        with contextlib.suppress(ValueError):
            monday = dt.date.fromisocalendar(year, week, 1)
            if monday <= said:
                return monday, monday + dt.timedelta(days=6)
    return None


#: A weekday that opens a line labels what happened that day ("Thurs: Hobnail Creek report
#: went out" in Friday's email); one inside a sentence ("paid on Friday") dates a detail.
_WEEKDAY_LABEL = re.compile(
    r"^\W*(?P<day>mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)"
    r"(?:day|nesday|rsday|urday)?\b\.?\s*[:\u2014-]",
    re.I | re.M,
)


def days_named(text: str, said: dt.date) -> list[dt.date]:
    """The days before `said` that `text` names relative to it: "yesterday" and "last night"
    the day before; a weekday labelling a line ("Thurs: ...") its latest day before `said`."""
    days = [said - dt.timedelta(days=1)] if _DAY_BEFORE.search(text) else []
    for m in _WEEKDAY_LABEL.finditer(text):
        short = m.group("day")[:3].lower()
        weekday = next(i for i, w in enumerate(WEEKDAYS) if w.startswith(short))
        back = (said.weekday() - weekday) % 7
        if back:
            days.append(said - dt.timedelta(days=back))
    return days


#: A weekday said of when something happened in a week's report ("the venue confirmed on
#: Tuesday", "Steering Thursday: ..."): not a habit ("every Tuesday", "Tuesdays"), not
#: another week's ("next Thursday", "last Friday"), not a dated day ("Saturday 17 April").
_WEEKDAY_SAID = re.compile(
    r"(?<!\bnext\s)(?<!\blast\s)(?<!\bevery\s)(?<!\bfollowing\s)(?<!\bcoming\s)"
    r"(?<!\bprevious\s)\b(?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
    r"(?!'s|\u2019s|\s*,?\s*(?:\d|the\s+\d)|\s+(?:week|after|before)\b)",
    re.I,
)


#: A label that is a weekday alone, over that day's entries ("Thu:", "**Tuesday**", "Wed"), or
#: a week report's table cell of its row's day ("| Thu | 446 |"); not "Month" nor "Sunny".
WEEKDAY_ALONE = re.compile(
    r"^[\W_]*(?P<day>mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)"
    r"(?:day|nesday|rsday|urday)?\.?[\W_]*$",
    re.I,
)


def weekday_label(text: str, week: dt.date) -> dt.date | None:
    """The day of `week`'s ISO week a label of a weekday alone names ("Thu:")."""
    return _day_in_week(WEEKDAY_ALONE.match(text), week)


#: An entry led by its weekday: "- Wed - needle bar jammed on machine 4", "Thu: 53 open".
_WEEKDAY_LEAD = re.compile(
    r"^[-*+\s]*(?P<day>mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?\s*[\u2013\u2014:-]\s*\S", re.I
)


def weekday_lead(text: str, week: dt.date) -> dt.date | None:
    """The day of `week`'s ISO week an entry that opens with its weekday names."""
    return _day_in_week(_WEEKDAY_LEAD.match(text), week)


def _day_in_week(m: re.Match[str] | None, week: dt.date) -> dt.date | None:
    """The day of `week`'s ISO week whose weekday `m`'s group "day" names."""
    if m is None:
        return None
    day = next(i for i, d in enumerate(WEEKDAYS) if d.startswith(m.group("day").lower()))
    return week + dt.timedelta(days=day - week.weekday())


def weekday_in_week(text: str, week: dt.date) -> dt.date | None:
    """The day of `week`'s ISO week (Monday to Sunday) that `text`, an entry of that week's
    report, says something happened on: the one weekday it names, if exactly one."""
    said = {m.group("day").lower() for m in _WEEKDAY_SAID.finditer(text)}
    if len(said) != 1:
        return None
    return week + dt.timedelta(days=WEEKDAYS.index(said.pop()) - week.weekday())


#: A day's number just before or after a month word: the month is a day's ("19 Oct", "Oct 19").
_A_DAY_BEFORE = re.compile(r"(?<![\d:.,])\b[0-3]?\d(?:st|nd|rd|th)?(?:\s+(?:of\s+)?|-)$", re.I)
_A_DAY_AFTER = re.compile(r"\s+[0-3]?\d(?:st|nd|rd|th)?\b(?![\d:.,]\d)", re.I)


def months_named(text: str) -> frozenset[int]:
    """The months `text` names as months (1..12), not as a day of one ("19 Oct")."""
    return frozenset(
        month_number(m.group("month"))
        for m in _MONTH_WORD.finditer(text)
        if (m.group("month").lower() != "may" or m.group("month")[0] == "M")  # "may" the verb
        and not _A_DAY_BEFORE.search(text, 0, m.start())
        and not _A_DAY_AFTER.match(text, m.end())
    )


#: A quarter a text names: "Q4", "4th quarter", "fourth quarter".
_QUARTER = re.compile(
    r"\bQ(?P<q>[1-4])\b|\b(?P<word>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\b", re.I
)
_THIS_QUARTER = re.compile(r"\b(?:this|the\s+current)\s+quarter\b|\bquarter\s+to\s+date\b", re.I)
_QUARTER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_QUARTER_WORDS |= {"1st": 1, "2nd": 2, "3rd": 3, "4th": 4}


def names_quarter_of(
    text: str, start: dt.date | None, end: dt.date | None, said: dt.date | None = None
) -> bool:
    """Whether `text` names the quarter the window [start, end] is ("Q4 target is 520 bbl",
    of "this quarter" on 20 November; "3 new contracts this quarter" said on a day of the
    window, `said`): a window from a quarter's first day to a day in it, not one whole month
    of it ("last month", October, is no question about Q4)."""
    if start is None or end is None or start.day != 1 or start.month % 3 != 1 or end < start:
        return False
    quarter = (start.month - 1) // 3 + 1
    if (
        (end.month - 1) // 3 + 1 != quarter
        or end.year != start.year
        or months_of(start, end) == {start.month}
    ):
        return False
    if said is not None and start <= said <= end and _THIS_QUARTER.search(text):
        return True
    named = {
        int(m["q"]) if m["q"] else _QUARTER_WORDS[m["word"].lower()]
        for m in _QUARTER.finditer(text)
    }
    return quarter in named


def names_month_of(text: str, start: dt.date | None, end: dt.date | None) -> bool:
    """Whether `text` names a month of the window of whole months [start, end] ("September
    close: 96 sets", of September), not as a day of it ("Week of: 19 Oct", one week's row)."""
    months = months_of(start, end)
    return bool(months & months_named(text))
