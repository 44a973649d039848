"""Words that name the same thing at work, for reading a question against a sentence: a
question that says "headline metric" is about the sentence that says "primary KPI", one
that says "sign-in details" about the one that says "credentials".

The sentence model alone does not carry these (all-MiniLM-L6-v2 puts "metric" and "KPI" at
a cosine of 0.22, below "email" and "contact" at 0.58), so a reworded question lost its
lexical share and was refused. Each group below is a set of words used interchangeably in
an agency's or any office's writing; a word of the question counts as found in a sentence
that holds any word of its group. Groups are kept narrow: a word with an everyday second
meaning ("key", "sync", "call") is left out, since a wrong equivalence turns a near miss
into an answer. Like a search engine's synonym file, it is plain data: one group per line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache, lru_cache

from knowledge_platform.sparse import SparseEncoder

_terms = SparseEncoder().terms

GROUPS = """
kpi metric measure indicator
primary main headline principal
login credentials password passwords
fix fixes fixed fixing repair repairs repaired reset resets resetting
outage incident downtime
acknowledge acknowledged acknowledges acknowledging ack acks acked
reefer reefers refrigerated chilled
experiment experiments test tests trial trials
head lead leader chief
client customer
vendor supplier
invoice invoicing billing
pay payable paid payment payments
holiday vacation leave pto
expense expenses reimbursement spending
salary compensation wage wages
allowance entitlement
laptop computer
contract agreement sow
repository repo
release deploy deployment
bug defect
document doc
email mail
hire hiring recruit recruiting join joiner joiners starter starters newcomer newcomers
win wins won winner winners winning beat beats outperformed outperforms
site sites website websites
approval approve approved approves
replace replaced replacement refresh refreshed
offsite retreat
rule policy guideline
limit cap threshold ceiling maximum max largest cutoff
minimum smallest fewest
target goal aim objective
dev development developer
system engine platform software
seat seats licence licences license licenses
staff employee employees
timesheet timesheets timekeeping
traffic sessions visits
helpdesk servicedesk
decide decided decides decision decisions
respond responds responded responding response responses
pound pounds lb lbs
gallon gallons gal gals
severance separation
percent percentage pct
volunteer volunteers volunteering vol vols
character characters char chars
effective implemented
renew renews renewed renewal renewals
arrive arrives arrived arrival arrivals
production prod
database databases db
launch launches launched ship ships shipped
trial trials trialling trialing pilot piloting
utilisation utilization billable chargeable
pantone pms
hour hours hr hrs
deliver delivers delivered delivery
people attendees attendee headcount delegates guests participants
dock docks quay quays wharf pier
operation operations op ops
waste trash rubbish garbage refuse
pickup pickups collection collections collect collects collected
unit units pcs pc piece pieces qty quantity
appointment appointments appt appts
minute minutes mins
surgery surgeries surg
manager mgr
department dept
average averages avg
week weeks wk wks
year years yr yrs
quarter quarters qtr qtrs
technician technicians tech techs
temperature temp temps
"""
#: The forms of irregular verbs, which the stemmer leaves apart ("What did it come down
#: to?" of "it came down to 0.9 s"): one verb a line, read like a group.
IRREGULAR = """
come came
go went gone
run ran
give gave given
take took taken
bring brought
buy bought
sell sold
send sent
pay paid
hold held
meet met
choose chose chosen
begin began begun
write wrote written
tell told
grow grew grown
find found
break broke broken
lose lost
catch caught
rise rose risen
fall fell fallen
"""

#: What a new client is called when it signs ("new logos signed"), and the verbs of signing.
_SIGNED = r"(?:clients?|customers?|logos?|accounts?|business)"
_SIGNING = r"(?:sign(?:ed)?|w[io]n|land(?:ed)?)"
#: Phrases written as two words or with a hyphen, read as the one word of their group.
#: ("the test log in the client folder" is not a log-in: only "sign in" takes a space)
_PHRASE_WORDS = {
    # "locked out of Plotline": out of its login
    "login": r"\bsign(?:-|\s)?(?:in|on)s?\b|\blog-?(?:in|on)s?\b|\blocked\s+out\b",
    # "who can sort my login?", "sort it out": who fixes it (not "sort by date")
    "fix": r"\bsort(?:s|ed|ing)?\s+(?:(?:it|this|that|them|my|your|our|the)\b\s*)?"
    r"(?:[a-z]+\s+)?out\b|\bsort(?:s|ed|ing)?(?=\s+(?:my|your|our)\b)",
    "leave": r"\btime[-\s]off\b",
    # "Which bay came out ahead?": which won
    "win": r"\b(?:came|come|comes|coming)\s+out\s+(?:ahead|on\s+top|best|in\s+front)\b",
    "cutoff": r"\bcut[-\s]off\b",
    # "When did the 10% threshold take effect?": when it was effective, implemented
    "effective": r"\bt(?:ake|akes|ook|aking|aken)\s+effect\b|\bin\s+effect\b",
    # "The advent calendar went to press today": off to the printer
    "printer": r"\b(?:went|go|goes|going|gone|sent|send|sends)\s+to\s+press\b",
    # "Who gives the OK on ...?", "sign-off", "who signs things off", "need Imogen to OK
    # it": who approves (not read as "sign", which is a client's signing)
    "approve": r"\bsign(?:s|ed|ing)?[-\s](?:(?:[a-z]+\s+){0,2}?)off\b|"
    r"\b(?:give|gives|gave|giving|get|gets)\s+(?:the\s+)?"
    r"(?:ok|okay|go-ahead|green\s+light)\b|(?<=\bwhose\s)(?:ok|okay|go-ahead|sign-?off)\b|"
    r"\bto\s+(?:ok|okay)\s+(?:it|this|that|them)\b",
    "ceo": r"\bchief\s+executive(?:\s+officer)?\b",
    # the abbreviation a measure or a meeting is written as
    "roas": r"\breturn\s+on\s+ad\s+spend\b",
    "cpl": r"\bcost\s+per\s+lead\b",
    "cpa": r"\bcost\s+per\s+acquisition\b",
    "ctr": r"\bclick[-\s]through\s+rate\b",
    "aov": r"\baverage\s+order\s+value\b",
    "wip": r"\bwork[-\s]in[-\s]progress\b",
    "esp": r"\bemail\s+service\s+provider\b",
    "sov": r"\bshare\s+of\s+voice\b",
    "mql": r"\bmarketing[-\s]qualified(?:\s+leads?)?\b",
    "sql": r"\bsales[-\s]qualified(?:\s+leads?)?\b",
    "helpdesk": r"\b(?:support|help|service)[-\s]desk\b",
    # "Who looks after Cobbleroot?": who manages it; "mireya takes over vantcliffe": who
    # manages it from then on; "Dario now owns Tessellate": who manages it
    "manage": r"\blook(?:s|ed|ing)?\s+after\b|\bt(?:ake|akes|ook|aking|aken)\s+over\b|"
    r"\bowns\b|\bowned\s+by\b",
    "ttfb": r"\btime\s+to\s+first\s+byte\b",
    "ooh": r"\bout[-\s]of[-\s]hours\b",
    # "before I need a life jacket on?": a PFD
    "pfd": r"\blife[-\s]?(?:jackets?|vests?)\b|\bbuoyancy\s+aids?\b|"
    r"\bpersonal\s+flotation\s+devices?\b",
    # "What rating do our ear defenders need?": the handbook's "Hearing protection"
    "hearing": r"\bear\s*(?:defenders?|protect(?:ion|ors?)|plugs?|muffs?)\b",
    # "Which person at Calloway do we deal with day to day?": the client's contact
    "contact": r"\bdeal(?:s|t|ing)?\s+with\b(?:\s+day[-\s]to[-\s]day\b)?|"
    r"\bday[-\s]to[-\s]day\b|"
    # "who on the museum side do we send cuts to?": their contact ("on our side" is ours)
    r"(?<=\w\s)(?<!\bour\s)(?<!\bmy\s)(?<!other\s)(?<!\bsafe\s)(?<!right\s)(?<!wrong\s)"
    r"(?<!\bplus\s)(?<!\bflip\s)(?<!\bthis\s)\bside\b(?!-)",
    # a launch said as going live ("the go-live date", "when is the app going live")
    "launch": r"\bgo(?:es|ing)?[-\s]live\b|\bwent\s+live\b",
    "annual": r"\b(?:a|per|each)\s+year\b",
    # "Which tool did we try out?": a trial; "Any clients won this quarter?": a signing
    "trial": r"\b(?:try|tries|tried|trying)\s+out\b",
    # "Did anything go out the door yesterday?": what was delivered, sent out or issued
    "deliver": r"\b(?:go|goes|went|gone|going)\s+out\b(?:\s+the\s+door\b)?"
    r"|\bsent\s+out\b|\bissued\b",
    "sign": r"\bwon(?=\s+(?:\w+\s+)?(?:clients?|business|accounts?|deals?)\b)|"
    r"(?<=clients\s)won\b|(?<=client\s)won\b|(?<=business\s)won\b|(?<=accounts\s)won\b|"
    r"\b(?:came|come|comes|coming)\s+on\s+board\b"
    # "Any new clients signed?", "new logos won", "did we sign up anyone new?": a signing
    # ("Signed Brindle & Yew", "Ashbrook Ledger signed"), whatever new thing it names
    rf"|\bnew\s+{_SIGNED}\s+(?:(?:did|have|has)\s+(?:we|you)\s+)?{_SIGNING}\b(?:\s+up\b)?"
    rf"|\b{_SIGNING}(?:\s+up)?\s+(?:any(?:one|body)?\s+|a\s+)?new(?:\s+{_SIGNED})?\b"
    r"|\b(?:any(?:one|body)|someone)\s+new\s+sign(?:ed)?\b(?:\s+up\b)?",
    # a new colleague's first day, as a log says it
    "join": r"\bstart(?:s|ed|ing)?(?=\s+(?:today|tomorrow|on\s|as\s|\d|with\s+us\b))"
    r"|\bfirst\s+(?:day|morning|week)\b"
    r"|\bwelcome(?:\s+aboard|\s+to\s+the\s+team|(?=,?\s+(?-i:[A-Z])))",
}
#: The words a phrase is written with, for a search (a joiner's log line says "starts today"
#: or "welcome", never "join").
_PHRASE_SEARCH = {
    "join": ("starts", "welcome", "first"),
    "sign": ("signed",),
    "deliver": ("delivered", "issued"),
    "manage": ("owns",),
}
#: What each abbreviation stands for, for a search of a question that abbreviates it.
_SPELLED = {
    "roas": "return on ad spend",
    "cpl": "cost per lead",
    "cpa": "cost per acquisition",
    "ctr": "click-through rate",
    "aov": "average order value",
    "wip": "work in progress",
    "esp": "email service provider",
    "sov": "share of voice",
    "ttfb": "time to first byte",
    "mql": "marketing qualified lead",
    "sql": "sales qualified lead",
    "ooh": "out of hours",
}
#: Phrases a text may write as the abbreviation instead: a search for one also looks for it.
_ABBREVIATIONS = frozenset({"ceo", *_SPELLED})


def abbreviates(word: str) -> bool:
    """Whether `word` is an abbreviation a text may spell out ("OOH": "out-of-hours"), so
    no name a passage must write as it is."""
    return word.lower() in _ABBREVIATIONS


#: Phrases also read as their own words.
_KEPT = frozenset({"join", "launch"})
#: One pass over a text: the name of the group that matched is the word it is read as.
#: Each phrase begins at a word's start (by `\b` or after a space), so the whole pattern
#: does: the engine then skips the inside of words at once (half the time of a search's pass).
_PHRASES = re.compile(
    r"\b(?:" + "|".join(f"(?P<{w}>{p})" for w, p in _PHRASE_WORDS.items()) + ")", re.I
)


@cache
def _raw_groups() -> dict[str, tuple[str, ...]]:
    """stemmed word -> the words of its group (itself included) as written."""
    out: dict[str, tuple[str, ...]] = {}
    for line in (GROUPS + IRREGULAR).strip().splitlines():
        for word in line.split():
            for t in _terms(word):
                out[t] = tuple(dict.fromkeys((*out.get(t, ()), *line.split())))
    return out


@cache
def _groups() -> dict[str, frozenset[str]]:
    """stemmed word -> the stemmed words of its group (itself included)."""
    return {t: frozenset(x for w in raw for x in _terms(w)) for t, raw in _raw_groups().items()}


def phrases(text: str) -> str:
    """`text` with "sign-in", "log in", "time off", "chief executive", "return on ad spend"
    written as their group's word."""
    return _PHRASES.sub(_read_as, text)


