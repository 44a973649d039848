"""What a question asks for, read before any sentence is scored: the kind of value an answer
must hold (the attribute: an amount, a person, a day, a duration...), the names it is about
(its subject), the values it gives itself, and its content terms.

A sentence about the right subject that lacks the asked attribute is a near miss: "What is
the budget for the offsite?" is not answered by the sentence that books the offsite's venue.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from knowledge_platform.dating import CHAT_STAMP, MONTHS, NUMBER_WORDS, WEEKDAYS
from knowledge_platform.serve.answers.glossary import abbreviates, phrases, words
from knowledge_platform.serve.answers.lexicon import english
from knowledge_platform.serve.answers.values import (
    HONORIFICS,
    NOT_NAMES,
    Value,
    same,
    short_weekdays,
    values,
)
from knowledge_platform.sparse import SparseEncoder

terms = SparseEncoder().terms

#: Kinds of value (values.Kind) an answer may hold, plus "person" (a name, not the
#: question's own), "condition" ("when X happens"), "reason", "phone" and "place" (a name
#: the sentence is not about, a code, or a place in words: "in the shared drive").
_TEMPORAL: tuple[str, ...] = ("date", "time", "weekday", "frequency", "duration")
#: The roles a question may ask after by name ("the account manager", "billing contact").
ROLE_NOUNS = (
    r"manager|director|lead|owner|contact|coordinator|producer|editor|planner|strategist|approver|"
    r"checker|reviewer"
)
#: Measures written as abbreviations: a question asks a figure of them ("What was
#: Saltmarsh's ROAS last week?").
_FIGURES = ("roas", "roi", "cpa", "cpl", "cpc", "cpm", "ctr", "cvr", "aov", "nps", "ltv", "arpu")
_FIGURES += ("sov", "ttfb", "lcp", "cls")
#: Measures written in capitals: what a question asks about a name, never a name ("What was
#: Corvina's TTFB last week?" is not answered by "Corvina weekly app orders: 1,912").
_MEASURES = frozenset((*_FIGURES, "mql", "sql", "kpi"))
#: A weight, a floor area or a distance the question asks for ("What's the weight limit on
#: the barge?", "How heavy is the mini-ex?", "floor area in square feet?", "How close to the
#: dock edge can I get ...?").
_WEIGHT = (
    r"\b(?:weight|load)\s+(?:limits?|capacity|rating)\b|\bhow\s+(?:heavy|much\s+weight)\b|"
    r"\b(?:operating|gross|net|dry|towing|max(?:imum)?|total)\s+weight\b|\bweighs?\b|\btonnage\b"
)
_AREA = r"\bfloor\s+area\b|\bsquare\s+(?:feet|foot|footage|met(?:re|er)s)\b|\bsq\.?\s*ft\b"
_DISTANCE = r"\bhow\s+(?:close|near|far)\b(?!\s+(?:ahead|in\s+advance|along)\b)"
#: ... is a figure with its unit: "4 in max spacing" is no load limit, "within 10 ft of the
#: side line" no floor area; a sample size is a count of those observed ("at least 5,000
#: visitors"), not a split ("50/50").
_UNITS = [
    (re.compile(p, re.I), frozenset(terms(u)))
    for p, u in [
        (_WEIGHT, "lb lbs pound kg kilo kilogram ton tons tonne psf"),
        (_AREA, "sq square sf sqft m2 m\u00b2 acre hectare"),
        (_DISTANCE, "ft feet foot m metre meter yard mile km inch"),
        (
            r"\bsample\s+size\b",
            "sample visitor user session participant respondent shopper people customer",
        ),
    ]
]
#: "Which SOP ...?", "What policy do we follow ...?": which numbered record, not what it says.
_ASKS_RECORD = re.compile(
    r"^\s*(?:which|what)\s+(?P<about>sops?|polic(?:y|ies)|procedures?|bulletins?|notices?|"
    r"standards?|adrs?|rfcs?|circulars?|directives?|work\s+instructions?)\b"
    r"(?!\s+(?:number|no\.?|#)?\s*[\w-]*\d)",  # "what sop 104 says" names its record
    re.I,
)


def asks_record(question: str) -> bool:
    """Whether the question asks which numbered record ("Which SOP covers the controlled drug
    count?"): a sentence of a record whose title gives its number answers it."""
    return bool(_ASKS_RECORD.search(question))


#: Question wording -> the kinds of value an answer must contain (any of them); first match.
_EXPECTS: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (re.compile(p, re.I), k)
    for p, k in [
        # "Who is the head of marketing?": the role asked for, then what it is over
        (
            r"^\s*who(?:'s|\s+is|\s+was|\s+are|\s+were)?\s+(?:the\s+|our\s+)?(?:(?P<role>head|lead|"
            r"leader|chief|manager|director|owner)|in\s+charge|responsible)\s+(?:of|for|on)\b",
            ("person",),
        ),
        # "Who leads paid social?": a question opening with "who" asks for a person, whatever
        # words about money or counts follow
        (r"^\s*(who|whom|whose)\b", ("person",)),
        # "Billing contact at Kettleby?": a role asked in a few words is a person
        (
            rf"^\s*(?:the\s+|our\s+)?(?P<about>(?:[\w-]+\s+){{0,2}}(?:{ROLE_NOUNS}))\s+"
            r"(?:at|for|of|on)\b",
            ("person",),
        ),
        # "Which SOP covers the controlled drug count?", "what sop # is the CD count under": a
        # record, by its number or name (the record's kind stays in the subject), whatever it
        # counts
        (_ASKS_RECORD.pattern, ("code", "name")),
        # "Has anyone new joined this quarter?", "anyone new join in March?": yes, and who
        (
            r"^\s*(?:(?:has|have|had|did|does|is|was|will)\s+)?(?:anyone|anybody|someone|"
            r"somebody)\b",
            ("person",),
        ),
        # "Any new starters back in March?", "Were there any new hires?": who
        (
            r"^\s*(?:(?:were|was|are|is|did|do|have|has)\s+(?:there|we|you)\s+)?"
            r"(?:any|anyone)\s+new\s+(?P<about>starters?|joiners?|hires?|recruits?|people|"
            r"colleagues?|staff|team\s+members?)\b",
            ("person",),
        ),
        # "What is the name of the owner of Shelburne Bay Marine?", "the names of the
        # auditors": a person (the role stays in the subject)
        (
            r"\bnames?\s+of\s+(?:the\s+|our\s+|their\s+|its\s+)?(?P<about>(?:[\w-]+\s+){0,2}?"
            rf"(?:{ROLE_NOUNS}|auditors?|inspectors?|assessors?|people|persons?|staff))\b",
            ("person",),
        ),
        # "new starter back in march, what was their name again?": a person
        (
            r"\bwhat(?:'s|\s+is|\s+was|\s+were)\s+(?:his|her|their|the\s+person'?s?)\s+"
            r"(?:full\s+)?names?\b",
            ("person",),
        ),
        # a count first: "How many seats does the studio pay for?" asks for a number
        (r"\bsample\s+size\b", ("number",)),  # a count of visitors, never of days
        # "What's the weight limit on the barge?", "floor area in square feet?": a measure (the
        # words stay in the subject: "3 trucks at the dock" is no weight limit of the dock)
        (rf"(?P<about>{_WEIGHT}|{_AREA})|{_DISTANCE}", ("number",)),
        # "What's the MS4 permit number?", "the PO number": an identifier (of the permit)
        (
            r"\b(?P<about>permit|licen[cs]e|policy|account|registration|reference|order|po|"
            r"invoice|tracking|serial|model|part|case|ticket)\s+(?:number|no\.?|#)(?!\s+of)\b",
            ("code", "number"),
        ),
        # "What Pantone is the brand blue?": a colour's number or code
        (
            r"\b(?:what|which)\s+(?:pantone|pms|hex)(?:\s+(?:colou?r|code|number|value))?\b",
            ("number", "code"),
        ),
        # "What's the contract worth?": an amount
        (r"\bworth\b", ("money",)),
        # "How many days ...?" is a duration; "How many category pages ...?" a count only
        # (what the time is of stays the subject: "billable" of "How many billable hours?")
        (
            r"\bhow\s+many\s+(?P<about>(?:[\w-]+\s+){0,2}?)(?:minutes|hours|days|weeks|"
            r"months|years|sprints)\b",
            ("number", "duration"),
        ),
        (r"\bhow\s+many\b|\bwhat\s+(number|count)\b|\bnumber\s+of\b", ("number",)),
        # "What's the smallest type size allowed?", "min point size?": a figure
        (
            r"\b(?:smallest|largest|biggest|lowest|highest|min|minimum|max|maximum)\s+"
            r"(?:[\w-]+\s+){0,2}?(?:size|length|width|height|weight|amount|spend|limit)s?\b|"
            r"\b(?:point|font|type|file)\s+sizes?\b",
            ("number", "money", "percent", "duration"),
        ),
        # "what % inside SLA are we aiming for?", "SLA compliance target?": a share, whatever
        # time words follow ("a 10% discount" gives its share: it asks no share)
        (r"(?<![\d\s])\s?%|\bper\s?cent(?:age)?\b|\bcompliance\b", ("percent", "number")),
        # "How long do clients have to pay?": a duration, whatever the money words after it
        (
            r"\bhow\s+long\b|\bhow\s+far\s+(?:ahead|in\s+advance)\b|\bhow\s+much\s+notice\b|"
            r"\bhow\s+early\b|\b(?:response|turnaround|resolution)\s+time\b|\bturnaround\b|\bsla\b|"
            # "What's the notice period?", "the trial period", "the retention period"
            r"\b(?P<about>notice|trial|grace|retention|probation(?:ary)?|warranty|cooling-off|"
            r"lock-in|minimum|review)\s+period\b",
            ("duration",),
        ),
        # "How much free time do carriers get ...?": a duration, whatever money words follow;
        # or a share of one ("How much field time did thermography save?": 40%)
        (r"\bhow\s+much\s+(?P<about>(?:[\w-]+\s+)?time)\b", ("duration", "percent")),
        # "From what date does the $210 fee apply?", "On which day did the price change?": a
        # day, whatever money words follow (not "what day rate": a price)
        (
            r"\b(?:from|since|until|till|on|by)\s+(?:what|which)\s+(?:date|day)\b(?!\s*rates?\b)",
            ("date", "weekday"),
        ),
        # "What contingency do we put on client budgets?": a share of it or an amount (the
        # word stays in the subject), whatever money words follow ("What surcharge do we
        # charge for rush jobs?": "The rush surcharge is 30%")
        (
            r"\b(?P<about>contingency|contingencies|mark-?ups?|margins?|commissions?|discounts?|"
            r"surcharges?|overheads?|retainage|deposits?)\b",
            ("percent", "money", "number"),
        ),
        # "what do we bill jonah's time at now?", "what do we bill PA time at these days?": a
        # rate, an amount
        (
            r"\bwhat\s+(?:do|does|did|should|will|would|are|is)\s+(?:we|i|you|they)\s+"
            r"(?:bill|billing|invoice|invoicing)\b|\bbill(?:ed|ing|s)?\s+(?:[\w'-]+\s+){1,3}?at\b",
            ("money",),
        ),
        (
            # "price-led titles" are titles, not a price; "fee-earning hours" are hours
            r"\b(cost|costs|price(?!-)|priced|fee(?!-)|fees|spend|spending|spent|salary|(?<!in\s)charge|charged|pay|paying|pays|"
            # "paid holiday" is time off, not an amount
            r"paid(?!\s+(?:holiday|leave|time|vacation|days?|sick|parental|annual))|"
            r"invoice[sd]?\s+(?:for|amount)|how\s+much\s+(?:[\w-]+\s+){0,2}?money)\b",
            ("money",),
        ),
        # a total or overall budget is an amount ("the film's total budget" is not "a
        # four-minute brand film"), unless the question counts in time
        (
            r"\b(?:total|overall|whole)\s+budget(?:s|ed)?\b(?!.*\b(?:hours?|hrs|days?|weeks?)\b)",
            ("money",),
        ),
        (r"\bbudget(?:s|ed|ing)?\b", ("money", "duration")),  # a budget of hours is one too
        (r"\b(phone|mobile|fax|cell)\s+(number|no)\b", ("phone",)),
        # "How fast was Gannet's booking page?": a measure ("TTFB 468ms") or a wait
        (r"\bhow\s+fast\s+(?:is|was|are|were)\b", ("number", "duration", "percent")),
        (r"\bhow\s+(soon|quickly|fast)\b", ("duration", "time", "date", "weekday")),
        (r"\bhow\s+often\b|\bhow\s+frequently\b", ("frequency", "duration", "weekday")),
        # "How positive was the coverage?", "How billable were we?": a measure of it (a
        # lookahead: "positive" stays in the subject)
        (
            r"^(?=\s*how\s+(?!(?:long|many|much|often|frequently|regularly|soon|quickly|fast|far|"
            r"early|late|big|old|do|does|did|is|are|was|were|can|could|should|would|will|to|come|"
            r"about)\b)[a-z]+\s+"
            r"(?:is|are|was|were)\b)",
            ("percent", "number"),
        ),
        (r"\b(what|which)\s+time\b|\bat\s+what\s+time\b|\bwhat\s+hour\b", ("time",)),
        # "At what temperature does plastisol cure?": a measure, a figure with its unit
        (
            r"\b(?:what|which)\s+(?:temperature|temp|speed|pressure|voltage|humidity|setting)\b",
            ("number", "percent"),
        ),
        (
            # a score's cut-off is a threshold, not a day
            r"\b(what|which)\s+(date|day)\b|\bdeadline\b|(?<!scoring\s)(?<!score\s)"
            r"\bcut-?off\b(?!\s+(?:score|point))|\bdue\s+date\b|"
            r"\bwhat\s+day\s+and\s+time\b",
            ("date", "weekday", "duration", "time"),
        ),
        (
            r"\b(what|which)\s+(percentage|share|proportion)\b|"
            r"\bwhat\s+(?:[\w-]+\s+){0,2}?(lift|uplift)\b",
            ("percent", "number"),
        ),
        # "What open rate ...?", "What is the hourly rate?": a share or a price, not a count
        (
            r"\b(?:what|which)\s+(?:(?:is|was|were|are)\s+)?(?:the\s+|our\s+|its\s+)?"
            r"(?P<about>(?:[\w-]+\s+)?rate)\b",
            ("percent", "money"),
        ),
        (r"\bhow\s+much\b|\bwhat\s+amount\b", ("money", "number", "percent", "duration")),
        # "Which VHF channel ...?", "what extension is reception?": a thing known by its number
        (
            r"\b(?:which|what)\s+(?P<about>(?:vhf|uhf|radio|cb)\s+channel|extension|floor|gate|bay|"
            r"berth|pier|lane)s?\b",
            ("number", "code", "name"),
        ),
        (
            r"\b(which|what)\s+(?P<about>(?:[\w/-]+\s+){1,2})?(tool|platform|system|app|application|service|vendor|"
            r"software|channel|library|engine|crm|cms|provider|"
            r"venue|hotel|restaurant|location|client|customer|agency|partner|supplier|firm|"
            r"company|contractor|consultancy|manufacturer|courier|carrier|lab|"
            r"fabricator|builder|bank|insurer|host)s?\b",
            ("name", "code"),
        ),
        # "Which CDN do we put client sites behind?": a service, by its name; what it is for
        # stays in the subject (the change says "Moving DNS + CDN to Skerrylight")
        (r"\b(which|what)\s+(?P<about>cdn|dns|registrar)s?\b", ("name", "code")),
        # "What do we use to watch recordings?": a tool, by its name
        (r"^\s*what\s+(do|does|did|should|can)\s+(we|i|you|they)\s+use\b", ("name", "code")),
        # "What do we run experiments on?", "What do we track work in?": a tool, by its name
        (
            r"^\s*what\s+(?:do|does|did|should|can)\s+(?:we|i|you|they)\s+\w+\s+(?:[\w-]+\s+){0,3}"
            r"(?:on|in|with|through)\s*\??\s*$",
            ("name", "code"),
        ),
        # a measure is read as a figure ("What was Saltmarsh's ROAS last week?": "4.2x", not
        # the page that names ROAS as the client's KPI)
        (
            rf"\b(?P<about>{'|'.join(_FIGURES)}|utili[sz]ation|"
            r"(?:open|click|conversion|bounce|churn|win|response)\s+rates?|"
            r"share\s+of\s+voice|traffic|sessions|ratio)\b",
            ("number", "percent", "money"),
        ),
        (r"\b(which|what)\s+(significance|confidence)(\s+level)?\b", ("percent",)),
        # "What's Cobbleroot's organic revenue target?": an amount or a growth, not a count of
        # sessions (the word stays in the subject)
        (
            r"\b(?P<about>revenue|turnover|income|profit)\s+(?:targets?|goals?|forecasts?)\b",
            ("money", "percent"),
        ),
        # "What was the Arden site's revenue last month?": an amount (not "organic sessions
        # (7d) 19,305" for a revenue target no page gives)
        (r"\b(?P<about>revenue|turnover|takings)\b", ("money",)),
        # "What's the traffic target?": a figure, not the KPI's name
        (
            r"\b(?:target|goal)s?\b(?!\s+(?:audience|market|customers?|persona|group|keywords?|"
            r"quer(?:y|ies)|pages?|urls?|accounts?|list|date))",
            ("number", "percent", "money"),
        ),
        (r"\broot\s+cause\b|\bcause\s+of\b|\bwhat\s+caused\b", ("reason",)),
        # "What should I put on an estimate per proof sheet?": a rate, so a figure (a
        # lookahead: every word of it stays in the subject)
        (
            r"^(?=\s*(?:what|how\s+much)\b.*\bper\s+(?:[\w-]+\s+){0,2}?(?:sheet|hour|"
            r"day|month|seat|user|page|site|unit|item|head|person|year|week|word|visit|"
            r"lead|click)s?\b)",
            ("money", "number", "percent"),
        ),
        (
            r"\bwho\s+(is|was|are|were|runs|owns|leads|handles|manages|looks|takes|"
            r"approved|decided|signed)\b|\bwhich\s+(person|people|colleague)\b|"
            # "Which writer joined in March?": a person, and the role is what it is about
            r"\bwhich\s+(?:new\s+)?(?P<about>engineer|writer|editor|designer|developer|"
            r"freelancer|contractor|photographer|hire|recruit|strategist|planner|producer|"
            r"analyst|intern|manager|director|vet|nurse|doctor|dentist|surgeon|technician|"
            r"driver|linguist|translator|teacher|coach|guide|chef|lawyer|accountant)s?\b",
            ("person",),
        ),
        (r"^\s*(?:(?:since|from|until|till)\s+)?when\b", (*_TEMPORAL, "condition")),
        # "Where do the boards live?": a named place, tool or channel, or one said in words
        (r"^\s*where\b", ("place",)),
        # "crew days number last wk?", "TC's billable number at the wrap": a figure
        (r"\b(?:number|figure|tally|count)\b(?!\s+of\b)", ("number", "percent", "money")),
    ]
]
#: The question's own wording that names the kind of answer, not its subject.
_ASKING = re.compile(
    r"^\s*(how\s+(long|often|many|much|quickly|soon|fast|frequently|early)|how\s+far\s+ahead|"
    r"(?:since|from|until|till)(?=\s+when\b)|"
    r"how\s+far\s+in\s+advance|what\s+"
    r"(time|(kind|sort|type)\s+of))\b|\b(must|may|might|shall)\b"
    # "Who should I ask about ...", "Whom do we contact for ...": the verb says to find a
    # person, what follows says about what
    r"|^\s*whom?\s+(should|do|does|can|could|would)\s+(i|we|you)\s+[a-z]+"
    r"(?=\s+(?:to\s+|with\s+)?(?:about|for|regarding|if|when|on)\b)"
    # the workplace itself, which every passage is about ("Who heads up design at the studio?")
    r"|\b(?:at|in|of|for|across|within)\s+(?:the|our)\s+(?:studio|agency|company|firm)\b"
    r"|\b(?:the|our)\s+(?:studio|agency|company|firm)(?:'s|\u2019s)"
    # ... or the team it ends on ("Has anyone new joined the team?", "Who joined the studio?")
    r"|\b(?:the|our)\s+(?:team|studio|agency|company|firm|practice)\s*\??\s*$"
    # "before it moved earlier": that it changed, which the question asks across, not about
    r"|\bbefore\s+(?:it|they|that|this)\s+(?:was\s+|were\s+|got\s+)?(?:moved|changed|switched|"
    r"went)(?:\s+(?:earlier|later|up|down|back|forward|over))?\b"
    # "before Hamish took it over": who came after (`_LATER` keeps the name out of the
    # subject) and that they took it on
    r"|\b(?:before|prior\s+to)\s+(?-i:[A-Z])[\w'\u2019-]*(?:\s+(?-i:[A-Z])[\w'\u2019-]*){0,2}\s+"
    r"(?:took|take|takes|came|stepped|joined|started)(?:\s+(?:it|them|this|that|the\s+account|"
    r"the\s+job))?(?:\s+(?:over|on|in|up))?\b"
    # leaving a named tool or supplier: the change is what the question is about, and a log
    # says it as a move ("Why did we leave Edgewarden?": "Moving DNS + CDN to Skerrylight")
    r"|\b(?:leave|left|drop|dropped|ditch|ditched|quit)\b(?=\s+(?-i:[A-Z]))"
    # asking for the value in force, not naming what it is about ("currently", "still")
    r"|\b(current|currently|presently|nowadays|these\s+days|at\s+the\s+moment|right\s+now|"
    r"at\s+present|today|still|any\s*more|latest)\b",
    re.I,
)
#: "Who is Compass?" asks what a name is, not for a person.
_WHO_IS = re.compile(
    r"^\s*(?i:who\s+(is|are|was|were)\s+(the\s+)?)[A-Z][\w&'-]*(\s+[A-Z][\w&'-]*)*"
    r"\s*\??\s*$"
)
#: "Which warehouse did we use before Quarrystone?": the names after these are the value
#: that replaced the one asked for.
_LATER = re.compile(
    r"\b(?:before|prior\s+to|until|replaced\s+by|switched\s+to|moved\s+to)\s+"
    r"((?:[A-Z][\w&'\u2019-]*\s*){1,4})"
)
#: Who said what the question asks about ("How many inspections did Wystan report?", "What
#: ratio did Ulric give at the wrap?", "according to Imogen"): the report is theirs, its
#: sentences need not name them.
_SAYER = re.compile(
    r"\b(?:did|does|do|has|have|had)\s+((?-i:[A-Z][\w'\u2019-]*)(?:\s+(?-i:[A-Z][\w'\u2019-]*))?)"
    r"\s+(?:report|say|tell|mention|post|write|announce|share|quote|give|log|put)\w*\b"
    r"|\baccording\s+to\s+((?-i:[A-Z][\w'\u2019-]*)(?:\s+(?-i:[A-Z][\w'\u2019-]*))?)",
    re.I,
)
#: A question about the value before the current one ("Who handled Quillbrook before
#: Briony?", "What was the window before it moved?", "What did a proof cost before Hexley's
#: new rate card?", "Who used to sign it off?"); "before" as a mere conjunction is not ("How
#: long can a staging site sit idle before it gets torn down?", "before adding a field").
_ASKS_OLD = re.compile(
    r"\b(?:previous(?:ly)?|used\s+to|formerly|originally|old)\b|"
    r"\b(?:before|prior\s+to)\s+(?:(?-i:[A-Z])|"
    r"(?:the|its|their|our|this|that|[\w-]+(?:'|\u2019)s)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:new|change|switch|move|hand-?over)|"
    r"(?:it|they|we|that|this|he|she)\s+(?:was|were|got|went|moved|changed|switched|became|"
    r"took|came|rose|fell)\b|(?:the\s+)?(?:change|switch|move|hand-?over)\b)",
    re.I,
)


