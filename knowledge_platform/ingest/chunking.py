"""Markdown chunking: one chunk per `#`/`##` section, carrying the trail of the last two
headers, and one per entry of a section that is a log (an `event`: a list item, a
time-stamped line, a paragraph); a table of many rows (a client directory, a sheet) gives a
chunk per few rows under its header row; a section or entry longer than the budget is cut
into token windows with ~20% overlap.

The budget is the embedding model's window less what the header trail takes, capped at the
brief's 800 tokens (OpenAI's 8k model), so a 256-token MiniLM never silently truncates."""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import functools
import itertools
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from knowledge_platform.convert.markdown import TABLE_RULE
from knowledge_platform.convert.result import locate
from knowledge_platform.dating import (
    CHAT_STAMP,
    DEFAULT_TIMEZONE,
    MESSAGE_STAMP,
    WEEKDAY_ALONE,
    YEAR,
    coded_day,
    day_named,
    figures_date,
    figures_day_first,
    figures_order,
    heading_span,
    iso_week,
    local_day,
    marks,
    month_alone,
    month_day,
    month_heading,
    month_row,
    past_day,
    past_figures,
    section_time,
    stated_review,
    week_cell,
    week_ending,
    week_heading,
    weekday_in_week,
    weekday_label,
    weekday_lead,
    written_date,
)
from knowledge_platform.doc_names import name_keys
from knowledge_platform.ingest.tokens import TokenCounter
from knowledge_platform.models import (
    MIME_TYPE,
    WRITER,
    Chunk,
    Document,
    TimeKind,
    chunk_id,
    content_hash,
)

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
#: where a log entry starts: a list item, or a line stamped with its time ("09:42 — ...") or
#: its day and time ("[2026-03-04 09:12] nadia: ...", a chat channel's export)
_ITEM = re.compile(
    r"^(?:[-*+]|\d{1,3}[.)]|\[?(?:\d{4}-\d{2}-\d{2}[ T])?\d{1,2}:\d{2}(?::\d{2})?\]?"
    rf"|{MESSAGE_STAMP})[ \t]+\S",
    re.I,
)
#: A message line of a chat export, or a reply under one ("  ↳ [2026-03-04 09:20] omar: ..."):
#: the day it was written opens it, in figures or spelled ("Nov 2, 2026 8:05 AM — Theo:",
#: "30/03 07:48 - Hector:", a day and month in the year nearest the export's own date).
#: ... in a list too: "- 4/2 — March billed $18,940" down an account's running notes.
_STAMPED = re.compile(
    rf"^\s*(?:[-*+][ \t]+)?(?:{CHAT_STAMP}|{MESSAGE_STAMP.replace('<said>', '<day>')})\s", re.I
)
#: How many of a section's lines must be stamped for it to be read as messages.
STAMPED_SHARE = 0.5
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
#: A table's rows are chunked a few at a time, under the header row, up to this many tokens
#: of rows: a directory's row ("| Corrowyn Skincare | ... | Mireille Grocott |") is then found
#: by what it says, and says which column each cell is in.
ROW_TOKENS = 40
MAX_TARGET = 800
MIN_BUDGET = 48
MAX_CHARS_PER_TOKEN = 16
#: Bump whenever a change here changes what chunks a document yields: every document is then
#: re-chunked instead of keeping the chunks it got last run. (A new Chunk field does that by
#: itself: the field names are part of the fingerprint.) The marks a chunk carries
#: (dating.marks) count: 3 re-marks statements of change as round 8 reads them; 4 splits a
#: log's sections into entries; 5 dates a log's "Tuesday 7 April" sections and marks "now X,
#: not Y"; 6 chunks a table of many rows a few rows at a time; 7 dates a chat export's
#: messages by the day each is stamped with; 8 dates a journal's entries by their dated
#: headings and stamps, and a table's rows by a day in their first cell; 9 dates what
#: follows a table of days on its last row's day, a chat export's messages by its day
#: separators, and no section by a heading's day after its log's own; 10 dates a mail
#: thread's messages by their "Date:" lines, and a month's file's sections by headings up to
#: the month's end; 11 marks a correction ("Correction to yesterday — $56/ton, not 61") as a
#: statement of change; 12 dates a table's rows by its date column ("Effective from", "w/c")
#: and by days in figures ("06/01/26", "16/11"), an undated page's headings by a day and month
#: with their weekday ("Week of Monday 9 November"), and a page by its version line; 13 links
#: a record to the year-coded one it supersedes ("Supersedes: OB-2026-02"); 14 marks a
#: correction across its "sorry!" and a figure's full stop ("Correction to yesterday's post
#: — sorry! It's 70 cents a mile ($0.70), not 72") and "It's Tuesday, not Monday", dates a
#: chat's messages by a spelled or figured stamp ("Nov 4, 2026 3:15 PM — Aisha:", "14/10
#: 08:55 - Glen:"), a record by its header's "Brew date: Thu 11/19/26", and an undated
#: page's "Week" column ("w/e 15 Nov") in weeks gone by; 15 reads a header line's fields
#: ("Policy bulletin · Issued: 3 Mar 2026 · Replaces PB-05", "| Effective | 6/8/2026 |") for
#: its date, status and the record it replaces, codes of hyphened letters ("SOP-CELLAR-09")
#: as a record's number, a month-only review ("Last reviewed January 2026", "Rev. January
#: 2026"), "Rates current as of Feb 2, 2026", and a day in figures the page leaves open
#: (6/8/2026) as its workspace writes them; 16 dates a journal's paragraphs led by their day
#: in bold ("**2026.11.17** — ...", "**Thu 19 Nov** — ..."), headings of a day in figures
#: with its weekday ("### 13/10 (Tue)"), a week's report by its title ("Week 46 (9-15
#: Nov)") and an undated page's month sections ("## October 2026") by their month; 17 dates
#: an archive's mails by the "Date:" line over their "From:", a binder's sections by their
#: own "Reviewed Q2 2026", "w/e 15.11.", "- (3 Nov) ...", "Mon 11/2" in the order its weekday
#: fits, a week report's "- Wed - ..." notes, "## 2026-10", "| Jan |" and "| W38 |" in a
#: Month or Week column and "Rev C - 2026-04"; 18 a record by its "Decided:" line; 19 a
#: week's digest named "wk46.md", "| w/c 09/11 |", "| 10-14 |" under "## October 2026", a
#: "Created (UTC)" column, "## Box week 27 - 12 Nov" on an undated page titled with its
#: year, and a page by its "Approved by the board: March 2026" line; 20 a fence of
#: comma-separated values as a table, a row a day, a docket's "5/12 — ..." lines and an
#: intake log's "| 11/16 |" Opened column on a page of no date, and a reply's "On Mon, Jul
#: 27, 2026 at 11:20 AM ... wrote:"; 21 a week report's table of its days ("| Thu | 446 |"),
#: a row a day, a single mail's chunks by its writer, a channel export's "#front-desk — Tue
#: Nov 17" day lines, and a dated page's table rows by a batch id's day ("| R-1117-03 |");
#: 22 a page by its "Posted Thursday 29 October 2026", "Issued 3/16/26", "Prepared by: ...,
#: 08/12/2026", "As of 5 January 2026", "· Signed 3/18/2026 ·" or "last touched 2/2026" line,
#: by its "## Revision note" table, and by a changelog's "- **4 Nov 2026** — ..." lines; a
#: "| Wk of 10/5 |" column read month first when one of its rows must be ("| Wk of 9/14 |");
#: 23 a statement of change "TimeSlate is out as of Friday 7/31", "We use LexLedger now — ...";
#: 24 a month's row still open, "| Nov 2026 MTD (thru 11/15) |", by its month, and a list's
#: "- 4/2 — March billed $18,940" lines by their days, an archive's mails each by its writer,
#: and "we're done with Pisgah Roll-Off" as a statement of change.
CHUNKING_VERSION = 24


