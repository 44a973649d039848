"""Do two passages give different values for the same thing? Decided without a language
model: same subject, different values of one kind (codes, dates, times, days, durations,
frequencies, percentages, money, numbers, names).

- Values the question itself gives are its subject, not an answer ("... on 2026-11-23?").
- Names both passages mention are their common subject ("The Shade Store"), not a value.
- Passages under headings naming different things ("## HOT" and "## The Shade Store"), neither
  mentioned by the other, are about different things.
- Same subject: the passages share enough of their own words (Jaccard), or each covers at
  least half of what the question asks about.
- Different values: for some kind both give, neither passage's values include the other's
  ("every second Monday" vs "the first Monday of every month" differ in frequency; "ClickUp,
  Google Docs" vs "ClickUp" do not).
- A statement of change (changes.py: "handed over from Dana to Lee", "Clarity replaces
  Hotjar") speaks only for its new values; when its old value is what the other passage
  says, the two disagree and the change statement says which one is old (`superseding`).
- A sentence that says something changed without naming the old value ("Uptime checks now
  run every minute", "We switched the analytics warehouse to Quarrystone": a change cue,
  dating.CHANGE_CUE) speaks of what another passage states when the two share
  CUE_SHARED_TERMS of their own words (values aside): it restates that thing, newly.

Precision/recall on bench/data/conflict_pairs.yaml: `uv run python bench/conflicts.py`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import get_args

from knowledge_platform.dating import CHANGE_CUE, MONTH_NAMES, month_number
from knowledge_platform.serve.answers import glossary
from knowledge_platform.serve.answers.asks import CALENDAR, ROLE_NOUNS, fits, mentions, read_ask
from knowledge_platform.serve.answers.changes import Change, change_in
from knowledge_platform.serve.answers.relevance import covered
from knowledge_platform.serve.answers.sentences import names_a_thing, row_cells, terms
from knowledge_platform.serve.answers.values import NOT_NAMES, Kind, Value, same, values

#: Kinds in the order values are compared; "phrase" (words no pattern types) never is.
ORDER: tuple[Kind, ...] = tuple(k for k in get_args(Kind) if k != "phrase")
MIN_JACCARD = 0.34
MIN_QUESTION_COVER = 1 / 3
QUESTION_SHARED_TERMS = 2
CUE_SHARED_TERMS = 2
#: A row's cell under no column the question asks about is its answer when it holds this many
#: of the question's words, and more than any other cell does.
CELL_SHARED_TERMS = 1


@dataclass(frozen=True)
class Statement:
    text: str
    #: the heading trail above the passage, e.g. "Clients > HOT"
    context: str = ""
    #: the document's title, when the trail starts with it: a title names a document, not
    #: the thing a section is about, so it is never the passage's heading
    title: str = ""
    #: the paragraph or list item the statement is part of ("Postmarque is our ESP. Agency
    #: plan, $480/month." around "Agency plan, $480/month.")
    around: str = ""

    @property
    def heading(self) -> str:
        last = self.context.split(" > ")[-1].strip() if self.context else ""
        return "" if last == self.title.strip() else last


@dataclass(frozen=True)
class Disagreement:
    kind: Kind
    a: Value
    b: Value
    #: "a" or "b": the side whose own words say the other side's value is old
    superseding: str | None = None


def _answers(change: Change, asked: Sequence[Value]) -> list[Value]:
    return [v for v in change.new if not any(same(v, q) for q in asked)]


def _superseded(
    change: Change,
    other: Statement,
    stated: Sequence[Value],
) -> tuple[Value, Value] | None:
    """(the changing side's value, the other side's old value) when `change` names as old
    a value the other side states: a typed value, or the old value's words as written."""
    later = [Value("phrase", " ".join(t.lower().split()), t) for t in change.new_text] or [
        Value("phrase", "", f"not {old_text} any more") for old_text in change.old_text[:1]
    ]
    for old in change.old:
        hit = next((v for v in stated if same(old, v)), None)
        if hit is not None:
            # ... of them, a name of several words first: "Client" of "[x] Client side — intro
            # call with Ruth Penhallow, who took over from Derek Amsel" is a word, not who
            kin = sorted(
                (v for v in change.new if v.kind == old.kind),
                key=lambda v: v.kind == "name" and " " not in v.text.strip(),
            )
            # the value the words say replaced it ("over to Lee"), else the first of its kind
            new = next((v for v in kin if any(v.text in t for t in change.new_text)), None)
            new = new or next(iter(kin), None)
            gone = Value("phrase", "", f"not {old.text} any more")
            return new or (later[0] if later else gone), hit
    for words in change.old_text:
        if Change((), (), (words,)).makes_old(other.text):
            return later[0], Value("phrase", " ".join(words.lower().split()), words)
    # "X starts today as client support lead"; "Dario now owns Tessellate" of a client
    # page's "Account lead: Ysmay Halvorsen." under "Tessellate Analytics"
    held = change.holders(other.text, other.context)
    return (later[0], held[0]) if held and later else None


