"""Understand a question before searching: the date window it asks about and what is left
to search for.

The window comes from the caller's `date_from`/`date_to` when given (they win), else from a
time expression in the question (when.py), resolved against the service's today. The
expression's words are cut from the search text, so "last week" finds last week's notes
rather than notes that contain "last" and "week".
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from knowledge_platform.errors import QueryError
from knowledge_platform.serve.when import resolve


class InterpretedDates(BaseModel):
    """The date window a search or answer applied, and where it came from."""

    text: str | None = Field(default=None, description="the words read, e.g. 'last week'")
    date_from: dt.date | None = Field(default=None, description="first day")
    date_to: dt.date | None = Field(default=None, description="last day")
    origin: Literal["question", "arguments"] = Field(
        description=("from the question's words, or date_from/date_to")
    )
    today: dt.date = Field(description="the day it was resolved on")


@dataclass(frozen=True)
class Question:
    text: str
    #: what retrieval searches for: the question without its time expression
    search_text: str
    dates: InterpretedDates | None

    @classmethod
    def plain(cls, text: str) -> Question:
        """A question taken as written: no window, every word searched."""
        return cls(text, text, None)

    @property
    def date_from(self) -> dt.date | None:
        return self.dates.date_from if self.dates else None

    @property
    def date_to(self) -> dt.date | None:
        return self.dates.date_to if self.dates else None


def understand(
    text: str, today: dt.date, *, date_from: dt.date | None = None, date_to: dt.date | None = None
) -> Question:
    """The question's window and search text. Explicit dates win over the question's words
    (which then stay in the search text)."""
    if date_from and date_to and date_from > date_to:
        raise QueryError(f"date_from {date_from} is after date_to {date_to}")
    if date_from or date_to:
        return Question(
            text,
            text,
            InterpretedDates(date_from=date_from, date_to=date_to, origin="arguments", today=today),
        )
    resolved = resolve(text, today)
    if resolved.window is None:
        return Question.plain(text)
    window = resolved.window
    search = resolved.rest if resolved.rest.strip(" ?.!") else text
    return Question(
        text,
        search,
        InterpretedDates(
            text=window.text,
            date_from=window.start,
            date_to=window.end,
            origin="question",
            today=today,
        ),
    )


#: A page named for the workplace itself ("Tansy Row staff handbook", "Cindervale content
#: style guide", "Brightwick playbook"): its leading name is the workplace's.
_OWN_PAGE = re.compile(
    r"^(?:the\s+)?(?P<name>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*){0,2}?)(?:'s|\u2019s)?\s+"
    r"(?:(?:staff|employee|engineering|content|team|company|house)\s+)?"
    r"(?:handbook|style\s+guide|playbook|wiki|intranet|manual)$"
)
#: What a playbook or handbook may be named for besides the workplace ("Experiment playbook").
_WHAT_PAGES_ARE_ON = frozenset(
    [
        "experiment",
        "experiments",
        "design",
        "brand",
        "sales",
        "marketing",
        "engineering",
        "content",
        "client",
        "clients",
        "product",
        "team",
        "company",
        "employee",
        "staff",
        "operations",
        "ops",
        "security",
        "support",
        "onboarding",
        "incident",
        "incidents",
        "release",
        "hiring",
        "finance",
        "seo",
        "social",
        "paid",
        "email",
        "crisis",
        "events",
    ]
)
#: A question that names a page kind asks about that page: the name says which one ("What
#: does the Acme style guide say about tone?" is about Acme's guide, whoever Acme is).
_NAMES_A_PAGE = re.compile(r"\b(?:handbook|style\s+guide|playbook|wiki|intranet|manual)s?\b", re.I)
_ASKING_VERB = r"(?:did|does|do|has|have|will|would|can|should)"


def workplace_names(titles: Iterable[str], also: Iterable[str] = ()) -> set[str]:
    """The workplace's own names: `also` (the registry's name for the scope) and the leading
    name of any page titled for it ("Tansy Row staff handbook"), or for its own people with
    a dash between ("Flint & Fennel Catering Ltd — Staff Handbook", "Gantry Freight — Employee
    Handbook"): the whole name, and the words before its kind of business or its legal form
    ("Flint & Fennel", "Gantry")."""
    titles = list(titles)
    found = {
        m["name"]
        for t in titles
        if (m := _OWN_PAGE.match(t.strip())) and m["name"].lower() not in _WHAT_PAGES_ARE_ON
    }
    for t in titles:
        if (m := _OWN_STAFF_PAGE.match(t.strip())) is not None:
            name = m["name"]
            found.add(name)
            words = name.split()
            # "Flint & Fennel Catering Ltd": "Flint & Fennel"; "Gantry Freight": "a Gantry quote"
            for at in range(len(words) - 1, 0, -1):
                if words[at].lower().strip(".,") not in _BUSINESS_WORDS:
                    break
                found.add(" ".join(words[:at]))
    return {n for n in (*found, *also) if n and n.lower() not in _WHAT_PAGES_ARE_ON}


#: A page for the workplace's own people, named for it before a dash: "Kestrel Vets — Staff
#: Handbook", "Cobalt Comfort Services — Employee Handbook (field staff)". (Not a building's
#: manual, "Tower A — Building Manual", nor a customer's, "... — Slip-Holder Handbook".)
_OWN_STAFF_PAGE = re.compile(
    r"^(?P<name>[A-Z][\w'-]*(?:\s+(?:&|[A-Z][\w.'-]*)){0,4})\s+[\u2014\u2013-]\s+"
    r"(?:staff|employee|team|ops\s+team|crew)\s+(?:handbook|manual)\b",
    re.I,
)
#: The words of a business's name that say what kind it is or its legal form: what is left
#: before them is what people call it ("Flint & Fennel", "Gantry").
_BUSINESS_WORDS = frozenset(
    (
        *("ltd", "llc", "llp", "inc", "co", "plc", "gmbh", "corp"),
        *("company", "limited", "catering", "freight", "services", "vets", "veterinary"),
        *("dental", "builders", "brewing", "facilities", "systems", "tech", "support"),
    )
)


_KIND_OF_WORKPLACE = re.compile(
    r"\s+(?:at|in|across|within)\s+(?:the|our)\s+(?:studio|agency|company|firm)\b(?!\s+[a-z])|"
    r"(?<!the\s)(?<!our\s)(?<!this\s)\b(?-i:studio|agency|company|firm)\s+(?=[a-z])"
    r"(?!(?:is|was|are|were|has|had|does|did|will|can|should|must|and|or|to|for|of|in|on|at|"
    r"\w+s\b))",
    re.I,
)


#: "Who joined the studio in March?": who joined (a log says "Florian's first morning with
#: us", and every log of a studio says "studio" somewhere)
_JOINED_WORKPLACE = re.compile(
    r"\b(join(?:s|ed|ing)?)\s+(?:the|our)\s+(?:studio|agency|company|firm|practice|team)\b",
    re.I,
)


def without_workplace(text: str, names: Iterable[str]) -> str:
    """`text` without the workplace it names, which every passage is about and few say ("Who
    leads crisis comms at Tansy Row now?" is who leads crisis comms): "at/of/in <name>" goes,
    "<name>'s" is ours, "did <name> sign" is whether we did, any other mention is us ("Which
    writer joined Cindervale in March?"). A question that names a page kind is left as it
    is."""
    if _NAMES_A_PAGE.search(text):
        return text
    # "What was studio utilisation?", "at the agency": what kind of workplace it is, as
    # unsaid as its name (every log of a studio says "studio" somewhere)
    text = _KIND_OF_WORKPLACE.sub("", text)
    text = _JOINED_WORKPLACE.sub(r"\1", text)
    for name in sorted(names, key=len, reverse=True):
        n = re.escape(name)
        text = re.sub(
            rf"\s+(?:at|of|in|for|across|within|to|with)\s+{n}(?:'s|\u2019s)?\b", "", text
        )
        text = re.sub(rf"\b{n}(?:'s|\u2019s)\s+", "our ", text)
        # "a Gantry quote", "an Alderbrook warranty": a quote, a warranty
        text = re.sub(
            rf"\b(an?|the)\s+{n}\s+(?=[a-z])",
            lambda m: "the " if m[1].lower() == "the" else "a ",
            text,
            flags=re.I,
        )
        text = re.sub(rf"\b({_ASKING_VERB})\s+{n}\b", r"\1 we", text, flags=re.I)
        text = re.sub(rf"\b{n}\b", "us", text)
    return " ".join(text.split())