@dataclass(frozen=True)
class Section:
    headers: tuple[str, ...]
    text: str


def by_day(
    section: Section, near: dt.date | None = None, timezone: str = DEFAULT_TIMEZONE
) -> list[tuple[Section, dt.date | None]]:
    """A section of dated entries as one section per entry (or day), each with its day: a
    chat channel's export ("[2026-03-04 09:12] nadia: ...", most of its lines: a reply or an
    unstamped line goes with the message above it), or a journal whose entries open with a
    dated heading or stamp (`_ENTRY_STAMP`: "### Tuesday 3 March 2026 — call with Ottilie",
    "### 14 Apr" under "## 2026", "**Comment — Ines Varga · 12 Mar 2026, 14:05**", "· Status
    changed ... — 2 Apr 2026"), at least STAMPED_ENTRIES of them. Any other section as it is,
    with no day of its own. `near`: the document's date, for a day and month without a year."""
    lines = section.text.split("\n")
    said = [line for line in lines if line.strip()]
    stamps = [m for line in said if (m := _STAMPED.match(line))]
    if not stamps or len(stamps) < STAMPED_SHARE * len(said):
        return _by_entry(section, near, timezone)
    # "03/04" is read as the other stamps in figures are: day first unless one says otherwise
    day_first = figures_day_first([m["day"] for m in stamps if m["day"]])
    days: dict[dt.date | None, list[str]] = {}
    day: dt.date | None = None
    for line in lines:
        if m := _STAMPED.match(line):
            # (the day above, if any, for a day and month on a page of no date)
            day = _stamped_day(m, near or day, day_first) or day  # "2026-13-45": the day above
        days.setdefault(day, []).append(line)
    return [
        (Section(section.headers, text), on)
        for on, kept in days.items()
        if (text := "\n".join(kept).strip())
    ]


def _stamped_day(m: re.Match[str], near: dt.date | None, day_first: bool) -> dt.date | None:
    """The day a message's stamp gives (`_STAMPED`), None when it is no real day."""
    if m["said"]:
        with contextlib.suppress(ValueError):
            return dt.date.fromisoformat(m["said"])
        return None
    said = m["day"]
    if not said[:1].isdigit():
        return day_named(said, near)
    if near is not None:
        return figures_date(said, near, day_first)
    # a page of no date: "5/12 — Rule 16 scheduling conference" down a docket sheet
    return past_figures(said, day_first)


