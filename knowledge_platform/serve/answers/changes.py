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

from knowledge_platform.serve.answers.asks import CALENDAR, ROLE_NOUNS
from knowledge_platform.serve.answers.lexicon import english
from knowledge_platform.serve.answers.values import Value, same, values

_WORD = r"[\w$€£%.,:'\u2019&/#@-]+"
_NAMEISH = r"[\w$€£%#@&'\u2019-]+"
#: A value that runs to the end of its clause ("the monthly report cadence").
_END = (
    r"(?=\s+(?:from|since|as|because|with|for|in|on|at|until|effective|starting|going|and|"
    r"but|so|instead|rather|who|which|that)\b|[.,;:!?](?=\s|$)|[()]|$)"
)
_OLD = r"(?P<old>[^;!?()]+?)" + _END
_NEW = r"(?P<new>[^;!?()]+?)" + _END
_BEFORE = rf"(?P<new>(?:{_NAMEISH}\s+){{0,3}}?{_NAMEISH})\s+"
#: What "not" names as the old value closing a statement of change: a name of up to three
#: words, a figure with its unit, or a frequency.
_NOT_OLD = (
    r"(?P<old>(?-i:(?:[A-Z][\w'-]*\s+){0,2}[A-Z][\w'-]*)\b|"
    r"[$\u20ac\u00a3]?\d[\d,.:]*(?:%|\s*(?:pt|px|ms|days?|weeks?|months?|hours?|"
    r"minutes?|mins?|hrs?)\b)?|(?:daily|weekly|fortnightly|monthly|quarterly|yearly|"
    r"annually)\b)"
)
#: A name of up to four words, "&" between them ("Pomfret & Dray"); not "is"/"was".
_NAMED = r"(?-i:(?:(?:[A-Z][\w'-]*|&)\s+){0,3}[A-Z][\w'-]*)"
#: Each pattern marks a span of the sentence as old (group `old`) and, where it says, the
#: value that replaced it (group `new`); each comes with the words it cannot match without,
#: searched first (a pattern that starts at every word costs ~0.2 ms on a long sentence).
_SPANS: list[tuple[re.Pattern[str], re.Pattern[str]]] = [
    (re.compile(trigger, re.I), re.compile(p, re.I))
    for trigger, p in (
        # a struck-through value before its successor: "Price: ~~$68~~ $74"
        (r"~~", r"~~(?P<old>[^~\n]{1,60})~~(?=[ \t]*[^\s~|;])"),
        # "from X to Y", "from X over to Y" (X: up to 6 words)
        (
            r"\bfrom\s",
            rf"\bfrom\s+(?P<old>(?:{_WORD}\s+){{0,5}}?{_WORD})\s+(?:over\s+)?(?:to|into|->|→)\s+"
            rf"{_NEW}",
        ),
        # "replaced X with/by Y", "swapped X for Y"
        (
            r"\b(?:replac|swap|exchang)",
            rf"\b(?:replac(?:ed|ing|e)\s+(?!by\b|with\b)(?P<old>(?:{_WORD}\s+){{0,5}}?{_WORD})\s+"
            rf"(?:with|by)|"
            rf"(?:swapp(?:ed|ing)|swap|exchang(?:ed|e))\s+(?P<old2>(?:{_WORD}\s+){{0,5}}?{_WORD})\s+"
            rf"for)\s+{_NEW}",
        ),
        # "Y replaces/supersedes X", "Y instead of X", "Y takes over (the account) from X": the
        # old value follows, the new precedes
        (
            r"\b(?:replaces|supersedes|succeeds|t(?:akes|ook|aking|aken)\s+over|instead\s+of|in\s+"
            r"place\s+of|rather\s+than|will\s+replace)\s",
            _BEFORE + r"(?:has\s+|have\s+)?(?:replaces|supersedes|succeeds|will\s+replace|"
            r"t(?:akes|ook|aking|aken)\s+over\s+"
            r"(?:[\w&'-]+\s+){0,5}?from|instead\s+of|in\s+place\s+of|rather\s+than)\s+" + _OLD,
        ),
        (
            r"\b(?:supersede|replaced|succeeded|took\s+over|retire|instead\s+of|in\s+place\s+of)",
            # ... not a passive one: "Laptops are replaced every 3 years" says how often
            r"\b(?:supersedes|(?<!\bis\s)(?<!\bare\s)(?<!\bwas\s)(?<!\bwere\s)(?<!\bbe\s)"
            r"(?<!\bbeen\s)(?<!\bget\s)(?<!\bgets\s)"
            r"(?:superseded|replaced|succeeded)|took\s+over\s+(?:[\w&'-]+\s+){0,5}?"
            r"from|retires|retired|instead\s+of|in\s+place\s+of)\s+(?!by\b|with\b)" + _OLD,
        ),
        # "X was replaced/superseded/succeeded by Y": the subject is the old value
        (
            r"\b(?:replaced|superseded|succeeded|swapped\s+out)\s+(?:by|with)\s",
            rf"(?P<old>(?:{_NAMEISH}\s+){{0,3}}{_NAMEISH})\s+(?:was|were|has\s+been|have\s+been|"
            r"had\s+been|is|are|got|will\s+be)\s+(?:replaced|superseded|succeeded|swapped\s+out)\s+"
            r"(?:by|with)\s+" + _NEW,
        ),
        # "21 days (previously 14 days)", "Lee, formerly Dana", "up from 14 days"
        (
            r"\b(?:previously|formerly|up\s+from|down\s+from|used\s+to\s+be)\s|"
            r"\(\s*(?:(?:it|they)\s+)?(?:was|were)\s|[,;]\s*was\s+[$\u20ac\u00a3\d]|"
            r"[,;\u2014\u2013-]\s*(?:it|they)\s+(?:was|were)\s+[$\u20ac\u00a3\d]",
            r"(?:[(,]\s*|\b(?:was|were|is|are)\s+)(?:previously|formerly)\s+"
            + _OLD
            # "New rate: $1,150/mo, was $890", "up to $245 (they were $225)": a figure after
            # "was" is the old one
            + r"|(?:\(\s*(?:(?:it|they)\s+)?(?:was|were)\s+|[,;]\s*was\s+(?=[$\u20ac\u00a3\d])|"
            r"[,;\u2014\u2013-]\s*(?:it|they)\s+(?:was|were)\s+(?=[$\u20ac\u00a3\d]))"
            + _OLD.replace("?P<old>", "?P<old3>")
            + r"|\b(?:(?:up|down)\s+from|used\s+to\s+be)\s+"
            + _OLD.replace("?P<old>", "?P<old2>"),
        ),
        # "raised to $5,000 from $3,000", "moved the review to Thursday from Tuesday", "raised
        # to $42,000 (from $38,500)"
        (
            r"\bto\s.*\bfrom\s",
            r"\b(?:rais|increas|cut|reduc|lower|mov|chang|switch|bump|extend|shorten|upgrad|"
            r"downgrad|push|went\s+(?:up|down))\w*\s+(?:[\w&'-]+\s+){0,3}?to\s+"
            rf"(?P<new>(?:{_WORD}\s+){{0,5}}?{_WORD})\s+(?:\(\s*)?from\s+" + _OLD,
        ),
        # "moved the sites off X", "migrating away from X"
        (
            r"\b(?:off|away\s+from)\s",
            r"\b(?:mov|migrat|switch|transferr?|port)\w*\s+(?:[\w&'-]+\s+){0,5}?(?:off|away\s+from)\s+"
            + _OLD,
        ),
        # "no longer X", "stopped using X", "dropped X"
        # ... "No more Wednesday 07:30" (not "no more than 5": a limit)
        (
            r"\b(?:no\s+longer|no\s+more|stopped\s+using|dropped|retired|discontinued|"
            r"phased\s+out)\s",
            r"\b(?:no\s+longer(?:\s+\w+)?|no\s+more(?!\s+than\b)|stopped\s+using|dropped|retired|"
            r"discontinued|phased\s+out)\s+" + _OLD,
        ),
        # "Dana handed the Acme account over to Lee", "Dana is handing the desk to Lee": the one
        # who hands over is the old value
        (
            r"\bhand(?:ed|s|ing)\s",
            r"(?P<old>(?:(?!(?:is|was)\s)[A-Z][\w'-]*\s+){0,3}(?!(?:is|was)\s)[A-Z][\w'-]*)\s+"
            r"(?:is\s+|was\s+)?"
            r"hand(?:ed|s|ing)\s+"
            r"(?:[\w&'-]+\s+){0,6}?(?:over\s+)?to\s+" + _NEW,
        ),
        # "Ilse signs off from now on, not Oona", "idle sites now get torn down after 18 days,
        # not 40", "starting next week it is Wednesday 6:30, not Monday", "It's 70 cents a
        # mile, not 72": a name or a figure after "not" closing a statement of change, or a
        # sentence that says what it is, is the one it replaced
        (
            r"(?:\b(?:from\s+now\s+on|from\s+today|going\s+forward|now|starting|correction)\b|"
            r"^\W*it(?:'|\u2019)?s\b).*,"
            r"\s*not\s",
            r"(?:\b(?:from\s+now\s+on|from\s+today|going\s+forward|now|starting|correction)\b|"
            r"^\W*it(?:'|\u2019)?s\b).*,"
            r"\s*not\s+" + _NOT_OLD,
        ),
        # "Correction: it's 8 cases not 10": a correction needs no comma before its "not"
        (r"\bcorrection\b.*\snot\s", r"\bcorrection\b.*\snot\s+" + _NOT_OLD),
        # "Ed planning call moves Tue 14:45 -> Wed 11:00": the words before an arrow are old
        # ... not a shift's hand-over ("Night → day (Colm → Maud)"): the same shifts each day
        (
            r"->|\u2192|=>",
            r"(?<![\w-])(?!(?:night|day|days|nights|morning|afternoon|evening|am|pm|early|late)\s*"
            r"(?:->|\u2192|=>))"
            rf"(?P<old>(?:{_WORD}\s+){{0,2}}{_WORD})\s*(?:->|\u2192|=>)\s*{_NEW}",
        ),
        # "Clipwatch contract ends 10 July and we're not renewing": what is not renewed (or
        # moved off) is the old one; a contract that merely ends may be renewed
        (
            r"\b(?:contract|subscription|licen[cs]e)\s+(?:ends|expires|runs\s+out|lapses)\b.*"
            r"\b(?:not\s+renewing|won't\s+renew|moving|switching|migrating)\b",
            r"(?P<old>(?-i:(?:[A-Z][\w'-]*\s+){0,2}[A-Z][\w'-]*))(?:'s)?\s+(?:contract|"
            r"subscription|licen[cs]e)\s+(?:ends|expires|runs\s+out|lapses)\b",
        ),
        # "Obadiah is off it", "Ysmay comes off the account": the one who is off is old
        (
            r"\boff\s",
            r"(?P<old>(?:(?!(?:is|was)\s)[A-Z][\w'-]*\s+){0,2}[A-Z][\w'-]*)\s+(?:is|are|was|"
            r"were|'s|\u2019s|goes|went|comes|came)\s+off\s+(?:it|them|the\s+account)\b",
        ),
        # "Ysmay moves across to run Hollowfen", "Ines steps down": the one who moves on
        (
            r"\b(?:mov|step|roll)\w*\s+(?:across|on|down|back|away|off)\b",
            r"(?P<old>(?:(?!(?:is|was)\s)[A-Z][\w'-]*\s+){0,2}[A-Z][\w'-]*)\s+(?:is\s+|was\s+)?"
            r"(?:moves|moved|moving|steps|stepped|stepping|rolls|rolled|rolling)\s+"
            r"(?:across|on|down|back|away|off)\b",
        ),
        # "Amos Thackeray left the museum in May", "Kofi has left": who left is old (not one
        # who left a note, or left early)
        (
            r"\b(?:left|quit|departed)\b",
            r"(?P<old>(?-i:(?:(?!(?:It|He|She|They|We|I|You|This|That)\s)[A-Z][\w'-]*\s+){0,2}"
            r"(?!(?:It|He|She|They|We|I|You|This|That)\b)[A-Z][\w'-]*))\s+(?:has\s+|had\s+)?"
            r"(?:left|quit|departed)\b(?!\s+(?:a|an|some|it|them|him|her|us\s+a|notes?|comments?|"
            r"feedback|messages?|voicemails?|word|early|late|off|out|over|behind|the\s+(?:door|"
            r"lights?|room|keys?|files?|call|meeting))\b)",
        ),
        # "Tessaly is out, Pomfret & Dray is in": what is out is old, what is in is new
        (
            r"\bis\s+out\b.*\bis\s+in\b",
            rf"(?P<old>{_NAMED})\s+(?:is|are)\s+out\s*[,;]\s*(?P<new>{_NAMED})\s+(?:is|are)\s+in\b",
        ),
        # "Lingodock is out, we use Scribeway now", "Tessaly is out - we're on Pomfret now"
        (
            r"\bis\s+out\b.*\b(?:use|using|on|with)\b",
            rf"(?P<old>{_NAMED})\s+(?:is|are)\s+out\s*[,;:\u2014\u2013-]\s*(?:we(?:'re|\u2019re|\s+are)?"
            rf"\s+(?:now\s+)?(?:use|using|on|with|going\s+with|go\s+with))\s+(?P<new>{_NAMED})",
        ),
        # "TimeSlate is out as of Friday 7/31", "Lakeshore Reporting is out for anything new":
        # what is out is old
        (
            r"\bis\s+out\s+(?:as\s+of|from|after|since|for)\s",
            rf"(?P<old>{_NAMED})\s+(?:is|are)\s+out\s+(?:as\s+of|from|after|since|"
            r"for\s+(?:anything|all)\s+new)\b",
        ),
        # "we're off frameproof", "we've come off Ledgerly": what we are off is old
        (
            r"\boff\s",
            r"\b(?:we're|we\s+are|we\u2019re|we've\s+(?:come|moved|gone)|we\s+(?:came|moved|went))"
            r"\s+off\s+(?!(?:it|them|the\s+account)\b)" + _OLD,
        ),
        # "we're done with Pisgah Roll-Off": what we are done with is old
        (
            r"\bdone\s+with\s",
            r"\b(?:we're|we\s+are|we\u2019re)\s+(?:all\s+)?done\s+with\s+" + _OLD,
        ),
        # "the 8% on the rate card is old", "the Tuesday slot is out of date": what is old
        (
            r"\b(?:is|are)\s+(?:now\s+)?(?:old|outdated|out\s+of\s+date|stale|obsolete)\b",
            rf"(?P<old>{_NAMEISH}(?:\s+{_NAMEISH}){{0,2}}?)(?:\s+(?:on|in)\s+the\s+[\w-]+(?:\s+[\w-]+)?)?"
            r"\s+(?:is|are)\s+(?:now\s+)?(?:old|outdated|out\s+of\s+date|stale|obsolete)\b",
        ),
        # "X is no longer ...": the subject before it is what stopped
        (
            r"\bno\s+longer\b",
            rf"(?P<old>\b{_WORD}(?:\s+{_WORD}){{0,2}})\s+(?:is|are|was|were)\s+no\s+longer\b",
        ),
    )
]
#: "Thaddeus Mbeki starts today as client support lead", "Ines is now head of design",
#: "Ravi takes over as account director": who takes a role (the holder before is not named)
_ROLES = rf"{ROLE_NOUNS}|head\s+of\s+[\w-]+"
_ROLE_TAKEN = re.compile(
    r"(?P<new>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}))\s+(?:(?:is|was)\s+now|"
    r"(?:starts|started|starting)(?:\s+today|\s+on\s+\w+)?\s+as|becomes|became|"
    r"t(?:akes|ook)\s+over(?:\s+from\s+(?:him|her|them))?\s+as|steps?\s+up\s+as|"
    r"(?:is|was)\s+(?:our|the)\s+new)\s+"
    rf"(?:(?:our|the|a|an|new)\s+)*(?P<role>(?:[\w-]+\s+){{0,3}}?(?:{_ROLES}))\b",
    re.I,
)
#: "EB moved the render farm to stratocast render", "we've switched our ESP over to Postmarque":
#: what now does a job (the render farm) names what it moved to; what else an older text says
#: does that job held it before
_MOVED_TO = re.compile(
    r"\b(?:moved|switched|migrated|ported|transferred|moving|switching|migrating)\s+"
    r"(?:the|our|all\s+(?:the\s+|our\s+)?)\s*(?P<role>(?:[A-Za-z][\w-]*\s+){0,2}?[A-Za-z][\w-]*)\s+"
    r"(?:over\s+)?(?:to|onto|into)\s+(?P<new>(?:[\w&'-]+\s+){0,2}?[\w&'-]+)"
    r"(?=\s*(?:$|[.,;:!?(\u2014\u2013]|\s-\s|\s(?:as|from|for|on|this|today|now|starting|since)\b))",
)
#: "Dario now owns Tessellate", "Ines now runs the Saltmarsh account": who now holds an
#: account (the role: the account's name); whom an older text names as its lead held it
_NOW_HOLDS = re.compile(
    r"(?P<new>(?-i:[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}))\s+now\s+(?:owns|runs|leads|manages|"
    r"handles|looks\s+after)\s+(?:the\s+)?(?P<role>(?-i:[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*){0,2}))",
    re.I,
)
_HOLDER_TITLE = rf"(?:{ROLE_NOUNS}|AD|AM|PM)"


