"""How well one sentence answers the question, 0..1, without a language model.

score = W_LEXICAL * lexical + W_SEMANTIC * semantic + W_PRIOR * prior, times a penalty for
each expectation it misses (KIND_PENALTY, NUMBER_PENALTY):

- lexical: the share of the question's subject terms (stemmed; without the words that ask
  for the kind of value, such as "budget" or "how many", asks.py) found in the sentence or
  the heading trail above it, a word of the same glossary group counting as found
  ("headline metric" in "Primary KPI", glossary.py): the subject must be there, not only
  the attribute;
- semantic: cosine of the question and the sentence with its heading trail under the
  retrieval embedder ("Clients > Quayside Ferries: Account director: Kwame Mensah." says
  whose director it is), at least W_BLOCK_SEMANTIC of its paragraph's (a sentence means what
  its paragraph says of it); codes such as `CLIENT-YYYYMM-slug` masked, since to a sentence
  model they are noise;
- prior: how highly retrieval ranked the sentence's document (1 for the first, 1/2 for the
  second, ...): a sentence of the passage search put first is more likely the answer, which
  keeps a reworded question ("headline metric" for "primary KPI") from being refused;
- the kind of value the question asks for (asks.py: an amount, a person, a day, a
  duration...): holding it adds W_FITS (and W_DURING more for a log entry of the window the
  question names), lacking it costs KIND_PENALTY; so do any number the question itself gives
  (a question about 2028 is not answered by a sentence about 2027) and a title it asks about
  ("Who is the CEO of HOT?" is not answered by HOT's account director).

The weights and MIN_SCORE are calibrated on the tune half of the dated evaluation
(bench/temporal.py --split tune) and bench/data/demo_questions.yaml, for the local
all-MiniLM-L6-v2 model; a registry may override the threshold (`answer: {min_score: ...}`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from knowledge_platform.dating import (
    header_fields,
    month_heading,
    names_month_of,
    names_quarter_of,
)
from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.serve.answers.asks import (
    STILL,
    Ask,
    asks_record,
    fits,
    known_names,
    read_ask,
)
from knowledge_platform.serve.answers.changes import change_in, may_state_change
from knowledge_platform.serve.answers.glossary import capitals, initials, words
from knowledge_platform.serve.answers.sentences import (
    During,
    Sentence,
    reported_week,
    row_month,
    said_during,
    terms,
)
from knowledge_platform.serve.answers.values import Value, same, values

MIN_SCORE = 0.72
W_LEXICAL = 0.4
W_SEMANTIC = 0.6
W_PRIOR = 0.2
#: Added when the question asks for a kind of value and the sentence holds one.
W_FITS = 0.1
#: A sentence without the kind of value the question asks for cannot answer it.
KIND_PENALTY = 0.5
NUMBER_PENALTY = 0.5
#: A limit a sentence states ("payments of more than $5,000 need a second approver"): a
#: question's own amount ("a $7k payment, do I need ...?") is a case of it, not what it names.
_LIMIT = re.compile(
    r"\b(?:more\s+than|less\s+than|fewer\s+than|over|under|above|below|up\s+to|at\s+least|"
    r"at\s+most|no\s+more\s+than|exceed(?:s|ing)?|beyond|within)\s+[$\u20ac\u00a3]?\d",
    re.I,
)
#: The kinds of value a question may give as a case of a limit.
_MEASURED = frozenset({"money", "percent", "duration"})
#: A sentence about what the question names but with none of the words of what it asks about
#: it is a near miss ("Book trains through Railhop" for "When does the Railhop contract
#: renew?"), unless its meaning carries it (a reworded attribute).
ATTRIBUTE_PENALTY = 0.9
#: Added when the question asks what replaced something and the sentence says it changed.
W_CHANGE = 0.15
#: Added when the question asks whom to go to ("my wrenchly sign-in stopped working, who do
#: i bug?", "who sets up the account?") and the sentence names someone as that ("I'm the
#: Wrenchly admin, ping me for logins", "If your login doesn't work, Ben resets it").
W_GO_TO = 0.06
#: A question that asks for a budget by that word ("What is the budget for the staff holiday
#: party?", "How much have we budgeted for the offsite?"): an amount is its answer only
#: where the passage says it is a budget (a venue's deposit or a gift exchange's "$25 max"
#: at the same party is not the party's budget).
_ASKS_BUDGET = re.compile(
    r"\b(?:what(?:'s|\s+is|\s+was|\s+are)?\s+(?:the\s+|our\s+|their\s+)?"
    r"(?:[\w'-]+\s+){0,3}?budgets?\b|budgeted\b)",
    re.I,
)
_ASKS_GO_TO = re.compile(
    r"(?:^|[,;:.]\s*)who(?:'s|\s+is)?\s+(?:do|should|can|could|would|will|to)?\s*"
    r"(?:i|we|they|you)?\s*(?:bug|ask|ping|contact|call|chase|talk\s+to|go\s+to|email|message|"
    r"reset|resets|set|sets|sort|sorts|handle|handles|manage|manages|grant|grants|unlock|"
    r"unlocks|create|creates|add|adds|give|gives|the\s+admin)\b",
    re.I,
)
_NAMES_GO_TO = re.compile(
    r"\b(?:admin(?:istrator)?|ask|ping|contact|come\s+to\s+(?:me|her|him)|resets?|"
    r"sets?\s+(?:it\s+|them\s+)?up|go-to|point\s+of\s+contact)\b",
    re.I,
)
#: "What replaced X?", "Who took over from X?", "What did we switch to?"
_ASKS_CHANGE = re.compile(
    r"\b(replac\w*|t(?:ook|akes|aken)\s+over|switch\w*|succeed\w*|supersed\w*)\b", re.I
)
#: Added to a log entry said within the window the question's own words name ("What was
#: Saltmarsh's ROAS last week?"): what happened then, not a standing text still in force.
W_DURING = 0.1
#: A question about what happened in the window its own words name ("Any new clients signed
#: this quarter?", "What went live yesterday?", "Which tool did we try last month?") is
#: answered by what was said then: a standing text ("Every new client gets a kickoff within
#: 10 days of signing") or a log of another day counts NOT_DURING of its score.
NOT_DURING = 0.7
#: A question about a whole month ("How many words did we deliver last month?") is answered
#: by the sentence that names that month with the asked kind of value ("October close:
#: 894,410 words"), not by one of its weeks' rows: when one does, the window's other
#: sentences count NOT_MONTH of their score, or of the best such sentence's if lower and it
#: reaches MIN_SCORE (scores are capped at 1.0, so the bonus alone does not part a total from
#: its weeks).
NOT_MONTH = 0.9
#: A question about a window ("northgate pinecrest order total last wk?") is answered by what
#: was said then with the asked kind of value: when one is, every other sentence counts
#: NOT_THEN of its score (a month's row capped at 1.0 like the week's row lost its W_DURING).
NOT_THEN = 0.97
DURING_LEXICAL = 0.4
_ASKS_EVENT = re.compile(
    # "have to pay" is an obligation, not what happened
    r"\b(?:did|(?:have|has|had)(?!\s+to\b)|went|won|began|sent|built|held|shipped|launched|"
    r"signed|hired|joined|started|booked|released|published|paused|trialled|trialed|tried|ran|"
    r"decided|agreed|discussed|announced|happened)\b"
    # "new starter back in march - who was that?": someone who joined then
    r"|\bnew\s+(?:starter|joiner|hire|recruit|client|logo|customer)s?\b"
    # "Anything go out the door yesterday?": a "did" left out
    r"|^\s*any(?:thing|one|body)\b",
    re.I,
)


def names_the_window(s: Sentence, during: During) -> bool:
    """Whether `s` names the month or quarter the window is, in its words ("October close:
    ...", "Q4 target is 520 bbl") or by the month heading it is said under (a row under "##
    October 2026" that gives no day of its own). A month's table row names the month of its
    first cell ("Month: Nov 2026 MTD; ... notes: CVUSD Oct invoice paid" is November's)."""
    if (month := row_month(s)) is not None:
        return month != dt.date.max and said_during(s, during)
    return (
        names_month_of(s.text, *during)
        or names_quarter_of(s.text, *during, s.date)
        # ... not a week's row under it ("Week of: 19 Oct; Words delivered: 224,705")
        or (month_heading(s.heading) == s.date and names_month_of(s.heading, *during))
    )


def asks_event(question: str) -> bool:
    """Whether the question asks what happened ("Which client did we sign?", "What went
    live?"), not what held."""
    return bool(_ASKS_EVENT.search(question))


#: A question about when something happened: a log entry that says it is dated by its day.
_ASKS_WHEN_DONE = re.compile(
    r"^\s*(?:since\s+)?(?:when|(?:on\s+)?what\s+(?:day|date))\s+(?:did|was|were|had|has|have)\b",
    re.I,
)
#: A sentence that dates what it says by the day it was said.
_SAID_TODAY = re.compile(
    r"\b(?:from|as\s+of|starting|since|effective)\s+(?:today|this\s+morning)\b", re.I
)
#: What a question term found only in the sentence's paragraph or list item counts for.
BLOCK_SHARE = 0.5
#: A sentence of a paragraph means what the paragraph says of it ("The two bays ran for three
#: weeks" after "Ebbfleet's report on the Brindlecombe pilot is in."): its semantic score is
#: at least this share of its paragraph's.
W_BLOCK_SEMANTIC = 0.85
#: A term this long that starts another term counts as it (see `covered`).
PREFIX_CHARS = 4


@dataclass(frozen=True)
class Scored:
    sentence: Sentence
    score: float
    lexical: float
    semantic: float
    prior: float = 0.0
    #: holds a value of the kind the question asks for
    fits: bool = True
    #: the day a log entry was said, when that day is the answer ("When did we switch to
    #: Linemark?" of the day's "From today all project boards live in Linemark")
    on: dt.date | None = None
    #: a log entry said within the window of a question about what happened then
    during: bool = False
    #: names the whole month the question asks about ("March close: ... site visits 39")
    month: bool = False
    #: fits by the line its list item is led by, quoted ahead of it ("What changes from 1
    #: September: **Nightjar** espresso, 5 lb: $58.50 → **$63.00**")
    led: bool = False


_WORD = re.compile(r"[\w'-]+")
#: A word of a name: a capital, then small letters ("Park", not "ROAS").
_NAME_WORD = re.compile(r"[A-Z][a-z][\w'-]+")
#: How many words a name must have for a look-alike to differ from it in one: "Hollins Road
#: Primary" and "Hollins Park Primary" (of two, "Corvina Sev" and "Sev 1 on the Corvina
#: ordering app" are one thing).
LOOK_ALIKE_WORDS = 3


def _names_a_look_alike(text: str, named: Sequence[Sequence[str]]) -> bool:
    """Whether `text` names, instead of a name the question gives, one that differs from it
    in one word of several ("Hollins Park Primary — Seed to Supper" for "Hollins Road
    Primary"): another thing of the same kind."""
    said = _WORD.findall(text)
    low = [w.lower() for w in said]
    for name in named:
        want = [w.lower() for w in name]
        k = len(want)
        if any(low[i : i + k] == want for i in range(len(low) - k + 1)):
            continue
        for i in range(len(low) - k + 1):
            other = [j for j in range(k) if low[i + j] != want[j]]
            # the other word a name's own ("Saltmarsh checkout" is Saltmarsh Gin's, "Parlane;
            # DE: 0.5%" Parlane Japanese's)
            if len(other) == 1 and _NAME_WORD.fullmatch(said[i + other[0]]):
                return True
    return False


def _names_none_of(text: str, named: Sequence[Sequence[str]]) -> bool:
    """Whether `text` (a sentence with its headings, paragraph and title) has no word of a
    name of two words or more the question gives ("Larkspur Analytics"): what it says is of
    something else (Larchfield's PO number)."""
    said = {w.lower() for w in _WORD.findall(text)}
    return any(said.isdisjoint(w.lower() for w in name) for name in named)


def _titled_by_number(s: Sentence) -> bool:
    """Whether the sentence's document is a record whose title gives its number ("SOP-112 —
    Controlled drug count"): asked which record, any of its sentences says which."""
    return any(v.kind == "code" for v in values(s.chunk.title))


def _says_budget(s: Sentence) -> bool:
    """Whether the sentence, its paragraph or its headings speak of a budget."""
    return "budget" in f"{s.context} {s.block}".lower()


def _masked(text: str) -> str:
    for value in values(text):
        if value.kind == "code":
            text = text.replace(value.text, "…")
    return text


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"\d+", text))