def asks_old(question: str) -> bool:
    """Whether the question asks for the value before the current one (`_ASKS_OLD`)."""
    return bool(_ASKS_OLD.search(question))


#: Titles written in capitals: what a who-question asks about, not a name it is about ("Who is
#: the CEO of HOT?" asks for HOT's chief executive, which "Account director: Jonas" is not).
_TITLES = frozenset(
    {"CEO", "CTO", "CFO", "COO", "CMO", "CIO", "CPO", "CRO", "CISO", "VP", "SVP", "EVP", "GM"}
    | {"MD", "PM", "QA", "HR"}
)
#: "Who's the account manager for Harrowgate?": the role a who-question names; like a title,
#: an answer must name it ("Client contact: Bea Lowther" names a contact, not a manager).
_ROLE_NAMED = re.compile(
    r"^\s*who(?:'s|\s+is|\s+was|\s+are|\s+were)?\s+(?:the|our)\s+(?:[\w-]+\s+)?"
    rf"({ROLE_NOUNS})\s+(?:of|for|on|at|in)\b",
    re.I,
)
#: A capitalised word opening a sentence: a name only if the passages write it as one.
_OPENING = re.compile(r"^\W*([A-Z][a-z]+[A-Za-z]*)\b(?!\s+[A-Z])")
#: ...unless what follows is something only a person does ("Zadie started today, welcome!",
#: "Ines joins the paid team"): a tool does not start, join, leave or take over.
_PERSON_OPENING = re.compile(
    r"(?:^|[.!?]\s+)\W*[A-Z][a-z]+[A-Za-z]*\s+(?:(?:is|was|will)\s+)?(?:(?:now|also|still)\s+)?"
    r"(?:start(?:s|ed|ing)?|"
    r"join(?:s|ed|ing)?|left|leav(?:es|ing)|t(?:ook|akes|aking)\s+over|hand(?:s|ed)\s+over|"
    r"resign(?:s|ed)?|retir(?:es|ed|ing)|(?:be\s+)?on\s+(?:leave|holiday|parental)|"
    # ... or looks after something, as only a person does ("Leocadia administers the
    # licences; ask her for a seat", "Dario now owns Tessellate")
    r"administer(?:s|ed)?|approv(?:es|ed)|sign(?:s|ed)\s+off|manag(?:es|ed)|"
    r"look(?:s|ed)\s+after|owns|owned)\b"
)
#: ... and in a chat's small letters, a word that is no English word taking something over
#: ("heads up: mireya takes over vantcliffe from cuthbert") or starting ("fenna rook started
#: today"), of the one or two before the verb.
_SMALL_TAKER = re.compile(
    r"\b([a-z][a-z'-]+)(?:\s+([a-z][a-z'-]+))?\s+(?:(?:now|will)\s+)?"
    # ... or starting ("fenna rook started today, junior editor")
    r"(?:t(?:akes|ook|aking)\s+over|start(?:s|ed)\s+(?:today|this\s+morning|on\s+monday)|"
    r"join(?:s|ed)\s+(?:today|us|the\s+team))\b"
)
#: A place said in words: "in git", "in the shared drive", "on the wiki", "at reception" (not
#: a time: "in March", "on Monday", "at 09:30").
#: Words of the calendar (lower case): a value a text gives, never a name it is about.
CALENDAR = frozenset((*MONTHS, *WEEKDAYS, "today", "tomorrow", "yesterday"))
_PLACE = re.compile(
    r"\b(?:in|on|at|into|inside|under|via|through|within|behind|beside|outside|opposite|near|"
    r"next\s+to|by(?=\s+the\b))\s+(?:the\s+|our\s+|a\s+|an\s+|"
    r"their\s+|your\s+|each\s+|every\s+)?(?!(?:"
    + "|".join(sorted(CALENDAR))
    + r"|time|once|least|most|advance|total|person|full|case|order|end|way|book"
    # (nor an article read as the word: "at the end" is no place by "the")
    r"|the|our|a|an|their|your|each|every)s?\b)"
    r"[A-Za-z#@][\w-]*",
    re.I,
)
#: A line that labels what follows with what it is: a record's header line ("Issued: 19 Jan
#: 2026", "Applies to: every forklift"), "Assembly point: the north parking lot".
LABELLED = re.compile(r"^\W*([A-Za-z][\w .()/&-]{0,30}):\s")
#: A capitalised run opening with a verb done to the name that follows it.
_DONE_TO = re.compile(r"[A-Z][a-z]+ed\s+[A-Z]")
_CONDITION = re.compile(r"\b(when|if|after|before|once|until|unless|within|whenever)\b", re.I)
_REASON = re.compile(
    r"\b(because|due\s+to|caused|cause|after|since|so\s+that|as\s+a\s+result|"
    r"reason|led\s+to|root)\b",
    re.I,
)
#: A phone number: seven digits or more, grouped by spaces, dots, dashes or brackets.
_PHONE = re.compile(r"(?<![\w/])\+?\(?\d[\d ().-]{5,}\d(?![\w/])")
_GENERIC = frozenset(
    terms(
        "get gets got use uses used do does did make makes go goes take "
        "takes need needs want say says tell know have has had keep kept "
        "put find found give gave show shown call called us behind per "
        # "anything go out yesterday?": what is asked about is what went out
        "anything something everything anyone anybody someone somebody"
    )
)


