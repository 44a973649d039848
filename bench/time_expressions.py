"""Time expressions in questions: our resolver (knowledge_platform/serve/when.py) against
`dateparser`'s `search_dates` (a kept parser, already installed under trafilatura), on the
dated questions of the dated evaluation (bench/data/temporal/*.yaml, labelled with the window
their answer lies in under every reading).

- ours: correct when its window covers the narrow window (where the answer is) and stays
  inside the wide one (every reading: weeks from Sunday or Monday, "two weeks ago" as that
  week or 14 days back) — so it finds the answer and no distractor;
- dateparser: it returns a point in time, not a window; counted correct when it finds the
  expression and its point lies inside the narrow window (the most it can do), with
  PREFER_DATES_FROM=past and RELATIVE_BASE the evaluation's clock.

    .venv/bin/python bench/time_expressions.py [--split tune|holdout|both]

Prints a row per expression and, last: `expressions: ours=<share> dateparser=<share> n=<n>`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import time
import warnings
from dataclasses import dataclass

from _common import load_average, markdown_table, write_results
from temporal_data import load_questions
from temporal_world.clock import KP_NOW

from knowledge_platform.serve.when import resolve


@dataclass(frozen=True)
class Labelled:
    question: str
    narrow: tuple[dt.date, dt.date]
    wide: tuple[dt.date, dt.date]


def _span(text: str) -> tuple[dt.date, dt.date]:
    first, _, last = text.strip().partition("..")
    return dt.date.fromisoformat(first), dt.date.fromisoformat(last or first)


def labelled(split: str) -> list[Labelled]:
    out = []
    for q in load_questions(split):
        if q.type != "dated" or not q.window:
            continue
        narrow_text, _, rest = q.window.partition(" (every reading within ")
        narrow = _span(narrow_text)
        wide = _span(rest.rstrip(")")) if rest else narrow
        out.append(Labelled(q.question, narrow, wide))
    return out


def ours(case: Labelled, now: dt.datetime) -> tuple[bool, str]:
    window = resolve(case.question, now.date()).window
    if window is None:
        return False, "no window"
    start = window.start or dt.date.min  # "before September": open at its start
    ok = (
        start <= case.narrow[0]
        and window.end >= case.narrow[1]
        and start >= case.wide[0]
        and window.end <= case.wide[1]
    )
    return ok, f"{window.text!r} -> {window.start}..{window.end}"


def theirs(case: Labelled, now: dt.datetime) -> tuple[bool, str]:
    from dateparser.search import search_dates

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = search_dates(
            case.question,
            languages=["en"],
            settings={"RELATIVE_BASE": now, "PREFER_DATES_FROM": "past"},
        )
    if not found:
        return False, "nothing found"
    text, when = found[0]
    return case.narrow[0] <= when.date() <= case.narrow[1], f"{text!r} -> {when.date()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--split", choices=("tune", "holdout", "both"), default="both")
    args = parser.parse_args()
    now = dt.datetime.fromisoformat(KP_NOW)
    splits = ("tune", "holdout") if args.split == "both" else (args.split,)
    cases = [c for s in splits for c in labelled(s)]
    rows, mine, other = [], 0, 0
    started = time.perf_counter()
    for case in cases:
        ok_a, said_a = ours(case, now)
        ok_b, said_b = theirs(case, now)
        mine += ok_a
        other += ok_b
        rows.append(
            [
                case.question,
                f"{case.narrow[0]}..{case.narrow[1]}",
                f"{'yes' if ok_a else 'NO'}: {said_a}",
                f"{'yes' if ok_b else 'NO'}: {said_b}",
            ]
        )
    took = time.perf_counter() - started
    table = markdown_table(["question", "answer's window", "ours", "dateparser"], rows)
    last = (
        f"expressions: ours={mine / len(cases):.3f} dateparser={other / len(cases):.3f} "
        f"n={len(cases)}"
    )
    body = (
        f"`.venv/bin/python bench/time_expressions.py --split {args.split}`; clock {KP_NOW}; "
        f"{took:.1f} s for both; {load_average()}\n\n{table}\n\n`{last}`\n"
    )
    path = write_results("time_expressions", "Time expressions: ours vs dateparser", body)
    print(table)
    print(f"written to {path}")
    print(last)


if __name__ == "__main__":
    main()