def _titled(name: str, text: str) -> bool:
    """Whether `text` gives `name` a title beside it: "Account lead: Ysmay Halvorsen",
    "Ysmay Halvorsen, account lead" (not "lead routing, Thorvald looking at ...")."""
    said = re.escape(name)
    return bool(
        re.search(rf"\b{_HOLDER_TITLE}\W{{1,3}}{said}\b", text, re.I)
        or re.search(
            rf"\b{said}\W{{1,3}}(?:(?:our|the|is|as)\s+)?(?:\w+\s+)?{_HOLDER_TITLE}\b", text, re.I
        )
    )


_ARTICLE = re.compile(r"^(?:the|a|an|our|their|its|his|her)\s+", re.I)
_FILLER = frozenset({"the", "a", "an", "our", "their", "its", "it", "them", "this", "that"})
_PRONOUNS = frozenset({"we", "they", "he", "she", "i", "you", "there", "these", "those"})


@dataclass(frozen=True)
class Change:
    """What a sentence says changed: its old values, the values it states now, and the
    words of each old value as written ("booked appointments per visitor")."""

    old: tuple[Value, ...]
    new: tuple[Value, ...]
    old_text: tuple[str, ...] = ()
    #: the words of the value that replaced the old one, where the sentence says
    new_text: tuple[str, ...] = ()
    #: a role someone takes ("client support lead" of "Thaddeus starts today as client
    #: support lead"): whoever else a text names in it held it before
    role: str = ""
    #: the role is an account someone now holds: an older text names its holder by a title
    #: ("Account lead: Ysmay Halvorsen"), not by being named beside it ("... after the
    #: Datavein pass")
    titled: bool = False

    @property
    def says_change(self) -> bool:
        return bool(self.old or self.old_text or self.role)

    def holders(self, text: str, heading: str = "") -> list[Value]:
        """The people `text` names in this change's role, other than the one who takes it;
        the role may be named by the `heading` `text` sits under ("Account lead: Ysmay
        Halvorsen." under "Tessellate Analytics", for "Dario now owns Tessellate")."""
        if not self.role or not re.search(
            rf"\b{re.escape(self.role)}\b", " ".join(f"{heading} {text}".split()), re.I
        ):
            return []
        # "stratocast render" took the render farm: "Kilnhouse Render" held it
        taker = {w.lower() for t in self.new_text for w in t.split()} - set(self.role.split())
        return [
            v
            for v in values(text)
            if v.kind == "name"
            and not taker & set(v.norm.split())
            and v.text[:1].isupper()
            and (not self.titled or _titled(v.text, text))
        ]

    def makes_old(self, text: str) -> bool:
        """Whether `text` states a value this change says is old: one of its typed values,
        or its words as written (two or more words, or one name, code or number)."""
        return bool(self.old_in(text))

    def old_in(self, text: str) -> list[Value]:
        """The values of `text` this change says are old (words as written: kind phrase)."""
        found = values(text)
        typed = [v for v in found if any(same(o, v) for o in self.old)]
        # in bold or code, a word is still written: "**Klaxo** — paging for on-call"
        low = f" {' '.join(text.lower().replace('*', ' ').replace('`', ' ').split())} "
        said = [
            Value("phrase", phrase.lower(), phrase)
            for phrase in self.old_text
            # ... as a list labels it, too ("Redlinery: PDF markup")
            if any(f" {phrase.lower()}{end}" in low for end in (" ", ".", ",", ":", ";"))
        ]
        # a terse log hands over by initials: "RS handing Cobbleroot over" names Runa Skovgaard
        said += [
            Value("name", name.lower(), name)
            for phrase in self.old_text
            if _INITIALS.fullmatch(phrase)
            for name in _FULL_NAME.findall(text)
            if "".join(w[0] for w in name.split()) == phrase
        ]
        return typed + said + self.holders(text)