#: What opens a journal's dated entry: a heading below the section's own ("### 14 Apr"), a
#: line all in bold ("**Comment — Ines Varga · 12 Mar 2026, 14:05**"), a chat export's day
#: separator ("--- Tuesday, March 3 ---", "#front-desk — Tue Nov 17"), each read as the
#: entry's heading; or an activity line ("· Status changed to Done — 2 Apr 2026"), an entry
#: of its own. Each counts only when it holds a date.
_ENTRY_STAMP = re.compile(
    r"^(?:#{3,6}[ \t]+(?P<heading>.+?)[ \t#]*|\*\*(?P<bold>[^*\n]{4,160})\*\*[ \t]*"
    # a chat export's day separator: "--- Tuesday, March 3 ---", "=== 3 Mar ==="
    r"|(?P<rule>[-=\u2014\u2013]{2,})[ \t]*(?P<sep>[^-=\u2014\u2013\s][^\n]{2,80}?)[ \t]*(?P=rule)"
    # ... or its channel's name over the day's messages: "#front-desk — Tue Nov 17"
    r"|(?P<channel>\#[a-z0-9][\w.-]{0,40}[ \t]+[\u2014\u2013|-][ \t]+[^\n]{3,60}?)"
    r"|(?P<line>[\u00b7\u2022][ \t]+.{4,200})"
    # a paragraph that opens with the day it was written: "Updated 12 Aug: From 1 Sept ..."
    r"|(?P<para>(?:updated|update|revised|changed|added|edited)[ \t]+[^:\n]{3,30}?)"
    r"[ \t]*:[ \t]+\S.*"
    # a journal's paragraph led by its day in bold: "**2026.11.17** — RC1 arrived late"
    r"|\*\*(?P<lead>[^*\n]{4,40})\*\*[ \t]*[\u2014\u2013:|-][ \t]*\S.*"
    # a running list of calls led by its day in brackets: "- (3 Nov) spoke to Sgt Okoro"
    r"|[-*+][ \t]+\((?P<paren>[^()\n]{3,25})\)[ \t]+\S.*)$",
    re.I,
)
#: A line that labels the entries under it ("**Done**", "Next:", "**Risks**").
_LABEL = re.compile(r"\**\s*([A-Za-z][\w ]{1,30}?)\s*:?\s*\**\s*:?")
#: The labels of what is still to come ("**Next**", "Next week", "Upcoming", "Plan").
_AHEAD = re.compile(r"next(?:\s+week)?|upcoming|coming\s+up|plans?|to\s*do|todo", re.I)
#: A mail's header lines, in a thread's export or quoted ("> ") under a reply: "From:" opens
#: a message, whose "Date:" follows within MAIL_HEADER_LINES lines.
_MAIL_FROM = re.compile(r"^(?P<quote>(?:>[ \t]?)*)From:[ \t]+\S")
_MAIL_DATE = re.compile(r"^(?P<quote>(?:>[ \t]?)*)(?:Date|Sent):[ \t]+(?P<date>.{6,80})$")
MAIL_HEADER_LINES = 5
#: A reply's attribution line over the message it quotes: "> On Mon, Jul 27, 2026 at 11:20
#: AM Ravi Sood wrote:" opens that message, said that day.
_MAIL_WROTE = re.compile(
    r"^(?:>[ \t]?)*On[ \t]+(?P<date>[^\n]{6,40}?\d{4})(?:,?[ \t]+at\b|,)[^\n]{0,80}\bwrote:\s*$"
)


def _mail_days(lines: Sequence[str]) -> dict[int, dt.date]:
    """The lines that open a mail message ("From: ...", or its header's "Date:" line when
    that comes first, or a reply's "On Mon, Jul 27, 2026 at 11:20 AM Ravi Sood wrote:"), each
    with the day its header's "Date:" line (quoted as deep) or the attribution gives: a
    thread's messages, the newest first and the older quoted below it, and an archive's
    pasted one after another, are each said on their own day. Days in figures are read as
    the text writes them elsewhere ("06/15/2026" makes "01/06/2026" 6 January)."""
    out: dict[int, dt.date] = {}
    order = figures_order("\n".join(lines))
    for i, line in enumerate(lines):
        if (wrote := _MAIL_WROTE.match(line)) is not None:
            if day := written_date(wrote.group("date"), order):
                out[i] = day
            continue
        if (opens := _MAIL_FROM.match(line)) is None:
            continue
        depth = opens.group("quote").replace(" ", "")
        after = [(j, lines[j]) for j in range(i + 1, min(len(lines), i + 1 + MAIL_HEADER_LINES))]
        before = []  # "Date: 06/15/2026" over "From: Gwen Marchetti", up to the blank line
        for j in range(i - 1, max(-1, i - 1 - MAIL_HEADER_LINES), -1):
            if not lines[j].strip():
                break
            before.append((j, lines[j]))
        for j, header in (*after, *before):
            m = _MAIL_DATE.match(header)
            if m is not None and m.group("quote").replace(" ", "") == depth:
                if day := written_date(m.group("date"), order):
                    out[min(i, j)] = day
                break
    return out