@dataclass(frozen=True)
class Ask:
    text: str
    #: kinds of value an answer must hold (any of them); () when the question does not say
    kinds: tuple[str, ...]
    #: the values the question itself gives (its subject, never its answer)
    given: tuple[Value, ...]
    #: stemmed content terms, without the interrogative wording
    terms: frozenset[str]
    #: capitalised names the question mentions (after its first word)
    names: tuple[str, ...]
    #: what the question is about: its terms without the words that ask for the kind of
    #: value ("budget", "how many") and without words any question uses ("get", "use", "us")
    subject: frozenset[str] = frozenset()
    #: the titles it asks about ("ceo" of "Who is the CEO of HOT?"): an answer must name one
    titles: frozenset[str] = frozenset()
    #: the role a who-question asks for ("head" of "Who is the head of design?"): not its
    #: subject (a "QA lead" line is not about marketing), but part of what two statements
    #: that answer it are about (a head of design and a design system are two things)
    role: frozenset[str] = frozenset()
    #: what a count is of ("shopper" of "How many shoppers took part in the lid study?"):
    #: a number answers it only beside that word or one of its group ("12 days" does not)
    counted: frozenset[str] = frozenset()


#: Shorthand a question writes in capitals that names nothing: "before I need Imogen to OK it".
_SHORTHAND = frozenset({"ok", "okay", "asap", "fyi", "eta", "tbd"})
#: A language, capitalised as English writes it, is what something is in, not whom or what
#: it is about: "Who is the lead French linguist on Parlane?" is about Parlane (its notes say
#: "FR lead").
_LANGUAGES = frozenset(
    {
        "english",
        "french",
        "german",
        "spanish",
        "italian",
        "portuguese",
        "dutch",
        "japanese",
        "chinese",
        "mandarin",
        "korean",
        "arabic",
        "russian",
        "polish",
        "swedish",
        "danish",
        "norwegian",
        "finnish",
        "greek",
        "turkish",
        "hindi",
    }
)