#: "mireya takes over vantcliffe from cuthbert": the one a hand-over is from, in small letters
#: as a chat writes it, is a name even when it is also a word of the vocabulary
_FROM_WHOM = re.compile(
    r"\bt(?:akes|ook|aking|aken)\s+over\s+(?:[\w&'-]+\s+){0,5}?from\s+(?P<old>[a-z][a-z'-]+)"
    r"(?=\s+(?:as|on|from|in|at|for|and|but|so|who|which|because|starting|effective)\b|"
    r"[.,;:!?)]|\s*$)"
)
#: What a hand-over may be "from" that is nobody: a day, and the words around one.
_NOT_WHOM = CALENDAR | _FILLER | _PRONOUNS | {"now", "then", "here", "next", "last", "him", "her"}
_INITIALS = re.compile(r"[A-Z]{2,3}")
_FULL_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+){1,2}\b")


def _spans(text: str, group: str) -> list[tuple[int, int]]:
    """Every span the patterns give `group` (`old` also covers the alternatives `old2`,
    `old3`)."""
    found: list[tuple[int, int]] = []
    for trigger, pattern in _SPANS:
        if not trigger.search(text):
            continue
        for m in pattern.finditer(text):
            for name in (group, f"{group}2", f"{group}3"):
                if m.groupdict().get(name) is not None and m.span(name) not in found:
                    found.append(m.span(name))
    return found


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
    restated = values(
        f"{old.text} {unit.text.split(None, 1)[-1]}"
        if unit.kind == "duration"
        else f"{old.text}%"
        if unit.kind == "percent"
        else f"{unit.text[0]}{old.text}"
    )
    return next((v for v in restated if v.kind == unit.kind), old)