#: How many dated entry stamps make a section a journal of entries.
STAMPED_ENTRIES = 2


def _by_entry(
    section: Section, near: dt.date | None, timezone: str = DEFAULT_TIMEZONE
) -> list[tuple[Section, dt.date | None]]:
    """`by_day` for a section of dated entry stamps, or of table rows whose first cell is a
    day ("| 9 Nov | 248,320 | 96.2% |" under "## November 2026": each row an entry of its
    day, under the table's header row); what lies between them goes with the entry above,
    and what follows a table sums it up, said on its last row's day ("**October close:**
    ..." under the rows of October's weeks: no earlier than the week of 26 Oct it counts)."""
    said = near  # the page's own date
    year = next((m for h in reversed(section.headers) if (m := YEAR.search(h))), None)
    if year is not None:  # "## 2026" above "### 14 Apr"
        near = dt.date(int(year.group(0)), 7, 1)
    month = month_heading(section.headers[-1]) if section.headers else None
    entries: list[tuple[tuple[str, ...], dt.date | None, list[str]]] = [
        (section.headers, month, [])
    ]
    dated = 0
    ended = False  # a week's figures under the day it ended: an entry of that week alone
    in_fence = False
    column, day_first = 0, True  # the table's date column, and how its figures are read
    named = False  # whether its header names it a date column
    head: list[str] = []  # the table's header row and rule
    days: list[dt.date] = []  # the table's rows' days
    lines = section.text.split("\n")
    mail = _mail_days(lines)
    for at, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
        if not in_fence and at in mail:  # a mail message: an entry of its day
            dated += 1
            entries.append((section.headers, mail[at], [line]))
            continue
        if not in_fence and _TABLE_ROW.match(line):
            if not head or (len(head) == 1 and TABLE_RULE.match(line)):
                head.append(line)
                entries[-1][2].append(line)
                if len(head) == 2:
                    column = date_column(head[0])
                    named = _DATE_HEADER.match(_cells(head[0])[column].strip()) is not None
                    # read past the week's word ("| Wk of 10/5 |" of "| Wk of 9/14 |": month first)
                    day_first = figures_day_first(
                        [_WEEK_OF.sub("", c) for c in _column(_rows_from(lines, at + 1), column)]
                    )
                continue
            cells = _cells(line)
            cell = cells[column] if column < len(cells) else ""
            around = entries[-1][1] or near
            day = (
                # "2026-11-20T01:05Z": the evening of the 19th where the service is
                local_day(cell, timezone)
                or day_named(cell, around)
                # "w/c 09/11": the week that commences on that day
                or figures_date(_WEEK_OF.sub("", cell), around, day_first)
                # an undated page's "| 11/16 |" in its "Opened" column: a day gone by
                or (past_figures(cell.strip(), day_first) if around is None and named else None)
                # "| 10-14 |" under "## October 2026": the month's day
                or (month_day(cell, month) if named else None)
                # an undated page's "Week" column ("w/e 4 Jan"): weeks gone by
                or (past_day(cell) if around is None and named else None)
                # a month's row ("| Mar 2026 | 287,930 | ...", "| Nov 2026 MTD |"): what
                # that month did
                or month_row(cell.strip())
                # a roast log's batch id on a dated page: "| R-1117-03 |", 17 November's
                or (coded_day(cell, around) if around else None)
                # ... or a month's or an ISO week's alone, in a column named so, the year the
                # page's ("| Jan | 78.0% |" under "# OEE — monthly, 2026"; "| W38 (09/14-09/18) |")
                or (
                    month_alone(cell, around) or week_cell(cell, around)
                    if named and around
                    else None
                )
                if len(head) == 2
                else None
            )
            if day is None:
                entries[-1][2].append(line)
            else:
                dated += 1
                days.append(day)
                entries.append((section.headers, day, [*head, line]))
            continue
        if head and line.strip():  # the table ended: what follows sums it up, said after it
            head = []
            if days:  # (a table of no days goes on in the entry it is part of)
                # (a schedule's rows to come sum up nothing: what follows them is the page's)
                done = [d for d in days if said is None or d <= said]
                entries.append((section.headers, max(done, default=month), []))
            days = []
        m = None if in_fence else _ENTRY_STAMP.match(line.strip())
        label = m and (
            m.group("heading")
            or m.group("bold")
            or m.group("sep")
            or m["channel"]
            or m.group("line")
            or m["para"]
            or m["lead"]
            or m["paren"]
        )
        around = entries[-1][1] or near
        day = day_named(label, around) if label else None
        if day is None and label and (day := week_ending(label, around)) is not None:
            ended = True  # "**Numbers w/e 15.11.**" in Monday's notes: last week's figures
        if day is None and label and around is None and m and (m["para"] or m["paren"]):
            day = past_day(label)  # an undated page's "Updated 12 Aug:": a day gone by
        if day is None or not label:
            entries[-1][2].append(line)
            continue
        dated += 1
        if m and (m.group("line") or m["para"] or m["lead"] or m["paren"]):  # its own entry
            entries.append((section.headers, day, [line]))
        else:
            entries.append(((*section.headers, label.strip()), day, []))
    if dated < STAMPED_ENTRIES and not ended:
        return [(section, None)]
    return [
        (Section(headers, text), on)
        for headers, on, kept in entries
        if (text := "\n".join(kept).strip()) and not _only_head(text)
    ]