#: A question whether a value it gives still holds ("is rounds still wednesday first
#: thing?", "do we pay $40 any more?"), and the kinds of value it may give so.
STILL = re.compile(r"\bstill\b|\b(?:any\s*more|any\s+longer)\s*\??\s*$", re.I)
_BELIEVED = frozenset({"weekday", "time", "date", "money", "percent", "duration", "frequency"})


def read_ask(question: str) -> Ask:
    said = phrases(question)  # "return on ad spend" asks for a measure, not an amount spent
    found = (
        None
        if _WHO_IS.match(question)
        else next(((m, k) for pattern, k in _EXPECTS if (m := pattern.search(said))), None)
    )
    kinds = found[1] if found else ()
    asking: set[str] = set()
    role = ""
    if found:  # the words that ask for the kind of value; not a subject named among them
        match = found[0]
        about = match.groupdict().get("about") or ""
        role = match.groupdict().get("role") or ""
        asking = set(terms(match.group(0))) - set(terms(about))
    # "before Quarrystone": the name of what came after, not what the question is about
    later = {w for m in _LATER.finditer(question) for w in m.group(1).split()}
    # "How many inspections did Wystan report?": who said it, whose words need not name him
    later |= {w for m in _SAYER.finditer(question) for w in (m.group(1) or m.group(2)).split()}
    words = re.findall(r"[^\W_][\w&'\u2019-]*", question)[1:]
    names = tuple(
        w.removesuffix("'s").removesuffix("\u2019s")
        for w in words
        # a month or a day is a value the question gives, not what it is about
        if w[0].isupper()
        and w != "I"
        and w not in later
        and w not in _TITLES
        and w.lower() not in CALENDAR | _MEASURES | _SHORTHAND | _LANGUAGES | HONORIFICS
        and not abbreviates(w)  # "OOH" of "out-of-hours": a phrase's short form, no name
    )
    content = content_terms(said)
    # a verb any question uses, unless it is part of a compound ("on-call", "sign-off")
    compound = {t for w in re.findall(r"\w+(?:-\w+)+", question) for t in terms(w)}
    given = tuple(values(question)) + tuple(short_weekdays(question))
    # a day the question names is when, not what: "what broke on may 12?" is about what broke
    # (the window the service reads from it finds that day's entries)
    day = {t for v in given if v.kind == "date" for t in terms(v.text)}
    # "staff mtg still thurs lunch?": the value it believes still holds is what a statement of
    # change says is old ("moves to Tuesday"), not what the answer must repeat
    if STILL.search(question):
        day |= {t for v in given if v.kind in _BELIEVED for t in terms(v.text)}
    return Ask(
        question,
        kinds,
        given,
        content,
        names,
        frozenset(content - asking - (_GENERIC - compound) - day),
        frozenset(t for w in words if w in _TITLES for t in terms(w))
        | frozenset(t for m in _ROLE_NAMED.finditer(question) for t in terms(m[1])),
        frozenset(terms(role)),
        _counted(question, kinds),
    )