def covered(
    subject: Collection[str], have: Collection[str], loose: Collection[str] | None = None
) -> int:
    """How many of the question's terms the sentence has: the term itself, or one of at
    least PREFIX_CHARS that starts one of `loose` (default: `have`; the stemmer leaves
    "rota" and "rotat" of "rotates" apart)."""
    near = frozenset(have if loose is None else loose)
    starts = _starts(near)
    return sum(1 for t in subject if t in have or _prefixed(t, near, starts))


def _prefixed(term: str, near: frozenset[str], starts: frozenset[str]) -> bool:
    """Whether `term` starts a word of `near`, or one of `near` starts it, the shorter of the
    two of PREFIX_CHARS or more (by set look-ups: reading every pair was most of a search's
    own time)."""
    return (len(term) >= PREFIX_CHARS and term in starts) or any(
        term[:k] in near for k in range(PREFIX_CHARS, len(term))
    )


@lru_cache(maxsize=4096)  # a passage's words come back for every term and question
def _starts(near: frozenset[str]) -> frozenset[str]:
    """Every start of PREFIX_CHARS or more letters of each word (the word included)."""
    return frozenset(w[:k] for w in near for k in range(PREFIX_CHARS, len(w) + 1))


def _changes_away_from(text: str, ask: Ask) -> bool:
    """Whether `text` says that something the question names changed ("#incidents replaces
    #war-room" for "What replaced the war-room channel?"), or changed to a name the question
    gives ("boards live in Linemark instead of Ticketbird" for "When did we switch to
    Linemark?")."""
    if not may_state_change(text):
        return False
    change = change_in(text)
    if any(covered(ask.subject, set(terms(old))) for old in change.old_text):
        return True
    named = {t for n in ask.names for t in terms(n)}
    return any(set(terms(v.text)) & named for v in change.new if v.kind == "name")