#: What a week's cell writes before the day that names it: "w/c 09/11", "Week of 9/11",
#: "w/e 15/11" (week commencing, ending).
_WEEK_OF = re.compile(r"^\W*(?:w/[ce]|wk|week)\b(?:\s+(?:of|commencing|ending|starting))?\W*", re.I)

#: A table's column of the day each row was said or takes effect: "Date", "Effective from",
#: "w/c" (week commencing), "Week of", "Created (UTC)".
_DATE_HEADER = re.compile(
    r"^\W*(?:date|day|when|effective(?:\s+(?:from|date|on))?|valid\s+from|in\s+force\s+from|"
    r"from|since|as\s+of|w/?c|week(?:\s+(?:commencing|of|starting|beginning))?|month|"
    # a ticket's or a record's own day: "Created (UTC)", "Opened", "Logged"
    r"created|opened|raised|logged|reported|received|submitted)(?:\s*\([^()]*\))?\W*$",
    re.I,
)


def date_column(header: str) -> int:
    """The index of a table's date column by its header row (`_DATE_HEADER`), else its first:
    a rate sheet adds a row per change with its "Effective from" day in its fifth column."""
    return next((i for i, c in enumerate(_cells(header)) if _DATE_HEADER.match(c.strip())), 0)


def _cells(row: str) -> list[str]:
    return row.strip().strip("|").split("|")


def _column(rows: Sequence[str], i: int) -> list[str]:
    """The `i`th cell of each row that has one."""
    return [c[i] for row in rows if len(c := _cells(row)) > i]


def _rows_from(lines: Sequence[str], start: int) -> list[str]:
    """The table rows from `start` on, up to the first line that is not one."""
    return list(itertools.takewhile(lambda line: _TABLE_ROW.match(line) is not None, lines[start:]))


def _only_head(text: str) -> bool:
    """Whether `text` is a table's header row and rule and nothing else."""
    lines = text.split("\n")
    return len(lines) <= 2 and all(_TABLE_ROW.match(x) for x in lines)


#: A fence opened for comma-separated values, or for nothing in particular.
_CSV_FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*(?:csv|text|txt)?[ \t]*$", re.I)


def csv_tables(text: str) -> str:
    """Each fenced block of comma-separated values pasted from a sheet, a header line above
    rows of as many fields ("week_starting,diesel_gal,occupancy_pct" over "2026-11-09,412,
    72"), as the markdown table it is: its rows are then dated and read as a table's, a row
    a day. Any other fence is left as written."""
    if "," not in text or ("```" not in text and "~~~" not in text):
        return text
    lines = text.split("\n")
    out: list[str] = []
    at = 0
    while at < len(lines):
        opened = _FENCE.match(lines[at])
        end = (
            None
            if opened is None
            else next(
                (i for i in range(at + 1, len(lines)) if lines[i].strip() == opened.group(1)),
                None,
            )
        )
        if opened is None or end is None:
            out.append(lines[at])
            at += 1
            continue
        table = _csv_table(lines[at + 1 : end]) if _CSV_FENCE.match(lines[at]) else None
        out.extend(table if table is not None else lines[at : end + 1])
        at = end + 1
    return "\n".join(out)


def _csv_table(block: Sequence[str]) -> list[str] | None:
    """The markdown table of a fence's lines, if they are a header and rows of values."""
    rows = list(csv.reader(line for line in block if line.strip()))
    if len(rows) < 2 or len({len(r) for r in rows}) != 1 or len(rows[0]) < 2:
        return None
    head = [c.strip().replace("_", " ") for c in rows[0]]
    if not all(re.search(r"[A-Za-z]", c) for c in head):
        return None
    cells = [[c.strip().replace("|", "\\|") for c in r] for r in rows[1:]]
    return [
        f"| {' | '.join(head)} |",
        f"|{'---|' * len(head)}",
        *(f"| {' | '.join(r)} |" for r in cells),
    ]


def normalize(text: str) -> str:
    """NUL bytes and carriage returns out; nothing else touched."""
    return text.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n")


def split_sections(text: str, *, whole: bool = False) -> list[Section]:
    """Sections at `#` and `##` headings (outside code fences). Deeper headings stay inside."""
    if whole:
        return [Section((), text.strip())] if text.strip() else []
    sections: list[Section] = []
    h1: str | None = None
    h2: str | None = None
    buf: list[str] = []
    in_fence = False

    def flush() -> None:
        body = "\n".join(buf).strip()
        if body:
            sections.append(Section(tuple(h for h in (h1, h2) if h), body))
        buf.clear()

    for line in text.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match and len(match.group(1)) <= 2:
            flush()
            if len(match.group(1)) == 1:
                h1, h2 = match.group(2).strip(), None
            else:
                h2 = match.group(2).strip()
            continue
        buf.append(line)
    flush()
    return sections