#: "How many [Echolane] seats do ...", "How many top-3 keywords is ...", "How many rounds
#: of ...": the words between "how many" and the verb or preposition after them
_COUNTED = re.compile(
    r"\bhow\s+many\s+((?:[\w-]+\s+){1,3}?)(?P<end>do|does|did|is|are|was|were|have|has|had|will|"
    r"would|should|can|could|came|come|took|take|went|got|get|of|in|on|per|at|for|to|"
    # "How many people attended ...?"
    r"[a-z]+ed)\b",
    re.I,
)


#: The end of a count question after its subject: the verb the count is of, then when
#: ("... did the service desk open yesterday?", "... did on-call receive last week?").
_DONE = re.compile(r"\b(?:do|does|did|will|can|could|should|have|has|had)\b(?P<rest>.*)", re.I)
#: A count's passive verb: "... were opened last week?", "... was sold since Monday?"
_PASSIVE = re.compile(
    r"(?:is|are|was|were)\s+(?:\w+ly\s+)?(?P<verb>[a-z]+(?:ed|en)|sold|made|paid|held|sent|built|"
    r"run|done|seen|lost|won|found|kept|met|told|caught|brought|bought|taught)\b",
    re.I,
)
#: Words of a question's time expression, which name no verb (a preposition has already cut
#: the rest: `_WHERE_WORDS`).
_WHEN_WORDS = frozenset(
    (
        *("last", "this", "next", "ago", "so", "far", "since", "until", "till", "during"),
        *("week", "weeks", "month", "months", "quarter", "year", "years", "day", "days"),
        *("wk", "yr", "the", "before", "after"),
    )
)
#: A place after the verb: "... did the crew plant at Mill Park?"
_WHERE_WORDS = frozenset(
    ("at", "in", "on", "for", "from", "to", "with", "by", "of", "about", "into", "across", "per")
)