def _lexical(subject: Collection[str], s: Sentence, question: str = "") -> float:
    """The share of `subject` the sentence (with its headings) has; a term only the rest of
    its paragraph or list item has counts BLOCK_SHARE. A term's longer form counts in the
    sentence's own words only: a heading is a label ("Client directory" is no director). A
    phrase of the `question` the sentence abbreviates counts as its words ("new SM day rate"
    has the stage manager of "the new stage manager rate"), and so does an abbreviation of
    the question's the sentence spells out."""
    if not subject:
        return 0.0
    have, loose = words(s.context), words(s.text)
    short = _abbreviated(question, s.context) if question else frozenset()
    if short:
        have, loose = have | short, loose | short
    own = covered(subject, have, loose)
    if s.block and own < len(subject):
        around = covered(subject, have | words(s.block), loose | words(s.block))
        return (own + BLOCK_SHARE * (around - own)) / len(subject)
    return own / len(subject)


def _abbreviated(question: str, text: str) -> frozenset[str]:
    """The question's terms `text` writes short or spells out: the words of a phrase of the
    question whose initials `text` writes in capitals, and the question's own capitals
    whose phrase `text` spells out."""
    spelled = initials(question)
    found = {t for a in capitals(text) if a in spelled for t in spelled[a]}
    asked = capitals(question)
    if asked:
        found.update(asked & initials(text).keys())
    return frozenset(found)