def entries(text: str) -> list[str]:
    """A log section's entries: each top-level list item (with its continuation lines and
    sub-items) and each paragraph. A day's log says unrelated things; one chunk per entry
    keeps each one's embedding, and what it supersedes, its own. A paragraph that ends in a
    colon ("Decisions:"), or a short line that ends no sentence ("Numbers w/e 11/20"; not a
    word label alone: `_LABEL`), leads every item of the list after it; a sub-heading inside
    the section ("### Site visit: Larkspire") leads every entry under it."""
    groups: list[tuple[str, list[str]]] = []  # (the sub-heading above it, its lines)
    current: list[str] = []
    sub = ""
    blank = in_fence = False
    for line in text.split("\n"):
        fence = _FENCE.match(line) is not None
        if in_fence or fence:
            in_fence ^= fence
            current.append(line)
            continue
        if not line.strip():
            blank = True
            continue
        if _HEADING.match(line):
            if current:
                groups.append((sub, current))
            current, sub, blank = [], line.strip(), False
            groups.append((sub, []))  # kept when nothing follows it
            continue
        item = _ITEM.match(line) is not None
        continues = bool(current) and (line[:1].isspace() if blank else not item)
        if continues:
            current.extend([""] * blank + [line])
        else:
            if current:
                groups.append((sub, current))
            current = [line]
        blank = False
    if current:
        groups.append((sub, current))
    out: list[str] = []
    lead, led = "", False  # a lead-in ("Decisions:"), with the sub-heading above it
    for i, (heading, lines) in enumerate(groups):
        head = f"{heading}\n" if heading else ""
        if lead and not lead.startswith(head):  # a new sub-heading ends the lead's list
            if not led:
                out.append(lead)
            lead, led = "", False
        if not lines:  # a sub-heading: an entry of its own only when nothing follows under it
            if i + 1 == len(groups) or not groups[i + 1][1] or groups[i + 1][0] != heading:
                out.append(heading)
            continue
        body = "\n".join(lines).strip()
        if _ITEM.match(lines[0]):
            out.append(f"{lead}\n{body}" if lead else f"{head}{body}")
            led = True
            continue
        if lead and not led:
            out.append(lead)  # a lead no list followed is a paragraph of its own
        labels = body.endswith(":") or (  # "Numbers w/e 11/20" over its list: a label too
            _LABEL_LINE.fullmatch(body) is not None
            and _LABEL.fullmatch(body) is None  # ("**Next**" labels a week report's own way)
            and i + 1 < len(groups)
            and groups[i + 1][0] == heading
            and bool(groups[i + 1][1])
            and _ITEM.match(groups[i + 1][1][0]) is not None
        )
        lead, led = (f"{head}{body}", False) if labels else ("", False)
        if not lead:
            out.append(f"{head}{body}")
    if lead and not led:
        out.append(lead)
    return out


#: A line that labels the list under it without a colon: a few words, no sentence's end
#: ("Numbers w/e 11/20").
_LABEL_LINE = re.compile(r"[^\n.!?]{1,60}(?<![.!?;,])", re.S)


def table_pieces(
    text: str, counter: TokenCounter, row_tokens: int = ROW_TOKENS, *, days: bool = False
) -> list[str]:
    """`text` with each markdown table whose rows outgrow `row_tokens` cut out: the prose
    before it, then its rows a few at a time (as many as fit `row_tokens`, at least one),
    each group under the table's header and rule lines, then the prose after it. A table
    inside a code fence is text. With `days`, only a table whose rows are a week's days
    ("| Thu | 446 | 1,288 |": `_days_of_week`) is cut, a row at a time, so that each row is
    dated by its weekday."""
    lines = text.split("\n")
    pieces: list[str] = []
    prose: list[str] = []
    in_fence = False
    i = 0

    def flush() -> None:
        if "\n".join(prose).strip():
            pieces.append("\n".join(prose).strip())
        prose.clear()

    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            in_fence = not in_fence
        header = (
            not in_fence
            and i + 1 < len(lines)
            and _TABLE_ROW.match(line) is not None
            and TABLE_RULE.match(lines[i + 1]) is not None
        )
        if not header:
            prose.append(line)
            i += 1
            continue
        end = i + 2
        while end < len(lines) and _TABLE_ROW.match(lines[end]):
            end += 1
        rows = lines[i + 2 : end]
        if days:
            groups = [[row] for row in rows] if _days_of_week(line, rows) else []
        else:
            groups = _row_groups(rows, counter, row_tokens)
        if len(groups) > 1:
            flush()
            head = f"{line}\n{lines[i + 1]}\n"
            pieces.extend(head + "\n".join(group) for group in groups)
        else:
            prose.extend(lines[i:end])
        i = end
    flush()
    return pieces