def _said(change: Change) -> list[Value]:
    """Every value a statement of change gives, the words it names them by included
    ("Vantor" of "Vantor replaces Tallyhook", which opens the sentence and so is not read as
    a name): what is left is what changed."""
    words = [
        Value("phrase", " ".join(t.lower().split()), t)
        for t in (*change.new_text, *change.old_text)
    ]
    # ... but not the account a holder now runs: that is what it is about ("Tessellate" of
    # "Dario now owns Tessellate")
    new = [v for v in change.new if v.norm != change.role]
    return [*new, *change.old, *words]


def _drop_shared_names(a: list[Value], b: list[Value]) -> tuple[list[Value], list[Value]]:
    shared = [x for x in a if x.kind == "name" and any(same(x, y) for y in b)]
    keep = [x for x in (*a, *b) if not (x.kind == "name" and any(same(x, s) for s in shared))]
    return [x for x in keep if x in a], [x for x in keep if x in b]


#: Who wrote a chat message, by the handle in small letters it opens with ("ludmila: ..."),
#: which says nothing of what it is about (a label in capitals, "Role: Editor", does: so
#: unlike asks._SIGNED, which also takes "Priya:").
_SPEAKER = re.compile(r"^\W*@?[a-z][\w.-]{1,30}:\s")
#: Words that say how current a value is, not what it is of ("the old rate", "new SM day
#: rate"), and the tags a log puts before what it says ("DECISION:", "FYI:", "Update:"): two
#: statements do not speak of one thing for sharing them.
_STATUS = frozenset(
    terms("old new now current latest decision decided update updated fyi note reminder")
)


def _subject(statement: Statement, found: Sequence[Value]) -> set[str]:
    text = _SPEAKER.sub(" ", statement.text)
    for v in found:
        text = text.replace(v.text, " ")
    return (set(terms(text)) | set(terms(statement.heading))) - _STATUS


def _different_things(a: Statement, b: Statement) -> bool:
    ha, hb = set(terms(a.heading)), set(terms(b.heading))
    if not ha or not hb or ha == hb:
        return False
    if not (names_a_thing(a.heading) and names_a_thing(b.heading)):
        return False
    return not ha <= set(terms(b.text + " " + b.context)) and not hb <= set(
        terms(a.text + " " + a.context)
    )


def _look_alikes(question: str, a: Statement, b: Statement) -> bool:
    """Whether the two are pages of two look-alike things whose titles tell them apart, and
    the question names one: "Falmouth (Route 1) — weekly appts" and "Portland (Forest Ave)
    — weekly appointments" give two clinics' figures for "falmouth appt count the week before
    last", not two sources that disagree."""
    if not a.title or not b.title or a.title == b.title:
        return False
    # two titles of one kind ("... — weekly appts + surgeries 2026" twice) ...
    ta, tb = glossary.words(a.title), glossary.words(b.title)
    if len(ta & tb) < LOOK_ALIKE_SHARE * len(ta | tb):
        return False
    asked = set(terms(question))
    whole_a = set(terms(f"{a.title} {a.context} {a.text} {a.around}"))
    whole_b = set(terms(f"{b.title} {b.context} {b.text} {b.around}"))
    own_a = set(terms(a.title)) - whole_b  # ... each naming what the other never does
    own_b = set(terms(b.title)) - whole_a
    return bool(own_a and own_b) and bool((own_a | own_b) & asked)