def abbreviated(text: str) -> str:
    """`text` and the abbreviations of the phrases it spells out ("work in progress" ->
    "WIP"), and the phrases its abbreviations stand for ("SOV" -> "share of voice"), for a
    search: a page that says "WIP meeting" shares no word with the phrase."""
    found = dict.fromkeys(
        m.lastgroup for m in _PHRASES.finditer(text) if m.lastgroup in _ABBREVIATIONS
    )
    said = {w.lower() for w in re.findall(r"\b[A-Za-z]{2,5}\b", text)}
    spelled = [_SPELLED[w] for w in _SPELLED if w in said and w not in found]
    return " ".join([text, *(w.upper() for w in found if w), *spelled])


def synonyms(text: str) -> str:
    """The other words of the groups of `text`'s words ("" when none), for a search: a
    question that says "headline metric" finds the page that says "primary KPI"."""
    groups = _raw_groups()
    have = set(_terms(text))
    matches = list(_PHRASES.finditer(text))  # one pass of the large pattern: `phrases` too
    said, at = [], 0
    for m in matches:
        said += [text[at : m.start()], _read_as(m)]
        at = m.end()
    found = [w for t in _terms("".join([*said, text[at:]])) for w in groups.get(t, ())]
    # a phrase's own word ("approve" of "give the OK"), its abbreviation aside (`abbreviated`)
    found += [w for m in matches if (w := m.lastgroup) and w not in _ABBREVIATIONS]
    found += [w for t in found for w in _PHRASE_SEARCH.get(t, ())]
    found += _run_initials(text)
    return " ".join(dict.fromkeys(w for w in found if not set(_terms(w)) & have))


