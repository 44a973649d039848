"""Statements of change in prose: which values a sentence says are no longer current.

"Acme was handed over from Dana to Lee", "the minimum was raised from 14 to 21 days", "we
replaced Hotjar with Clarity", "Clarity replaces Hotjar", "we no longer use Hotjar",
"weekly instead of monthly", "supersedes the monthly report cadence". A sentence's *old*
values are what it says changed away from; its other values are what it says now. A bare
number in "from 14 to 21 days" takes the unit of the value it changed to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge_platform.answers.values import Value, values

_WORD = r"[\w$€£%.,:'\u2019&/-]+"
#: An old value that runs to the end of its clause ("the monthly report cadence").
_CLAUSE = (r"(?P<old>[^.,;:!?()]+?)(?=\s+(?:from|since|as|because|with|for|in|on|at|until|"
           r"effective|starting|going|and|but|so)\b|[.,;:!?()]|$)")
#: (pattern, group holding the old value). Each pattern marks a span of the sentence as old.
_OLD_SPANS: list[re.Pattern[str]] = [re.compile(p, re.I) for p in (
    # "from X to Y", "from X over to Y" (X: up to 6 words)
    rf"\bfrom\s+(?P<old>(?:{_WORD}\s+){{0,5}}?{_WORD})\s+(?:over\s+)?(?:to|into|->|→)\s+",
    # "replaced X with/by Y", "swapped X for Y"
    rf"\b(?:replac(?:ed|es|ing|e)|swapp(?:ed|ing)|swap|exchang(?:ed|e))\s+"
    rf"(?P<old>(?:{_WORD}\s+){{0,5}}?{_WORD})\s+(?:with|by|for)\s+",
    # "Y replaces/supersedes X", "Y takes over from X": the old value follows
    r"\b(?:replaces|replaced|supersedes|superseded|succeeds|succeeded|retires|retired|"
    r"takes\s+over\s+from|took\s+over\s+from|instead\s+of|in\s+place\s+of|rather\s+than)\s+"
    + _CLAUSE,
    # "no longer X", "not X any more", "stopped using X", "dropped X"
    r"\b(?:no\s+longer(?:\s+\w+)?|stopped\s+using|dropped|retired|discontinued|phased\s+out)"
    r"\s+" + _CLAUSE,
    # "X is no longer ...": the subject before it is what stopped
    rf"(?P<old>\b{_WORD}(?:\s+{_WORD}){{0,2}})\s+(?:is|are|was|were)\s+no\s+longer\b",
)]
#: A sentence that says something changed (with or without a recognisable old value).
CHANGE_WORDS = re.compile(
    r"\b(handed\s+over|hands\s+over|took\s+over|takes\s+over|moved|moves|switched|switches|"
    r"changed|changes|raised|lowered|increased|decreased|reduced|replaced|replaces|"
    r"supersedes|superseded|no\s+longer|instead\s+of|from\s+now\s+on|from\s+today|"
    r"effective\s+(?:today|immediately|from)|going\s+forward|now\s+(?:owns|leads|runs|uses))\b",
    re.I)


@dataclass(frozen=True)
class Change:
    """What a sentence says changed: its old values and the values it states now."""

    old: tuple[Value, ...]
    new: tuple[Value, ...]

    @property
    def says_change(self) -> bool:
        return bool(self.old)


def _old_spans(text: str) -> list[tuple[int, int]]:
    return [m.span("old") for pattern in _OLD_SPANS for m in pattern.finditer(text)]


def _inside(value: Value, text: str, spans: list[tuple[int, int]]) -> bool:
    start = text.find(value.text)
    return start >= 0 and any(a <= start < b for a, b in spans)


def _with_unit(old: Value, new: list[Value]) -> Value:
    """A bare number changed to a value with a unit ("from 14 to 21 days") in that unit."""
    if old.kind != "number":
        return old
    unit = next((v for v in new if v.kind in ("duration", "percent", "money")), None)
    if unit is None:
        return old
    restated = values(f"{old.text} {unit.text.split(None, 1)[-1]}" if unit.kind == "duration"
                      else f"{old.text}%" if unit.kind == "percent"
                      else f"{unit.text[0]}{old.text}")
    return next((v for v in restated if v.kind == unit.kind), old)


def change_in(text: str) -> Change:
    """The old and new values of `text` (no old ones: it states no change it can name)."""
    found = values(text)
    spans = _old_spans(text)
    if not spans:
        return Change((), tuple(found))
    new = [v for v in found if not _inside(v, text, spans)]
    old = [_with_unit(v, new) for v in found if _inside(v, text, spans)]
    return Change(tuple(old), tuple(new))


def old_phrases(text: str) -> list[str]:
    """The words a sentence says were superseded ("the monthly report cadence")."""
    out = []
    for pattern in _OLD_SPANS[2:3]:
        out += [" ".join(m.group("old").split()).rstrip(".,;:") for m in pattern.finditer(text)]
    return out