#: The share of their words two look-alike pages' titles have in common ("Hollins Road
#: Primary — Seed to Plate" and "Hollins Park Primary — Seed to Supper"; not "Fathom Point —
#: Frequently Asked Questions" and "Fathom Point Marina & Boatyard — Slip-Holder Handbook").
LOOK_ALIKE_SHARE = 0.4


def same_subject(
    question: str,
    a: Statement,
    b: Statement,
    va: Sequence[Value],
    vb: Sequence[Value],
    shared_terms: int = QUESTION_SHARED_TERMS,
) -> bool:
    """Whether two statements speak of the same thing: enough words of their own in common,
    else words of the question both have, and `shared_terms` words in common in all (fewer
    for a short question)."""
    if _different_things(a, b) or _look_alikes(question, a, b):
        return False
    sa, sb = _subject(a, va), _subject(b, vb)
    if sa and sb and len(sa & sb) / len(sa | sb) >= MIN_JACCARD:
        return True
    asked = _asked(question)
    # a word's longer form counts ("markups" of "marking up", as relevance.covered reads it)
    wa, wb = (glossary.words(f"{s.text} {s.context}") for s in (a, b))
    ca, cb = ({t for t in asked if covered([t], w)} for w in (wa, wb))
    # two words of the question both have, not one they happen to share ("weekly" of a test's
    # duration, for a question about weeks of notice; "design" of a component library, for
    # a question about the head of design)
    # ... and not a value one of them gives ("weekly" of a delivery review that moved, for
    # a question about the weekly WIP meeting): a value is what differs, not what it is about
    # ... unless both write it outside their values too ("waste" of "General waste ... collected
    # by GreenCart Waste" and "Waste and recycling ... collected by Metro Recycling")
    valued = {t for v in (*va, *vb) for t in terms(v.text)} - (sa & sb)
    # ... but one is enough when both name what the question names: "Client contact: Maren"
    # under "## Pellucid Skincare" and Pellucid's own "Main contact: Esme" speak of one thing
    if _both_name(question, a, b):
        shared_terms = 1
    shared = len(((ca & cb) | (sa & sb)) - valued) >= min(shared_terms, len(asked))
    cover = len(ca | cb) >= MIN_QUESTION_COVER * len(asked)
    return shared and cover and _both_about(question, asked, (ca, cb), (a, b))


def _asked(question: str) -> set[str]:
    """What the question asks about, of its subject and role: not the names it gives (the
    subject two statements share, not their attribute), nor the values it gives ("Monday" of
    the Monday kick-off is not what a moved Monday review shares with it)."""
    ask = read_ask(question)
    given = {t for v in ask.given for t in terms(v.text)}
    return set(ask.subject | ask.role) - {t for n in ask.names for t in terms(n)} - given


def _both_about(
    question: str,
    asked: set[str],
    covers: tuple[set[str], set[str]],
    sides: tuple[Statement, Statement],
) -> bool:
    """Whether each is about something the question asks, or both name one thing the
    question does not ("new-client spend floor goes up to $30k/mo" is not about Postmarque's
    price, whatever it shares with "$615/mo from September"; a Halcyon Teas invoice is not
    about its subscription box; "Harrowgate launch slipped" is about the rowing club's app
    launch, as the page under "Harrowgate Rowing Club" is). A question that asks about
    nothing but the names it gives ("Marlow & Finch's quarterly budget?") is asked of both
    only if both name them. `covers`: the words of `asked` each side has."""
    a, b = sides
    if all(covers):
        return True
    names = read_ask(question).names
    if not asked:
        return not names or _both_name(question, a, b)
    return _name_in_both(a, b, {w for n in names for w in n.split()})


def restated(a: Statement, b: Statement, va: Sequence[Value], vb: Sequence[Value]) -> bool:
    """Whether one side says, with a change cue, that what the other states is now otherwise:
    the two share CUE_SHARED_TERMS of their own words, headings aside (a word and its longer
    form count as one; so does a value both give: "monthly" and "a month")."""
    if _different_things(a, b) or not (CHANGE_CUE.search(a.text) or CHANGE_CUE.search(b.text)):
        return False
    own_a, own_b = _subject(Statement(a.text), va), _subject(Statement(b.text), vb)
    # a name both give is who or what both are about ("Pemberton Orchards"), not a word
    # they share about it: a photoshoot and a hand-over of one client are two things;
    # nor is the word of change both use ("moved", "moves": a delivery review that moved
    # and a WIP meeting that moves are two meetings)
    named = {t for v in _shared_names(a.text, b.text) for t in terms(v.text)} | {
        t for text in (a.text, b.text) for m in CHANGE_CUE.finditer(text) for t in terms(m[0])
    }
    both = {x.norm for x in va} & {y.norm for y in vb}  # "monthly", "a month": one period
    return covered(own_a - named, own_b - named) + len(both) >= CUE_SHARED_TERMS