def _days_of_week(header: str, rows: Sequence[str]) -> bool:
    """Whether a table's date column (`date_column`) names its rows' days by weekday alone,
    two or more of them."""
    column = date_column(header)
    return sum(WEEKDAY_ALONE.match(cell) is not None for cell in _column(rows, column)) >= 2


def _row_weekday(piece: str, week: dt.date) -> dt.date | None:
    """The day of `week`'s ISO week that a table's one row (under its header and rule, as
    `table_pieces` cuts a table of days) names in its date column by weekday alone."""
    lines = piece.strip().split("\n")
    if len(lines) != 3 or TABLE_RULE.match(lines[1]) is None or not _TABLE_ROW.match(lines[2]):
        return None
    cells, column = _cells(lines[2]), date_column(lines[0])
    return weekday_label(cells[column], week) if column < len(cells) else None


def _row_groups(rows: list[str], counter: TokenCounter, row_tokens: int) -> list[list[str]]:
    groups: list[list[str]] = []
    used = 0
    for row in rows:
        size = counter.count(row)
        if groups and used + size <= row_tokens:
            groups[-1].append(row)
            used += size
        else:
            groups.append([row])
            used = size
    return groups


def _snap(text: str, pos: int, floor: int) -> int:
    """Move a cut back to the start of the word it falls in (not past `floor`)."""
    if pos >= len(text) or pos <= floor:
        return pos
    back = pos
    while back > floor and back > pos - 40 and not text[back - 1].isspace():
        back -= 1
    return back if back > floor and text[back - 1].isspace() else pos


def windows(text: str, counter: TokenCounter, budget: int, overlap: float) -> Iterator[str]:
    """`text` if it fits `budget` tokens, else overlapping windows of at most `budget`.

    Window edges snap back to word starts; if snapping the front makes a window too long, its
    end moves back a token at a time until it fits (the next window starts before it)."""
    starts = counter.offsets(text)
    if len(starts) <= budget:
        yield text
        return
    step = max(1, budget - round(budget * overlap))
    n = len(starts)
    a = 0
    while True:
        piece, b = _fitting_piece(text, starts, a, min(a + budget, n), counter, budget)
        if piece:
            yield piece
        if b >= n:
            return
        a = max(a + 1, min(a + step, b - 1))  # never a gap, always progress


def _fitting_piece(
    text: str, starts: list[int], a: int, b: int, counter: TokenCounter, budget: int
) -> tuple[str, int]:
    """The piece for tokens [a, b) and the b it ended up using (shrunk if it did not fit)."""
    n = len(starts)
    begin = 0 if a == 0 else _snap(text, starts[a], 0)
    end = len(text) if b >= n else _snap(text, starts[b], begin + 1)
    piece = text[begin:end].strip()
    while piece and b > a + 1 and counter.count(piece) > budget:
        b -= 1
        end = _snap(text, starts[b], begin + 1)
        piece = text[begin:end].strip()
    return piece, b