def _counted(question: str, kinds: tuple[str, ...]) -> frozenset[str]:
    """The terms of what a count is of, for a question that asks for a number only, and of
    the verb the count is of: "How many tickets did the service desk open yesterday?" is
    answered by "Thu 19 Nov — opened 34, closed 29", which names no tickets."""
    if kinds != ("number",):
        return frozenset()
    unit = next((u for pattern, u in _UNITS if pattern.search(question)), None)
    if unit:
        return unit
    m = _COUNTED.search(question)
    if m is None:
        return frozenset()
    counted = set(terms(m[1].split()[-1]))
    if m["end"].lower().endswith("ed"):  # "How many swimmers attended ...?": "Attended: 587"
        counted.update(terms(m["end"]))
    passive = _PASSIVE.match(question, m.start("end"))
    if passive is not None:  # "How many tickets were opened ...?": "Opened: 137"
        counted.update(terms(passive.group("verb")))
    done = _DONE.match(question, m.start("end"))
    if done is not None:
        said = re.findall(r"[a-z][\w'-]*", done.group("rest").lower())
        for at, word in enumerate(said):  # "... plant at Marlow Mill Park"
            if word in _WHERE_WORDS:
                del said[at:]
                break
        while said and (said[-1] in _WHEN_WORDS or said[-1] in CALENDAR):
            said.pop()
        if len(said) > 1 or (said and said[0].endswith(("ed", "en"))):
            # a subject, then its verb; or the counted's own ("... have checked in")
            counted.update(terms(said[-1]))
    return frozenset(counted)