def _run_initials(text: str) -> list[str]:
    """The initials (lower case) of each run of three or four words of `text` none of which
    is a stopword: "translation management system" finds the page that says "TMS" (two
    words' initials name too many things). `initials` without its runs of two and its
    stopwords, one word stemmed at a time: this runs for every search."""
    tokens = _WORD.findall(text)
    content = [bool(_terms(w)) for w in tokens]
    # ... and of a word of three or four joined by hyphens: "first-time-fix" finds "FTF"
    joined = [parts for t in tokens if 3 <= len(parts := [p for p in t.split("-") if p]) <= 4]
    return [
        *(
            "".join(w[0] for w in tokens[i : i + n]).lower()
            for n in (3, 4)
            for i in range(len(tokens) - n + 1)
            if all(content[i : i + n])
        ),
        *("".join(p[0] for p in parts).lower() for parts in joined),
    ]


def _read_as(found: re.Match[str]) -> str:
    word = found.lastgroup or ""
    # a first day is still a start: "starts today" is read as both
    return f"{word} {found[0]}" if word in _KEPT else word


def widen(have: Iterable[str]) -> set[str]:
    """`have` (stemmed terms) with every word of each one's group."""
    groups = _groups()
    out = set(have)
    for t in list(out):
        out |= groups.get(t, frozenset())
    return out