def _both_name(question: str, a: Statement, b: Statement) -> bool:
    """Whether both statements name something the question names (in their words, headings
    or the paragraph or list item around them: "Their contact: Colleen Barber" of a list
    under "**Brandywine Vale Housing Association**")."""
    return any(
        all(mentions(f"{s.context} {s.text} {s.around}", [n]) for s in (a, b))
        for n in read_ask(question).names
    )


def _share_a_name(a: Statement, b: Statement, changed: tuple[Value, Value]) -> bool:
    """Whether the two name one thing besides the value that changed ("Postmarque" of
    "Postmarque renewal: $615/mo (was 480)" and "Postmarque is our ESP. Agency plan,
    $480/month."): a capitalised word both write, even where it opens a sentence."""
    said = {w for v in changed for w in v.text.split()}
    both = _capitalised(f"{a.text} {a.around}") & _capitalised(f"{b.text} {b.around}")
    return bool(both - said)


def _capitalised(text: str) -> set[str]:
    """The capitalised words of `text` that may name a thing: not a sentence opener or a
    label (NOT_NAMES), nor a month or a day ("Monday" of a kick-off and of a delivery review
    is a value both give, not what they are about)."""
    return {
        w
        for w in re.findall(r"\b[A-Z][A-Za-z]{3,}\b", text)
        if w.lower() not in NOT_NAMES and w.lower() not in CALENDAR
    }


def _name_in_both(a: Statement, b: Statement, besides: Collection[str] = ()) -> bool:
    """Whether the two name one thing besides `besides`, in their words or headings
    ("Harrowgate launch slipped" and the page under "Harrowgate Rowing Club"); a heading
    both carry ("Log") is their layout, not a name."""
    layout = _capitalised(a.context) & _capitalised(b.context)
    both = _capitalised(f"{a.context} {a.text}") & _capitalised(f"{b.context} {b.text}")
    return bool(both - layout - set(besides))


def _shared_names(a: str, b: str) -> list[Value]:
    theirs = [v for v in values(b) if v.kind == "name"]
    return [v for v in values(a) if v.kind == "name" and any(same(v, w) for w in theirs)]


def _disjoint(a: Sequence[Value], b: Sequence[Value]) -> bool:
    """Neither side's values all appear on the other side."""
    a_in_b = all(any(same(x, y) for y in b) for x in a)
    b_in_a = all(any(same(y, x) for x in a) for y in b)
    return not a_in_b and not b_in_a


def asked_cell(question: str, s: Statement) -> Statement:
    """Of a table's row (`sentences.row_cells`: "Client: Corrowyn Skincare; Account manager:
    Obadiah Tiernan; Client contact: Mireille Grocott."), the one cell whose column the
    question asks about, under a heading naming the row by its first cell; any other
    statement as it is. A row names several people: which one is its answer is the column's,
    or, when the question names no column, the cell's that says most of what it asks and
    holds the asked kind of value."""
    cells = row_cells(s.text)
    if cells is None:
        return s
    asked = _asked(question)
    wanted = [(column, cell) for column, cell in cells[1:] if set(terms(column)) & asked]
    if not wanted:  # no column is asked: the one cell that says most of it ("Main contact:
        # Dr Halima Ostrander — approves every IFU" for who approves the IFUs)
        ask = read_ask(question)
        said = {
            n: len(set(terms(cell)) & asked)
            for n, (_, cell) in enumerate(cells[1:], 1)
            if fits(cell, ask)  # and holds the asked kind of value
        }
        most = max(said.values(), default=0)
        best = [cells[n] for n, k in said.items() if k == most]
        wanted = best if most >= CELL_SHARED_TERMS else []
    if len(wanted) != 1:
        return s
    column, cell = wanted[0]
    trail = " > ".join(x for x in (s.context, cells[0][1]) if x)
    return Statement(f"{column}: {cell}.", trail, s.title, s.text)