def content_terms(question: str) -> frozenset[str]:
    """The question's stemmed terms, without its interrogative wording or one-letter bits."""
    return frozenset(t for t in terms(_ASKING.sub(" ", question)) if len(t) > 1)


#: Platforms an agency writes about every day, by name: never a person ("Paid social lead,
#: Meta + TikTok" names no one). Invented or in-house tools still look like people.
_PLATFORM_WORDS = """meta facebook instagram tiktok google youtube linkedin pinterest snapchat
amazon microsoft apple android ios bing shopify klaviyo hubspot salesforce mailchimp stripe
slack notion figma asana jira trello clickup zoom gmail excel looker hotjar optimizely
wordpress webflow github gitlab"""
_PLATFORMS = frozenset(_PLATFORM_WORDS.split())


def is_person(value: Value) -> bool:
    """A name that may be a person's ("Jonas", "Lena Vogt", "Bram de Wit"); without a
    language model a tool's name looks the same, so any name but a month's, a day's or a
    well-known platform's."""
    return value.kind == "name" and value.norm.split()[0] not in CALENDAR | _PLATFORMS


#: A name after these words is where something is or what it is done with, not a person
#: ("Mockups live in Figtree", "Book through Railhop").
_WHERE = r"\b(?:in|on|into|onto|via|through|using)\s+"


def _a_place(text: str, value: Value) -> bool:
    return " " not in value.norm and bool(re.search(_WHERE + re.escape(value.text) + r"\b", text))


def fits(text: str, ask: Ask, known: Collection[str] = ()) -> bool:
    """Whether `text` holds a value of a kind the question asks for (any text fits a
    question that asks for no kind). The question's own values do not count. `known`:
    names (lower case) the passages write as names elsewhere, so for a question that asks
    for a name (a tool's) one that opens the sentence ("Glimmer keeps recordings for 90
    days") is one too; a person is never read from a lone capital that opens a sentence
    (it is as often a tool: "Tallyhook's editor broke")."""
    if not ask.kinds:
        return True
    if "condition" in ask.kinds and _CONDITION.search(text):
        return True
    if "reason" in ask.kinds:
        return bool(_REASON.search(text))
    if "phone" in ask.kinds:  # a date's or a time's digits are not a phone number's
        for v in values(text):
            if v.kind in ("date", "time"):
                text = text.replace(v.text, " ")
        return bool(_PHONE.search(text))
    found = [v for v in values(text) if not any(same(v, g) for g in ask.given)]
    if known and {"person", "name"} & set(ask.kinds):  # "mireya takes over from cuthbert"
        asked = set(_SMALL_WORD.findall(ask.text.lower()))
        found += [v for v in written_small(text, known) if v.norm not in asked]
    if "place" in ask.kinds:  # a name where something is, not what the sentence is about
        opening = re.match(r"\W*(?:(?:a|an|the|our|every|each)\s+)?", text, re.I)
        start = opening.end() if opening else 0
        label = LABELLED.match(text)
        if (
            label
            and ask.subject
            and len(set(terms(label[1])) & ask.subject) * 2 >= len(ask.subject)
        ):
            return True  # what the question asks where of, labelled: the rest says where
        return bool(_PLACE.search(text)) or any(
            v.kind == "code"
            or (v.kind == "name" and not text.startswith(v.text, start))
            or _DONE_TO.match(v.text)  # "Booked Millrace Lodge for the offsite"
            for v in found
        )
    if "person" in ask.kinds:
        return (
            any(is_person(v) and not _a_place(text, v) for v in found)
            or bool(_PERSON_OPENING.search(text))
            or any(w and w not in english() for m in _SMALL_TAKER.findall(text) for w in m)
        )
    opening = _OPENING.match(text)
    if opening and "name" in ask.kinds and opening[1].lower() in known:
        found.append(Value("name", opening[1].lower(), opening[1]))
    if (
        ask.counted
        and not counts(text, ask.counted)
        and not (ask.counted <= _MEASURED and _named_cell(text, ask.names))
    ):
        return False  # a number, but not of what is counted
    return any(v.kind in ask.kinds for v in found)