@lru_cache(maxsize=8192)  # a passage's sentences and list items come back question after question
def words(text: str) -> frozenset[str]:
    """The stemmed terms of `text`, its phrases read as their word, with every word of each
    one's group: what a question's word is looked for in."""
    return frozenset(widen(_terms(phrases(text))))


#: A word written in capitals, two to four letters, maybe plural ("SM", "PMs"); not one
#: after a figure, a time's "PM" ("2 PM").
_CAPITALS = re.compile(r"(?<!\d)(?<!\d\s)\b(?P<caps>[A-Z]{2,4})s?\b")
#: A run of words whose initials such a word may be.
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def capitals(text: str) -> frozenset[str]:
    """The words `text` writes in capitals (lower case)."""
    return frozenset(m["caps"].lower() for m in _CAPITALS.finditer(text))


@lru_cache(maxsize=8192)
def initials(text: str) -> dict[str, frozenset[str]]:
    """The initials (lower case) of each run of two to four words of `text` that neither
    opens nor ends with a stopword, and the words' stemmed terms: "the new stage manager
    rate" gives "sm" -> {"stage", "manag"} (and "ns", "nsm", ...); "run of show" gives "ros"
    and "rs". A text that abbreviates the phrase ("new SM day rate") says what the one that
    spells it out says, and the other way round."""
    tokens = _WORD.findall(text)
    out: dict[str, frozenset[str]] = {}
    for n in (2, 3, 4):
        for i in range(len(tokens) - n + 1):
            run = tokens[i : i + n]
            stems = _terms(" ".join(run))
            whole = len(stems) == n
            if not whole and not (len(stems) >= 2 and _terms(run[0]) and _terms(run[-1])):
                continue
            out.setdefault("".join(w[0] for w in run).lower(), frozenset(stems))
            if not whole:  # a stopword inside: "run of show" is ROS (its initial counted) or RS
                out.setdefault("".join(w[0] for w in run if _terms(w)).lower(), frozenset(stems))
    for token in tokens:  # a word of words joined by hyphens: "first-time-fix" is FTF
        parts = [p for p in token.split("-") if p]
        if 2 <= len(parts) <= 4 and all(p.isalpha() for p in parts):
            out.setdefault("".join(p[0] for p in parts).lower(), frozenset(_terms(" ".join(parts))))
    return out