def disagreement(
    question: str, a: Statement, b: Statement, kinds: frozenset[str] | None = None
) -> Disagreement | None:
    """The first kind of value (in ORDER; of `kinds` only, if given: those that answer the
    question) the two give differently, if they speak of the same thing; None when they agree,
    share no kind of value, or speak of different things. A route's arrow ("Port Newark →
    Lehigh St") read as a move between places is no answer to what a lane costs."""
    a, b = asked_cell(question, a), asked_cell(question, b)
    if _other_quarters(a.text, b.text) or _other_quarters(b.text, a.text):
        return None
    asked = values(question)
    ca, cb = change_in(a.text), change_in(b.text)
    va, vb = _drop_shared_names(_answers(ca, asked), _answers(cb, asked))
    # a change of words only comes after a difference in the asked kind of value
    deferred: Disagreement | None = None
    for side, change, other, stated in (("a", ca, b, cb.new), ("b", cb, a, ca.new)):
        found = _superseded(change, other, stated)
        if (
            found is not None
            and (kinds is None or found[0].kind in kinds)
            and not _different_things(a, b)
            # the old value named is evidence enough: one word of the question in common, or
            # the name the question asks about ("Ravi handing Saltmarsh over to Wrenna" for
            # Saltmarsh's "Account director: Ravi Castellanos")
            and (
                same_subject(question, a, b, _said(ca), _said(cb), shared_terms=1)
                or _both_name(question, a, b)
                or _share_a_name(a, b, found)
            )
        ):
            mine, theirs = found
            told = Disagreement(
                mine.kind, *((mine, theirs) if side == "a" else (theirs, mine)), superseding=side
            )
            if kinds is None or told.kind != "phrase" or not kinds - {"phrase"}:
                return told
            deferred = deferred or told
    if va and vb and same_subject(question, a, b, va, vb):
        la, lb = _labelled(question, a.text, va), _labelled(question, b.text, vb)
        if kinds is not None:
            la, lb = [v for v in la if v.kind in kinds], [v for v in lb if v.kind in kinds]
        la, lb = _counted_alike(a.text, la, b.text, lb)
        found = _first_difference(*_held(a.text, la, b.text, lb))
        if found is not None:
            return found
    return deferred or _restatement(a, b, ca, cb)


_QUARTER = re.compile(r"\bQ([1-4])\b")
_A_MONTH = re.compile(rf"\b({MONTH_NAMES})\b", re.I)


def _other_quarters(a: str, b: str) -> bool:
    """Whether `a` names a quarter ("Q3 (Jul-Sep): 2,686.5 h against the 2,750 target") and
    `b` speaks only of other quarters' months or quarters ("a target of 2,400 volunteer hours
    for October to December"): two periods' figures, not two sources that disagree."""
    mine = {int(q) for q in _QUARTER.findall(a)}
    if not mine:
        return False
    theirs = {int(q) for q in _QUARTER.findall(b)} | {
        (month_number(m) - 1) // 3 + 1 for m in _A_MONTH.findall(b) if m.lower() != "may"
    }
    return bool(theirs) and not mine & theirs


#: The word between what is done and who does it ("collected by GreenCart Waste", "handled by
#: Vic"): a name after it is labelled by the verb as a name after a colon is by its label.
_AGENT = r"(?:by|is|are|was|were)"


#: How many words either side of a bare number say what it counts ("Units sewn: 380", "down
#: 25 min", "125 mesh").
COUNT_WORDS = 2
_NEAR_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _beside(text: str, value: Value) -> frozenset[str]:
    """The words (stemmed, with their glossary groups) within COUNT_WORDS words of where
    `text` writes `value`."""
    at = text.find(value.text)
    if at < 0:
        return frozenset()
    before = _NEAR_WORD.findall(text[:at])[-COUNT_WORDS:]
    after = _NEAR_WORD.findall(text[at + len(value.text) :])[:COUNT_WORDS]
    return glossary.words(" ".join([*before, *after]))