def _attribute(ask: Ask) -> frozenset[str]:
    """What a question that names its subject asks about it: its subject terms without the
    names ("contract", "renew" of "When does the Railhop contract renew?"); empty when it
    names nothing or asks only about the name ("Who is Kwame Mensah?")."""
    if not ask.names:
        return frozenset()
    named = {t for n in ask.names for t in terms(n)}
    return ask.subject - named


def score_sentences(
    question: str | Ask,
    sentences: Sequence[Sentence],
    embedder: Embedder,
    priors: Mapping[int, float] | None = None,
    during: During | None = None,
) -> list[Scored]:
    """Every sentence scored against the question (same order). `priors`: by reference
    number, how highly retrieval ranked each document (default: by the sentence's rank);
    `during`: the window the question's own words name, if any."""
    if not sentences:
        return []
    ask = read_ask(question) if isinstance(question, str) else question
    # "is ops review still monday at 10?": the figures a question believes still hold are
    # what the answer may say changed, not what it must repeat
    numbers = set() if STILL.search(ask.text) else _numbers(ask.text)
    # "... at the 2 pm check yesterday?": a log row of another time ("Time: 1000; FC: 2.7")
    # is another check (not when the question asks whether its time still holds)
    at = () if STILL.search(ask.text) else tuple(v for v in ask.given if v.kind == "time")
    # the digits of the amounts the question gives, which a stated limit may cover
    cases = {n for v in ask.given if v.kind in _MEASURED for n in _numbers(v.text)}
    query = embedder.embed_query(ask.text)
    semantic = embedder.embed_documents([_masked(s.context) for s in sentences]) @ query
    blocks = list(dict.fromkeys(f"{s.trail}: {s.block}" for s in sentences if s.block))
    if blocks and W_BLOCK_SEMANTIC:
        of_block = embedder.embed_documents([_masked(b) for b in blocks]) @ query
        said = dict(zip(blocks, of_block.tolist(), strict=True))
        semantic = semantic.copy()
        for i, s in enumerate(sentences):
            if s.block:
                semantic[i] = max(semantic[i], W_BLOCK_SEMANTIC * said[f"{s.trail}: {s.block}"])
    # a sentence is read without its chat stamp: the handles are in the chunks' raw text
    chunks = {s.chunk.id: s.chunk.text for s in sentences}
    known = known_names((s.text for s in sentences), signed=chunks.values())
    attribute = _attribute(ask)
    # "do we still log hours in timeslate?" asks whether what it names changed
    asks_change = bool(_ASKS_CHANGE.search(ask.text) or STILL.search(ask.text))
    asks_when = "date" in ask.kinds and bool(_ASKS_WHEN_DONE.search(ask.text))
    happened = during is not None and asks_event(ask.text)
    go_to = bool(_ASKS_GO_TO.search(ask.text))
    budget = bool(_ASKS_BUDGET.search(ask.text))
    record = asks_record(ask.text)
    several = [n for v in ask.given if v.kind == "name" and len(n := _WORD.findall(v.text)) >= 2]
    named = [n for n in several if len(n) >= LOOK_ALIKE_WORDS]
    as_person = replace(ask, kinds=("person",))
    ask_words = words(ask.text)
    out = []
    month: set[int] = set()  # of `out`, the sentences that name the asked month
    within: set[int] = set()  # ... and those said in the window with the asked kind of value
    for s, sem in zip(sentences, semantic.tolist(), strict=True):
        have = words(s.context)
        lexical = _lexical(ask.subject, s, ask.text)
        prior = priors.get(s.ref, 0.0) if priors is not None else 1 / (1 + s.rank)
        score = W_LEXICAL * lexical + W_SEMANTIC * max(sem, 0.0) + W_PRIOR * prior
        # a message's writer is the person of what they say of themself ("I'm the admin")
        fit = fits(s.text, ask, known) or ("person" in ask.kinds and bool(s.speaker))
        # "What changes from 1 September:" over "- Nightjar, 5 lb: $58.50 → $63.00"
        led = not fit and bool(ask.kinds) and bool(s.lead) and fits(s.lead, ask, known)
        fit = fit or led
        if not fit and record and _titled_by_number(s):
            fit = True  # "Recount once." of "SOP-112 — Controlled drug count"
        if fit and budget and not _says_budget(s):
            fit = False
        if not fit and ask.counted and not words(s.heading).isdisjoint(ask.counted):
            # a row's count under a heading naming what it counts ("## Consults" over
            # "w/c: 09/11; Northgate: 431")
            fit = fits(s.text, replace(ask, counted=frozenset()), known)
        # a log entry's own day answers when it was done, unless the sentence names the day
        # another way than "today" ("it is read-only from today and gets switched off on 31
        # July": the 6 July it was said)
        on = (
            s.date
            if asks_when
            and s.chunk.time_kind == "event"
            and (not fit or _SAID_TODAY.search(s.text))
            else None
        )
        fit = fit or on is not None
        if fit and ask.kinds:
            score += W_FITS
        then = during is not None and said_during(s, during)
        if then and fit:
            score += W_DURING
            within.add(len(out))
            # the month (or quarter) asked about, named: its total, not one of its weeks (of
            # what is asked: "Q4 at 236 bbl so far" is no answer to Q4's target)
            if during is not None and lexical > 0 and names_the_window(s, during):
                score += W_DURING
                month.add(len(out))
        if (
            go_to
            and _NAMES_GO_TO.search(s.text)
            and (fits(s.text, as_person, known) or bool(s.speaker))
        ):
            score += W_GO_TO
        if asks_change and _changes_away_from(s.text, ask):
            score += W_CHANGE
        if during is not None and not then and reported_week(s) is not None:
            score *= KIND_PENALTY  # said then, but of the week before
        if not fit:
            score *= KIND_PENALTY
        if misses_number(numbers, cases, s) or (at and _other_time(s.text, at)):
            score *= NUMBER_PENALTY
        if attribute and not covered(attribute, have, words(s.text)):
            score *= ATTRIBUTE_PENALTY
        if (labels := field_labels(s.text)) and ask_words.isdisjoint(labels):
            score *= KIND_PENALTY  # what the record is ("Issued: ... · Status: In force")
        if named and _names_a_look_alike(s.context, named):
            score *= KIND_PENALTY  # "Hollins Park Primary" for "Hollins Road Primary"
        elif several and _names_none_of(f"{s.chunk.title} {s.about}", several):
            score *= KIND_PENALTY  # "their new rate sheet" (Lakeshore's) for Prairie State's
        # a hand-over rarely repeats the title it hands over
        if ask.titles and not covered(ask.titles, have) and not may_state_change(s.text):
            score *= KIND_PENALTY
        score = round(min(score, 1.0), 4)
        out.append(Scored(s, score, lexical, sem, prior, fit, on, then and happened, led=led))
    if month:
        # below the best that names it, whatever the cap, when that one may answer
        top = max(out[i].score for i in month)
        top = top if top >= MIN_SCORE else 1.0
        out = [
            replace(s, score=round(min(s.score, top) * NOT_MONTH, 4))
            if i not in month
            else replace(s, month=True)
            for i, s in enumerate(out)
        ]
    elif within:  # the window's W_DURING, kept where the cap at 1.0 took it away
        out = [
            s if i in within else replace(s, score=round(s.score * NOT_THEN, 4))
            for i, s in enumerate(out)
        ]
    return _window_first(out)