def may_state_change(text: str) -> bool:
    """Whether `text` may state a change: a pattern reads part of it as old, or someone
    takes a role (cheap: no values are read)."""
    return (
        bool(_spans(text, "old"))
        or _ROLE_TAKEN.search(text) is not None
        or _MOVED_TO.search(text) is not None
    )


def change_in(text: str) -> Change:
    """The old and new values of `text` (no old ones: it states no change it can name)."""
    found = values(text)
    spans = _spans(text, "old")
    if spans:
        new = [v for v in found if not _inside(v, text, spans)]
        old = [_with_unit(v, new) for v in found if _inside(v, text, spans)]
        words = [_phrase(text[a:b]) for a, b in spans]
        # "Kelsey moves to the parts counter from Monday the 14th": a day after "from", with
        # no day or time the change is to, is the day it starts, not one it changed from
        starts = [
            (a, b)
            for a, b in spans
            if re.search(r"\bfrom\s+$", text[:a], re.I) and _only_days(text[a:b])
        ]
        if starts and not any(v.kind in _WHEN for v in new):
            old = [v for v in old if not _inside(v, text, starts)]
            words = [w for (a, b), w in zip(spans, words, strict=True) if (a, b) not in starts]
        later = [_phrase(text[a:b]) for a, b in _spans(text, "new")]
        whom = {m["old"] for m in _FROM_WHOM.finditer(text) if m["old"] not in _NOT_WHOM}
        change = Change(
            tuple(old),
            tuple(new),
            tuple(dict.fromkeys(w for w in words if w in whom or _telling(w))),
            tuple(dict.fromkeys(w for w in later if w)),
        )
        if change.says_change:
            return change
    # no old value named ("takes over from him as issue checker"): a role taken, if any, or
    # a job moved to something new ("moved the render farm to stratocast render")
    # or an account someone now holds ("Dario now owns Tessellate")
    taken = _ROLE_TAKEN.search(text) or _MOVED_TO.search(text)
    held = None if taken else _NOW_HOLDS.search(text)
    if (by := taken or held) is not None:
        role = " ".join(by["role"].lower().split())
        return Change((), tuple(found), (), (by["new"],), role, titled=held is not None)
    return Change((), tuple(found))