def _counted_alike(
    a: str, va: Sequence[Value], b: str, vb: Sequence[Value]
) -> tuple[list[Value], list[Value]]:
    """The two sides' values, bare numbers only where one beside a number of the other side
    counts the same thing (a word in common within COUNT_WORDS): "Units sewn: 380" and "Down
    25 min on shift A" give two numbers of two things, not two answers to one."""
    # a unit the number is written with counts as a word beside it: "320°F" and "330°F"
    na = {id(v): _beside(a, v) | _written_unit(v) for v in va if v.kind == "number"}
    nb = {id(v): _beside(b, v) | _written_unit(v) for v in vb if v.kind == "number"}
    keep_a = [v for v in va if v.kind != "number" or any(na[id(v)] & w for w in nb.values())]
    keep_b = [v for v in vb if v.kind != "number" or any(nb[id(v)] & w for w in na.values())]
    return keep_a, keep_b


#: What follows a duration that is the size of a step, not how long something lasts:
#: "billed in 15-minute increments" says nothing of how long free time is.
_STEP = re.compile(r"\s*(?:increments?|steps?|intervals?)\b", re.I)


def _held(
    a: str, va: Sequence[Value], b: str, vb: Sequence[Value]
) -> tuple[list[Value], list[Value]]:
    """The two sides' values of what each says holds: not a step's size (`_not_steps`), nor a
    measure unless both give one (`_measured_alike`)."""
    return _measured_alike(a, _not_steps(a, va), b, _not_steps(b, vb))


def _not_steps(text: str, found: Sequence[Value]) -> list[Value]:
    """`found` without the durations `text` gives as a step's size (`_STEP`)."""
    return [
        v
        for v in found
        if v.kind != "duration"
        or (at := text.find(v.text)) < 0
        or not _STEP.match(text, at + len(v.text))
    ]


#: A word before a value in its sentence that makes it a measure of what happened, not what
#: was said to hold: "P1 average attend time: 31 min (the 19-Nov entrapment took 42 min ...)"
#: is no rule of how quickly to attend.
_MEASURED = re.compile(r"\b(?:average|avg|mean|median)\b", re.I)


def _measured_alike(
    a: str, va: Sequence[Value], b: str, vb: Sequence[Value]
) -> tuple[list[Value], list[Value]]:
    """The two sides' values, a measure (`_MEASURED`) only where the other side gives one."""

    def measured(text: str, v: Value) -> bool:
        at = text.find(v.text)
        return at >= 0 and bool(_MEASURED.search(text, 0, at))

    ma = [v for v in va if measured(a, v)]
    mb = [v for v in vb if measured(b, v)]
    if ma and mb:
        return list(va), list(vb)
    return [v for v in va if v not in ma], [v for v in vb if v not in mb]


def _written_unit(value: Value) -> frozenset[str]:
    """The unit a number's own text carries ("°F" of "320°F"), as a word beside it."""
    unit = re.sub(r"[\d.,\s]+", "", value.text)
    return frozenset({f"unit:{unit.lower()}"}) if unit else frozenset()


def _labelled(question: str, text: str, found: Sequence[Value]) -> list[Value]:
    """`found` with its names narrowed to the one `text` labels with a word of what the
    question asks, where it names several and labels one ("Our contact: **Derek Amsel,
    Director of Facilities.** Everything goes through Derek; he copies the Head of School
    (James Whitcombe)" gives Derek Amsel for a question about a contact; "collected by
    GreenCart Waste from the shared Kingsbridge Plaza bin store" gives GreenCart Waste for who
    collects the waste)."""
    names = [v for v in found if v.kind == "name"]
    if len(names) < 2:
        return list(found)
    asked = _asked(question)
    labelled = [
        v
        for v in names
        if any(
            re.search(
                rf"\b{re.escape(t)}\w*\W{{1,4}}(?:{_AGENT}\W{{1,3}})?{re.escape(v.text)}\b",
                text,
                re.I,
            )
            for t in asked
        )
    ]
    longest = max(labelled, key=lambda v: len(v.text), default=None)
    if longest is None or any(v.text not in longest.text for v in labelled):
        return list(found)  # none labelled, or two people ("Derek" of "Derek Amsel" is one)
    return [v for v in found if v.kind != "name" or v is longest]