#: A header field's label: "Issued" of "**Issued:** Wed 10 Jun 2026".
_FIELD_LABEL = re.compile(r"^\W*([A-Z][\w /&().-]{0,24}?)[*_]*:[*_]*\s+\S")


def field_labels(text: str) -> frozenset[str]:
    """The terms of the labels of a line of header fields (dating.header_fields): two or more
    "Label: value" and few parts without a label ("**Issued:** Wed 10 Jun 2026 · **By:** Blair
    Ogilvie · **Status:** In force", "Policy bulletin · Issued: 3 Mar 2026 · Owner: Yolanda"):
    what it answers ("issued", "status"); none for any other sentence, which says what its
    record says."""
    parts = header_fields(text)
    labels = [m.group(1) for p in parts if (m := _FIELD_LABEL.match(p))]
    if len(labels) < 2 or 2 * len(labels) < len(parts):
        return frozenset()
    return words(" ".join(labels))


def _other_time(text: str, given: Sequence[Value]) -> bool:
    """Whether `text` states a time of day and none of the `given` ones."""
    said = [v for v in values(text) if v.kind == "time"]
    return bool(said) and not any(same(v, g) for v in said for g in given)


def misses_number(numbers: set[str], cases: set[str], s: Sentence) -> bool:
    """Whether `s` lacks a number the question gives (`numbers`, its digits): a number of an
    amount the question gives as a case (`cases`) is not missed by a sentence stating a
    limit it falls under or over ("more than $5,000" for "a $7k payment")."""
    missing = numbers - _numbers(s.context)
    return bool(missing) and not (missing <= cases and _LIMIT.search(s.text))


def _window_first(scored: list[Scored]) -> list[Scored]:
    """When a log entry of the window a question about what happened then may answer it
    (`in_window`), every other sentence counts NOT_DURING of its score, a log entry of the
    window with less than DURING_LEXICAL of the subject too ("Stood the crisis desk down at
    16:00" is not what "Have we had any crisis call-outs this quarter?" asks about)."""
    if not any(in_window(s) for s in scored):
        return scored
    return [
        s
        if s.during and s.lexical >= DURING_LEXICAL
        else replace(s, score=round(s.score * NOT_DURING, 4))
        for s in scored
    ]


def in_window(s: Scored) -> bool:
    """A log entry of the question's window with the asked kind of value and at least
    DURING_LEXICAL of its subject."""
    return s.during and s.fits and s.lexical >= DURING_LEXICAL