#: The kinds of value that say which day; and those a day may be changed to.
_DAYS = frozenset({"weekday", "date"})
_WHEN = _DAYS | {"time"}


def _only_days(phrase: str) -> bool:
    """Whether `phrase` says nothing but a day ("Monday the 14th", "1 June")."""
    found = values(phrase)
    return (
        bool(found)
        and all(v.kind in _DAYS for v in found)
        and not re.search(
            r"\b(?!(?:the|of|on|a)\b)[a-z]{4,}\b", re.sub(r"\b\w+day\b|\b\d+\w*\b", " ", phrase)
        )
    )


def _phrase(text: str) -> str:
    return _ARTICLE.sub("", " ".join(text.split()).strip(" .,;:'\"")).strip()


def _telling(phrase: str) -> bool:
    """Words specific enough to recognise elsewhere: two or more words beyond articles and
    pronouns, or one that is a name, code or number."""
    words = [w for w in phrase.split() if w.lower() not in _FILLER]
    if len(words) != 1:
        return len(words) >= 2
    word = words[0]
    # a capitalised word opening the sentence ("Hotjar was replaced by Clarity") is a name
    # there too, unless it is a pronoun
    # so is one in small letters that is no English word ("we're off frameproof")
    return (
        bool(values(phrase))
        or (word[:1].isupper() and word.lower() not in _PRONOUNS)
        or (word.isalpha() and word.islower() and word not in english())
    )


def old_phrases(text: str) -> list[str]:
    """The words a sentence says were superseded ("the monthly report cadence")."""
    return [" ".join(text[a:b].split()).rstrip(".,;:") for a, b in _spans(text, "old")]