def restatement(a: Statement, b: Statement) -> Disagreement | None:
    """The value one side gives anew, with a change cue, for what the other states (see
    `restated`), against the other's; None when neither restates the other."""
    return _restatement(a, b, change_in(a.text), change_in(b.text))


def _restatement(a: Statement, b: Statement, ca: Change, cb: Change) -> Disagreement | None:
    # the value a question gives counts here: a restatement answers "Is X still ...?"
    ra, rb = _drop_shared_names(list(ca.new), list(cb.new))
    if ra and rb and restated(a, b, ra, rb):
        found = _first_difference(*_held(a.text, ra, b.text, rb))
        if found is not None:
            return found
    if ";" not in a.text + b.text:
        return None
    for xa in _clauses(a):  # "hosted with X; Y holds the account": the clause it restates
        for xb in _clauses(b):
            if (xa, xb) != (a, b) and (
                found := _restatement(xa, xb, change_in(xa.text), change_in(xb.text))
            ):
                return found
    return None


def _clauses(s: Statement) -> list[Statement]:
    """The statement's clauses (split at semicolons), each under the statement's headings."""
    parts = [p.strip() for p in s.text.split(";") if p.strip()]
    return [Statement(p, s.context, s.title) for p in parts] if len(parts) > 1 else [s]


def _first_difference(va: Sequence[Value], vb: Sequence[Value]) -> Disagreement | None:
    for kind in ORDER:
        ka = [v for v in va if v.kind == kind]
        kb = [v for v in vb if v.kind == kind]
        if kind == "name":  # "since April" says when, not who; "Estates Manager" what
            ka = [v for v in ka if v.norm not in CALENDAR and not _TITLE.search(v.norm)]
            kb = [v for v in kb if v.norm not in CALENDAR and not _TITLE.search(v.norm)]
            if len(ka) > 1 or len(kb) > 1:
                continue  # with several names a side, which one is the subject is a guess
        if kind == "number" and any(":" in v.norm for v in [*ka, *kb]):
            # a ratio is weighed against ratios: "Minnow 1:5", not "if a class hits 5"
            ka, kb = [v for v in ka if ":" in v.norm], [v for v in kb if ":" in v.norm]
        if kind == "number" and not {_unit(v) for v in ka} & {_unit(v) for v in kb}:
            continue  # "TTFB 468ms" and "three hotels" count different things
        if kind == "duration":  # "a 15-second bumper" and "a test of three weeks" time
            ka, kb = _near(ka, kb), _near(kb, ka)  # different things
        if ka and kb and _disjoint(ka, kb):
            return Disagreement(kind, _first_unmatched(ka, kb), _first_unmatched(kb, ka))
    return None


#: A name that ends in a role ("Estates Manager", "Director of Facilities" aside): a title
#: beside the person, not a second person.
_TITLE = re.compile(
    rf"\b(?:{ROLE_NOUNS}|officer|superintendent|administrator|assistant|partner|principal)$"
)


def _unit(v: Value) -> str:
    """What a number is written in ("ms" of "468ms", "" of "3" and "three")."""
    found = re.fullmatch(r"[\d.,]+\s*([^\d\s]*)", v.text.strip().lower())
    return found[1] if found else ""


#: How many times longer one duration may be than another and still be a value of the same
#: thing: "14 days" and "a month" may be, "1 hour" and "24 hours" too; "15 seconds" and "three
#: weeks" are not, nor a slot's "45 minutes" and a card sent "within 3 days".
DURATION_SPAN = 30


def _near(mine: Sequence[Value], theirs: Sequence[Value]) -> list[Value]:
    """The durations of `mine` within DURATION_SPAN times of one of `theirs`."""
    return [v for v in mine if any(_ratio(v, t) <= DURATION_SPAN for t in theirs)]


def _ratio(a: Value, b: Value) -> float:
    """How many times longer the longer of two durations is (norms are days: "21d")."""
    x, y = sorted(float(v.norm.rstrip("d")) for v in (a, b))
    return y / x if x > 0 else float("inf")


def _first_unmatched(mine: Sequence[Value], theirs: Sequence[Value]) -> Value:
    return next((v for v in mine if not any(same(v, t) for t in theirs)), mine[0])