#: Units a question may count in ("How many kWh ..."): a table gives its unit once, above
#: its rows, where a count of things ("How many consults ...") is named by its column.
_MEASURED = frozenset(
    terms(
        "kwh mwh kw kg kgs lb lbs pounds tonnes tons km miles litres liters gallons kilowatt hours "
        "megawatt hours"
    )
)


def _named_cell(text: str, names: Collection[str]) -> bool:
    """Whether a table's row gives a figure in the column of a name the question gives
    ("Month: Mar 2026; Tower A: 287,930; Annex: 55,380" for how many kWh the Annex used): the
    table names its unit once, above its rows."""
    return any(re.search(rf"(?:^|;\s*){re.escape(n)}:\s*[$\u00a3\u20ac]?\d", text) for n in names)


#: How many words may stand between a count and what it counts ("54 client sites", "site
#: visits **39**", "Rooms in the block: 120"); "84 in a room set for 80" counts no rooms.
COUNT_REACH = 3
LABEL_WORDS = 2
_TOKEN = re.compile(r"[$\u00a3\u20ac]?\d+(?:[.,]\d+)*|[^\W\d_][\w'-]*")


def counts(text: str, counted: Collection[str]) -> bool:
    """Whether `text` gives a number beside a word of what is counted (its glossary group
    included) or of its unit: at most COUNT_REACH words apart, either way, or in the label
    it opens with (a table's row: "Tickets sold — Lanternfall; This week: 988")."""
    tokens = _TOKEN.findall(text)
    near = [not words(t).isdisjoint(counted) for t in tokens]
    labelled = any(near[:LABEL_WORDS])
    return any(
        labelled or any(near[max(0, i - COUNT_REACH - 1) : i + COUNT_REACH + 2])
        for i, t in enumerate(tokens)
        if (t[-1].isdigit() or t.lower() in NUMBER_WORDS) and not _counts_other(tokens, i, near)
    )


def _counts_other(tokens: Sequence[str], i: int, near: Sequence[bool]) -> bool:
    """Whether the number at `i` counts the plural noun right after it, another thing than
    the one asked about ("2,500 words" counts no linguists, "about 140 booths" no people)."""
    if i + 1 >= len(tokens) or near[i + 1]:
        return False
    after = tokens[i + 1]
    return (
        len(after) > 3
        and after.isalpha()
        and after.islower()
        and after.endswith("s")
        and not after.endswith(("ss", "us", "is"))
    )


def known_names(texts: Iterable[str], signed: Iterable[str] | None = None) -> frozenset[str]:
    """The one-word names (lower case) `texts` write where a name is told from a capital, and
    the handles the chat messages of `signed` (the raw texts; default `texts`) are signed with
    ("[2026-08-19 14:40] briseis: ..."), marked HANDLE."""
    texts = list(texts)
    known = {v.norm for t in texts for v in values(t) if v.kind == "name" and " " not in v.norm}
    for t in texts if signed is None else signed:
        known.update(HANDLE + m.group("handle").lower() for m in _HANDLE.finditer(t))
    return frozenset(known - NOT_NAMES)


#: How `known_names` marks a handle: "@billie" signs messages, so "billie" is a name even
#: where it is also a word.
HANDLE = "@"


#: Who wrote a chat export's message: the handle after its stamp.
_HANDLE = re.compile(rf"(?m)^[ \t]*{CHAT_STAMP}[ \t]+@?(?P<handle>[A-Za-z][\w.-]{{1,30}}):")
#: A word in small letters, and the one a chat message opens with ("briseis: heads up: ..."),
#: which says who wrote it, not whom it is about.
_SMALL_WORD = re.compile(r"(?<![\w'-])[a-z][a-z-]+(?![\w'-])")
_SIGNED = re.compile(r"^\W*@?[A-Za-z][\w.-]{1,30}:\s")


def written_small(text: str, known: Collection[str]) -> list[Value]:
    """The names `known` elsewhere that `text` writes in small letters, as hurried notes and
    chat messages do ("mireya takes over vantcliffe from cuthbert"): a handle, or a name
    written with a capital elsewhere that is no English word; not the handle that signs a
    message."""
    signed = _SIGNED.match(text)
    start = signed.end() if signed else 0
    return [
        Value("name", word, word)
        for m in _SMALL_WORD.finditer(text, start)
        if HANDLE + (word := m.group(0)) in known or (word in known and word not in english())
    ]


def mentions(text: str, names: Sequence[str]) -> bool:
    """Whether `text` mentions every one of `names` (by their stemmed terms; a number with
    or without its leading zeros: a file "SP-09-superchlorination" names "SP-9")."""
    have = {_unpadded(t) for t in terms(text)}
    return all({_unpadded(t) for t in terms(n)} <= have for n in names)


def _unpadded(term: str) -> str:
    """A term of figures without its leading zeros ("09" -> "9"), any other as it is."""
    return (term.lstrip("0") or "0") if term.isdigit() else term