class Chunker:
    def __init__(
        self,
        counter: TokenCounter,
        window_tokens: int,
        overlap: float = 0.2,
        timezone: str = DEFAULT_TIMEZONE,
    ) -> None:
        self.counter = counter
        self.window_tokens = window_tokens
        self.overlap = overlap
        #: the registry's timezone: the day a timestamp in UTC ("2026-11-20T01:05Z") falls on
        self.timezone = timezone

    @functools.cached_property
    def fingerprint(self) -> str:
        """Every setting that shapes chunks: the code's version and the Chunk fields it fills,
        the tokenizer, window, overlap and limits."""
        settings = {
            "version": CHUNKING_VERSION,
            "fields": sorted(Chunk.model_fields),
            "tokenizer": self.counter.name,
            "window_tokens": self.window_tokens,
            "overlap": self.overlap,
            "timezone": self.timezone,
            "max_target": MAX_TARGET,
            "min_budget": MIN_BUDGET,
            "max_chars_per_token": MAX_CHARS_PER_TOKEN,
        }
        return content_hash(json.dumps(settings, sort_keys=True))

    def doc_key(self, doc: Document) -> str:
        """What `doc`'s chunks depend on: this chunker's fingerprint and every document field
        (text, title, provenance). Equal keys give equal chunks."""
        return content_hash(self.fingerprint + doc.model_dump_json())

    def budget(self, title: str, headers: Iterable[str]) -> int:
        trail = " > ".join(h for h in (title, *headers) if h)
        reserve = self.counter.count(trail) + 4 if trail else 2  # special + separator tokens
        return max(MIN_BUDGET, min(MAX_TARGET, self.window_tokens - reserve))

    def chunk(self, doc: Document) -> list[Chunk]:
        whole = doc.extra.get("chunking") == "whole"
        sections = split_sections(csv_tables(normalize(doc.text)), whole=whole)
        if not sections and doc.title.strip():
            sections = [Section((), doc.title.strip())]
        chunks: list[Chunk] = []
        writer = mail_writer(doc.text)
        archive = writer is None and "From:" in doc.text  # (each section is read only then)
        # a week's report: its entries' weekdays
        weekly = iso_week(doc.source_id) is not None or week_heading(doc.title) is not None
        span = heading_span(doc.source_id, doc.date)
        for section, day in (
            daily for s in sections for daily in by_day(s, doc.date, self.timezone)
        ):
            budget = self.budget(doc.title, section.headers)
            # a mail's writer, or in an archive of several the writer of this one's section
            said_by = writer or (mail_writer(section.text) if archive else None)
            when = (
                (day, "event")
                if day
                else section_time(section.headers, doc.date, doc.time_kind, span)
            )
            if (
                when == (doc.date, doc.time_kind)
                and doc.time_kind == "standing"
                and section.headers
            ):
                # a binder's section that states its own review ("Reviewed Q1 2026 by Ike"
                # under "## SOP-06"): as of then, not as of the binder's latest
                own = stated_review(section.text)
                when = (own, "standing") if own else when
            if whole:
                texts = [section.text]
            elif when[1] == "event":
                texts = entries(section.text)
                if weekly:  # a week report's table of its days: a row a day
                    texts = [p for t in texts for p in table_pieces(t, self.counter, days=True)]
            else:
                texts = table_pieces(section.text, self.counter)
            ahead = False  # under a week report's "**Next**": its weekdays are next week's
            labelled = None  # under a week report's "Thu:": that day's entries
            for window in (
                w for t in texts for w in windows(t, self.counter, budget, self.overlap)
            ):
                # A run of characters the tokenizer reads as one unknown token (no spaces for
                # megabytes) still has to fit a payload: cap by characters too.
                cap = budget * MAX_CHARS_PER_TOKEN
                said = when
                if weekly and when[0] is not None and when[1] == "event":
                    if (label := _LABEL.fullmatch(window.strip())) is not None:
                        ahead = _AHEAD.fullmatch(label.group(1).strip()) is not None
                        labelled = weekday_label(label.group(1), when[0])
                        said = (labelled or when[0], "event")
                    elif not ahead:
                        said = (
                            weekday_lead(window.strip(), when[0])  # "- Wed - needle bar ..."
                            or _row_weekday(window, when[0])  # "| Thu | 446 | 1,288 |"
                            or weekday_in_week(window, when[0])
                            # an entry read with its label ("Thu:\n- Open tickets: 53")
                            or weekday_label(window.strip().split("\n", 1)[0], when[0])
                            or labelled
                            or when[0],
                            "event",
                        )
                for start in range(0, len(window), cap):
                    piece = window[start : start + cap]
                    chunks.append(
                        self._make(doc, section.headers, said, piece, len(chunks), said_by)
                    )
        return chunks

    def _make(
        self,
        doc: Document,
        headers: tuple[str, ...],
        when: tuple[dt.date | None, TimeKind],
        text: str,
        ordinal: int,
        writer: str | None = None,
    ) -> Chunk:
        date, time_kind = when
        extra = _located(doc.extra, headers)
        if writer:  # a single mail's: who its first-person sentences are said by
            extra = {**extra, WRITER: writer}
        chunk = Chunk(
            id=chunk_id(doc.scope, doc.source, doc.source_id, ordinal),
            doc_id=doc.doc_id,
            source=doc.source,
            source_id=doc.source_id,
            scope=doc.scope,
            title=doc.title,
            text=text,
            headers=list(headers),
            ordinal=ordinal,
            kind=doc.kind,
            url=doc.url,
            uri=doc.uri,
            date=date,
            time_kind=time_kind,
            marks=marks(text),
            names=name_keys(doc.title, doc.source_id, doc.kind),
            version=doc.version,
            lifecycle=doc.lifecycle,
            trust=doc.trust,
            confidentiality=doc.confidentiality,
            extra=extra,
        )
        embed_text = chunk.embedding_text()
        provenance = chunk.model_dump_json(exclude={"tokens", "content_hash", "fingerprint"})
        hashed = content_hash(embed_text)
        return chunk.model_copy(
            update={
                "tokens": self.counter.count(embed_text),
                "content_hash": hashed,
                "fingerprint": content_hash(hashed + json.dumps(provenance)),
            }
        )


#: A mail's writer, on its "From:" line: "From: Owen Tate", "From: **Gwen Marchetti** <gm@...>".
_WRITER = re.compile(
    r"(?m)^[ \t]*From:[ \t]+\**(?P<name>[A-Z][\w'-]+(?:[ \t]+[A-Z][\w'-]+){0,2})\**"
    r"[ \t]*(?:<[^>\n]*>|\([^)\n]*\))?[ \t]*$"
)


def mail_writer(text: str) -> str | None:
    """The writer a text that is one mail names on its "From:" line (a document, or one
    message's section of an archive of several); None for any other."""
    if sum(1 for line in text.split("\n") if _MAIL_FROM.match(line)) != 1:
        return None
    m = _WRITER.search(text)
    return m.group("name") if m else None


def _located(extra: dict[str, Any], headers: tuple[str, ...]) -> dict[str, Any]:
    """A converted file's chunk carries its page, slide or sheet number in provenance."""
    if MIME_TYPE not in extra:
        return extra
    found = locate(headers)
    return {**extra, found[0]: found[1]} if found else extra
