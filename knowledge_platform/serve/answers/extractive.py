"""The answer without a language model: sentences quoted from the sources, each with its own
citation, or "not found" when no sentence answers the question well enough.

A sentence joins the answer when it scores at least the calibrated threshold (relevance.py)
and RELATIVE_FLOOR of the best one, holds the kind of value the question asks for (asks.py)
and is not a near duplicate of one already picked; a short paragraph or list item is a
candidate whole beside its sentences (sentences.WHOLE_CHARS: "Security contact: Ana Ruiz.
Report a lost laptop to the security contact." says whom to tell, neither sentence alone),
quoted as its one sentence holding the asked kind of value where that one comes close. An
item of a running page another says it supersedes is quoted as such ("D-3 (superseded by
D-11): ..."), followed by the later item. When the question names a document
("What did ADR 7 decide?"), the answer comes from that document's best sentences that hold
the asked kind of value, threshold or not: the question says where the answer is (a
decision record's own decision first). When the question names something the passages
mention ("HOT", "Orchard Bikes"), only sentences about it are eligible, so facts about two
clients are never merged into one answer. A sentence that only makes sense under its heading
("Account director: Jonas.") is quoted with that heading. When the eligible sentences of
different documents give different values for the same thing, the answer shows both
(conflicts.py); the other side need only score PARTNER_SHARE of the threshold, since the
detector itself checks that both speak of the same thing. Other sources of what the answer
says are looked up with its best sentence as the query (`related`, RELATED_HITS): the
question's wording found one source, the sentence's own words find the others that state
the same thing (a second source giving another value, a later statement that changed it),
whatever the question's phrasing.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Collection, Iterable, Sequence

from knowledge_platform.dating import ARROW, CHANGE, CHANGE_CUE, months_named, months_of
from knowledge_platform.embeddings.base import Embedder
from knowledge_platform.models import Chunk, Hit
from knowledge_platform.serve.answers.asks import LABELLED, Ask, asks_old, mentions, read_ask
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.contract import EXTRACTIVE_LABEL, NOT_FOUND, Answer, now_utc
from knowledge_platform.serve.answers.disagreements import Found, between, find_conflicts
from knowledge_platform.serve.answers.glossary import words
from knowledge_platform.serve.answers.items import Item, Superseding, find_item, superseding_item
from knowledge_platform.serve.answers.lexicon import english
from knowledge_platform.serve.answers.relevance import (
    MIN_SCORE,
    Scored,
    covered,
    field_labels,
    in_window,
    names_the_window,
    score_sentences,
)
from knowledge_platform.serve.answers.sentences import (
    CELL_JOIN,
    During,
    Sentence,
    candidates,
    row_cells,
    row_month,
    said_during,
    sentences_of,
    split_sentences,
    terms,
)
from knowledge_platform.serve.answers.sources import Sources
from knowledge_platform.serve.answers.values import HONORIFICS, Value, same, values

MAX_SENTENCES = 3
MAX_ANSWER_CHARS = 900
MAX_HITS = 6
NEAREST = 3
#: A sentence joins the answer only if it scores at least this share of the best one.
RELATIVE_FLOOR = 0.8
#: A clear winner (`_clear`: every subject word, the asked kind of value, and the next
#: sentence CLEAR_GAP behind) is answered this far below the threshold: retrieval ranked its
#: document low ("#incidents replaces #war-room for incident coordination" for "Where do we
#: coordinate during an outage?", below five outage reports). Tuned on the tune halves: 0.03
#: to 0.1 answer the same; bench/answerable.py's calibration half is unchanged by it.
CLEAR_BELOW = 0.06
CLEAR_GAP = 0.1
#: A question about what happened in a window its words name ("Have we had any crisis
#: call-outs this quarter?") is answered this far below the threshold by the best sentence
#: when that is a log entry of the window holding the asked kind of value and at least
#: relevance.DURING_LEXICAL of the question's subject: the window says much of what the
#: words would. 0.1 to 0.2 measured on the eight tune halves; 0.15 and 0.2 answer the same.
DURING_BELOW = 0.15
#: A best sentence that a newer one of the sentences about the same names says is old
#: ("Event spend over $2,500 needs Cressida's sign-off" and, months later, "any event spend
#: over $2,500 goes to Henrietta for approval, not Cressida"), both holding the asked kind of
#: value, is answered this far below the threshold: two sources saying the same thing
#: changed is evidence the question is about it (the newer is then put first).
CHANGED_BELOW = 0.15
#: A best sentence whose value of the asked kind another document's sentence close behind it
#: gives too (CORROBORATED_SHARE of its score, among the next CORROBORATED_REACH) is answered
#: this far below the threshold: "**Bramble account vet: Dr. Sam Okafor**, from August 3,
#: 2026" and the memo's "Sam takes over the K-9 account from Owen, effective Monday 8/3" for
#: "From what date did Dr. Okafor take over the K-9 account?". Two sources agreeing on the
#: value is evidence the question is about it.
CORROBORATED_BELOW = 0.05
CORROBORATED_SHARE = 0.85
CORROBORATED_REACH = 4
PARTNER_SHARE = 0.7
#: Sentences this short are quoted with their heading when they do not name it themselves.
FRAGMENT_CHARS = 60
#: Two sentences sharing this share of their terms say the same thing: one is quoted.
REPEAT_JACCARD = 0.7
#: The headings of a record's section that says what it decides: "## Decision", "## Outcome",
#: and of a standard or policy kept as a record, what it lays down ("## Standard", "## Policy").
#: A change record's "## Outcome" says what came of its "## Change", not what it decided: the
#: record is read from its lead ("What did CHG-0044 change?").
_DECISION = re.compile(
    r"\s*(decision|outcome|resolution|we\s+decided|standard|proposal|specification|policy|"
    r"rules?)\b",
    re.I,
)
#: A record the question names and asks what it says, without a section that decides, is
#: answered by the lead of each of its first LEAD_SECTIONS sections.
LEAD_SECTIONS = 2
_ASKS_CONTENT = re.compile(
    r"\bwhat(?:'s|\u2019s|s|\s+is|\s+was)\s+(?:in|that|this|it)\b|\bask(?:s|ed)?\s+for\b|"
    r"\b(?:say|says|said|cover|covers|covered|require[sd]?|propose[sd]?|contain(?:s|ed)?|"
    r"call(?:s|ed)?\s+for|"
    r"announce[sd]?|"
    r"about|set(?:s|ting)?\s+out|la(?:y|ys|id)\s+(?:out|down)|specif(?:y|ies|ied)|"
    r"state[sd]?|chang(?:e|es|ed)|conclu(?:de[sd]?|sions?)|find(?:s|ings?)?|found|"
    r"happen(?:s|ed)?|recommend(?:s|ed|ations?)?)\b|"
    # "fp-14, what's the gist?", "what's the rule in there?", "sn-07 in a nutshell"
    r"\b(?:gist|nutshell|tl;?dr|summary|summari[sz]e|in\s+(?:there|it)|the\s+rule)\b",
    re.I,
)
#: The one thing a question asks what a record says about: "... say about repitching yeast?"
_ABOUT = re.compile(r"\b(?:about|regarding|concerning)\s+(?P<topic>[^?!.]+)", re.I)
#: What a question asks of a record without sections, and the label of the line or list that
#: says it: "What did TB-12 require?" is read from its "Required:" list, "what units did it
#: cover" from its "Applies to:" line, not from its first sentence ("Why: 3 ceiling-damage
#: claims last summer ...").
_ASKED_LABELS = (
    (
        re.compile(r"\b(?:requir\w*|must|ha(?:d|ve)\s+to|call(?:s|ed)?\s+for)\b", re.I),
        re.compile(r"^\W*(?:requir\w*|must|mandatory)\b", re.I),
    ),
    (
        re.compile(r"\b(?:cover(?:s|ed)?|appl(?:y|ies|ied)\s+to|scope)\b", re.I),
        re.compile(r"^\W*(?:applies\s+to|scope|covers?|coverage)\b", re.I),
    ),
)
#: A record's paragraph labelled as what it changes or decides: "**Change:** nights 5 and 6
#: move ...", "Decision: ...", "Summary: ...".
_LEAD_LABEL = re.compile(
    r"^\W*(?:what\s+changes|changes?|decision|decided|summary|outcome|resolution|proposal)"
    r"[*_]*\s*:",
    re.I,
)
#: A sentence its author put in bold, or a bold phrase in it: what a section stresses.
_STRESSED = re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__")
#: A sentence that only says which record this one replaces ("Supersedes decision 0003."):
#: what the record decides is elsewhere.
_ONLY_SUPERSEDES = re.compile(
    r"[\s*_]*(?:this\s+(?:[a-z]+\s+)?)?(?:supersedes|replaces)\s+(?:decision|adr|record|rule|"
    r"notice|policy)?\s*#?[\w-]+\.?[\s*_]*$",
    re.I,
)
#: A question for what a record found or concluded ("What did NM-2026-12 find?"), answered by
#: its paragraph led by why it happened or what it found ("**Why**", "**Root cause:**"),
#: rather than by what happened first.
_ASKS_FINDING = re.compile(r"\b(?:conclu\w*|find(?:s|ings?)?|found|why|causes?|caused)\b", re.I)
_FINDING_LEAD = re.compile(
    r"^\W*(?:why|root\s+cause|causes?|findings?|conclusions?|what\s+we\s+found|lessons?)\b", re.I
)
#: Capitalised words in a row: one name ("Saltmarsh Outfitters", "Calloway Dental Group").
_NAME_RUN = re.compile(r"\b[A-Z][\w&'\u2019-]*(?:\s+(?:&\s+)?[A-Z][\w&'\u2019-]*)+")
#: Capitalised words that open a run but name nothing ("What LCP", "The Shade Store").
_NOT_A_NAME = re.compile(
    r"^(?:(?:The|A|An|What|Who|Whom|Whose|When|Where|Which|Why|How|Is|Are|Was|Were|Do|Does|"
    r"Did|Can|Could|Should|Has|Have|Had|Any)\s+)+"
)
#: A question that asks what happened on one day (`day_pick`) is answered by that day's
#: log entries at least this alike in meaning, this many of them.
DAY_SEMANTIC = 0.2
DAY_SENTENCES = 2
DAY_WORDS = 2
_ASKS_WHAT = re.compile(
    r"^\s*(?:what|which|whose|anything|any|(?:did|has|had)\s+anything|(?:was|were)\s+there)\b",
    re.I,
)
#: Words that ask what happened, not about what: "What went wrong on one of our departures
#: on 12 May?", "anything break yesterday?"
_HAPPENED = frozenset(
    terms("one went wrong happen happened break broke broken issue problem fail failed")
)
#: "What incident ...?", "Which policy ...?": a question for which thing, not what it says.
_ASKS_WHICH = re.compile(
    r"^\s*(?:what|which)\s+(?!(?:is|are|was|were|do|does|did|has|have|had|will|would|can|"
    r"could|should|time|day|date|kind|sort|type)\b)[a-z]",
    re.I,
)
#: How many more passages the answer's best sentence looks up in other documents.
RELATED_HITS = 4
#: How many retrieved passages past MAX_HITS are read for a conflict's other side only.
SIDE_HITS = 4
#: `related(text, limit)`: the best `limit` hits for `text` under the question's own scope,
#: grant and date window (the service's search).
Related = Callable[[str, int], Sequence[Hit]]


def eligible(question: str, sources: Sources, embedder: Embedder) -> list[Scored]:
    """Candidate sentences about what the question names, best first."""
    return _partners(question, sources, embedder)[0]


def _partners(
    question: str, sources: Sources, embedder: Embedder, during: During | None = None
) -> tuple[list[Scored], list[Scored]]:
    """(the sentences that may answer: about what the question names, best first; those and
    the statements of change that do not name it, which may only be the other side of a
    conflict)."""
    sentences = candidates(sources, MAX_HITS, during)
    subject = _subject(question, sentences)
    aliases = _aliases(read_ask(question).names, sentences)
    every = _eligible(question, sources, sentences, subject, embedder, True, during, aliases)
    rest = _rest_of_names(question)
    return [s for s in every if _names_subject(s.sentence, subject, rest, during, aliases)], every


def _rest_of_names(question: str) -> dict[str, list[str]]:
    """A name of several words the question gives -> its other words ("Marlow" -> "Mill",
    "Park" of "Marlow Mill Park")."""
    out: dict[str, list[str]] = {}
    for run in _NAME_RUN.findall(question):
        first, *rest = _NOT_A_NAME.sub("", run).split() or [""]
        # "Corvina's TTFB": whose, then what; an abbreviation in capitals is no part of a name
        rest = [w for w in rest if not w.isupper()]
        if rest and not first.endswith(("'s", "\u2019s")):
            out[first] = rest
    return out


#: What may lead a person's name: an honorific, or a role said as one ("Officer Reyes").
TITLES = HONORIFICS | {"officer", "coach", "nurse"}
#: A name in two words ("Sam Okafor"), a person's when a title leads it ("Dr. Sam Okafor").
_FULL_NAME = re.compile(
    rf"\b(?P<title>(?:{'|'.join(t.capitalize() for t in sorted(TITLES))})\.?\s+)?"
    r"([A-Z][a-z]+)\s+([A-Z][a-z]+)\b"
)


def _aliases(names: Collection[str], sentences: Iterable[Sentence]) -> dict[str, list[str]]:
    """A name the question gives in one word ("Dr. Okafor") -> the other word of a person's
    name of two that a passage writes with it ("Sam" of "Dr. Sam Okafor"): the handover memo
    calls him Sam. A person's: a title leads it, or neither word is an English one ("Casco
    Regional" is no person)."""
    out: dict[str, list[str]] = {}
    for s in sentences:
        for title, first, last in _FULL_NAME.findall(s.about):
            if not title and (first.lower() in english() or last.lower() in english()):
                continue
            for name, other in ((last, first), (first, last)):
                if name in names and other not in names and other not in out.get(name, []):
                    out.setdefault(name, []).append(other)
    return out


def _names_subject(
    s: Sentence,
    subject: Sequence[str],
    rest: dict[str, list[str]],
    during: During | None,
    aliases: dict[str, list[str]] | None = None,
) -> bool:
    """Whether `s` is about what the question names: it names each of `subject` (a person
    by the other word of their name, `aliases`), or, said in the window the question asks
    about, another word of each one's name (a crew's chat says "4,200 tulips in at the Mill
    Street beds" of "Marlow Mill Park")."""
    if mentions(s.about, subject):
        return True
    if aliases and all(
        any(mentions(s.about, [w]) for w in (n, *aliases.get(n, ()))) for n in subject
    ):
        return True
    return (
        during is not None
        and said_during(s, during)
        and all(any(mentions(s.about, [w]) for w in (n, *rest.get(n, ()))) for n in subject)
    )


def _subject(question: str, sentences: Sequence[Sentence]) -> list[str]:
    """The names the question gives that the passages mention; of a name of several words,
    its first: a log says "Saltmarsh ROAS 3.6x" of Saltmarsh Outfitters. When no passage
    mentions them all, the most of them one passage mentions."""
    runs = _NAME_RUN.findall(question)
    rest = {w for run in runs for w in _NOT_A_NAME.sub("", run).split()[1:]}
    names = [
        n
        for n in read_ask(question).names
        if n not in rest and any(mentions(s.about, [n]) for s in sentences)
    ]
    if len(names) < 2 or any(mentions(s.about, names) for s in sentences):
        return names
    # no passage names them all ("the Germantown ZBA ... the Abernathy variance" of a task
    # titled "Abernathy — ZBA area variance"): the most of them one passage names, the
    # best-ranked such passage's
    return max(([n for n in names if mentions(s.about, [n])] for s in sentences), key=len)


def unknown_name(question: str, hits: Sequence[Hit]) -> str:
    """A name of several words the question gives ("Quayside Ferries") whose first word no
    retrieved passage mentions, or "": the sources know nothing of it, and a sentence about
    another client's account director would answer a question about an unknown one's. The
    question's own first word is no name's ("Latest Velvetine Cosmetics SOV number?")."""
    said = " ".join(f"{h.chunk.title} {' '.join(h.chunk.headers)} {h.chunk.text}" for h in hits)
    for match in _NAME_RUN.finditer(question):
        run = _NOT_A_NAME.sub("", match.group(0)).split()
        if match.start() == 0 and run and match.group(0).startswith(run[0]):
            run = run[1:]
        if len(run) >= 2:
            first = run[0].removesuffix("'s").removesuffix("\u2019s")
            if not mentions(said, [first]):
                return " ".join(run)
    return ""


def _eligible(
    question: str,
    sources: Sources,
    sentences: Sequence[Sentence],
    subject: Sequence[str],
    embedder: Embedder,
    changes: bool = False,
    during: During | None = None,
    aliases: dict[str, list[str]] | None = None,
) -> list[Scored]:
    """`changes`: a sentence that says something changed (CHANGE_CUE) is kept without naming
    the subject ("Uptime checks now run every minute" for a question about PingPost's
    checks), as a possible other side of a conflict: the conflict detector decides whether
    it speaks of the same thing. `aliases`: see `_aliases` (default: of `sentences`)."""
    ask = read_ask(question)
    priors = {n: 1 / i for i, n in enumerate(sources.citations, 1)}
    rest = _rest_of_names(question)
    if aliases is None:
        aliases = _aliases(ask.names, sentences)
    scored = [
        s
        for s in score_sentences(ask, sentences, embedder, priors, during)
        if _names_subject(s.sentence, subject, rest, during, aliases)
        or (changes and CHANGE_CUE.search(s.sentence.text))
    ]
    return best_first(scored)


def best_first(scored: Collection[Scored]) -> list[Scored]:
    # scores are capped at 1.0: of two there, the one with more of the question's words
    return sorted(
        scored, key=lambda s: (-s.score, -s.lexical, s.sentence.rank, s.sentence.position)
    )


def with_related(
    question: str,
    sources: Sources,
    scored: Sequence[Scored],
    best: Scored,
    related: Related,
    embedder: Embedder,
    during: During | None = None,
) -> tuple[Sources, list[Scored]]:
    """The sources with the passages `related` finds for the best sentence's own words that
    retrieval had not given, and every eligible sentence, with those passages' that may
    give another value than the best sentence (they can only be the other side of a
    conflict, so the rest are not embedded)."""
    known = {h.chunk.id for h in sources.hits}
    # a fragment's subject is in its paragraph ("Agency plan, $480/month." of Postmarque's)
    said = best.sentence.block or best.sentence.text
    more = [h for h in related(said, RELATED_HITS) if h.chunk.id not in known]
    # the retrieved passages past the ones answers are read from may be the other side too
    # (the client list's row, ranked seventh, against the client's own page)
    unread = list(sources.hits[MAX_HITS : MAX_HITS + SIDE_HITS])
    if not more and not unread:
        return sources, list(scored)
    widened = Sources([*sources.hits, *more])
    seen = {s.sentence.text.lower() for s in scored}
    kinds = {v.kind for v in values(best.sentence.text)}
    extra = [
        s
        for s in [
            *sentences_of(widened, unread, MAX_HITS),
            *sentences_of(widened, more, len(sources.hits)),
        ]
        if s.text.lower() not in seen and _may_differ(s.text, kinds)
    ]
    subject = _subject(question, [s.sentence for s in scored])
    found = _eligible(question, widened, extra, subject, embedder, True, during)
    everything = [*scored, *found]
    return widened, best_first(everything)


def _may_differ(text: str, kinds: Collection[str]) -> bool:
    """Whether a sentence may give another value than one holding values of `kinds`: it
    holds one of those kinds, or says a value changed (only these are scored)."""
    return any(v.kind in kinds for v in values(text)) or change_in(text).says_change


def pick(
    scored: Sequence[Scored],
    min_score: float,
    given: Sequence[Value] = (),
    kinds: Collection[str] = (),
    question: str = "",
) -> list[Scored]:
    """The best sentence if it reaches `min_score`, and the next ones that come close, hold
    the asked kind of value and say something new. `given`: the values the question gives
    ("is rounds still wednesday first thing?"); `kinds`: the kinds of value it asks for;
    `question`: its words, which name the one row of a table it asks about."""
    if scored and _clear(scored):
        min_score -= CLEAR_BELOW
    elif scored and in_window(scored[0]):
        min_score -= DURING_BELOW
    elif scored and (_made_old(scored) or _says_given_old(scored[0], given)):
        min_score -= CHANGED_BELOW
    elif scored and _corroborated(scored, kinds, given):
        min_score -= CORROBORATED_BELOW
    if not scored or scored[0].score < min_score:
        return []
    floor = max(min_score, RELATIVE_FLOOR * scored[0].score)
    picked: list[Scored] = []
    total = 0
    for s in scored:
        if s.score < floor or len(picked) >= MAX_SENTENCES:
            break
        if total + len(s.sentence.text) > MAX_ANSWER_CHARS:
            break
        if picked and (not s.fits or any(repeats(s, p) and not _differ(s, p) for p in picked)):
            continue
        if picked and picked[0].during and not s.during:
            continue  # what happened then, not a standing text beside it
        if picked and picked[0].month and not s.month:
            continue  # the month's total, not February's close or a week's row beside it
        if picked and _another_names_row(s, picked[0], question):
            continue  # Northgate's order that week, not Riverside's row below it
        picked.append(s)
        total += len(s.sentence.text)
    return picked


#: The column a table of periods is keyed by: "Week: wk44; Check-ins: 14", "w/c: 11/2; ...".
_PERIOD_COLUMN = re.compile(r"^\W*(?:week|wk|month|w/[ce]|date|day|period)\b", re.I)


def _period_row(text: str) -> bool:
    """Whether `text` is a row of a table of weeks, months or days (of another period than
    the one asked about, when it is not said in it)."""
    cells = row_cells(text)
    return cells is not None and bool(_PERIOD_COLUMN.match(cells[0][0]))


#: A cell of this many words or fewer may be a name (a site's, a client's).
NAME_CELL_WORDS = 3
_CELL_WORD = re.compile(r"[^\W\d_][\w'-]*")


def _shares_two(s: Scored, lead: Scored) -> bool:
    """Whether `s` has two or more of the lead sentence's terms of four letters or more (a
    unit's "day" or "hour" names nothing)."""
    mine, theirs = (
        {t for t in terms(x.sentence.text) if len(t) >= SHARED_CHARS} for x in (s, lead)
    )
    return len(mine & theirs) >= 2


#: How long a term two sentences share must be to say they are about one thing.
SHARED_CHARS = 4


def _another_names_row(s: Scored, lead: Scored, question: str) -> bool:
    """Whether `s` is a row of the lead's table that gives another name in the column where
    the lead gives one the question names ("Site: Riverside" below "Site: Northgate" for
    "northgate pinecrest order total last wk?")."""
    mine, theirs = row_cells(lead.sentence.text), row_cells(s.sentence.text)
    if mine is None or theirs is None or not question:
        return False
    asked = set(_CELL_WORD.findall(question.lower()))
    cells = dict(theirs)
    for column, cell in mine:
        said = _CELL_WORD.findall(cell.lower())
        other = _CELL_WORD.findall(cells.get(column, "").lower())
        if (
            0 < len(said) <= NAME_CELL_WORDS
            and set(said) <= asked
            and other
            and not set(other) <= asked
            and all(w.isalpha() for w in said + other)
        ):
            return True
    return False


def day_pick(ask: Ask, scored: Sequence[Scored], during: During) -> list[Scored]:
    """For a question that asks only what happened on one day ("What broke on 12 May?", "What
    equipment problem did Northgate have on 12 May?", "anything go wrong on the 12th of
    may?": no kind of value or one its sentence holds, at most DAY_WORDS words besides the
    names it gives, the words that ask what happened and those the entry has), which no
    sentence answers: that day's log entries that name what the question names
    (DAY_SENTENCES, at least DAY_SEMANTIC alike in meaning), one that names the day first
    ("On Tuesday 12 May the core switch ... failed") and one its writer put in bold ("**Power
    cut 02:10**") first, each led by the first sentence of its paragraph or list item (what
    happened, before "No harm done") unless in bold itself. The day is what the
    question names; its words are rarely the log's ("hit the mainline" of "What did we damage
    on 14 May?")."""
    start, end = during
    named = {t for n in ask.names for t in terms(n)}
    if start is None or start != end or not _ASKS_WHAT.search(ask.text):
        return []
    asked = ask.subject - named - _HAPPENED
    said = [
        s
        for s in scored
        if s.semantic >= DAY_SEMANTIC
        and (s.fits or not ask.kinds)
        and said_during(s.sentence, during)
        and covered(named, words(s.sentence.context)) == len(named)
        and len(asked) - covered(asked, words(s.sentence.context)) <= DAY_WORDS
    ]
    said.sort(
        key=lambda s: (
            not _names_day(s, start),
            # what the writer put in bold ("**Power cut 02:10**, whole avenue dark")
            not _STRESSED.search(s.sentence.text),
        )
    )
    out: list[Scored] = []
    for s in said:
        lead = s if _STRESSED.search(s.sentence.text) else _block_lead(s, scored)
        out.extend(x for x in (lead, s) if x not in out)
    return out[:DAY_SENTENCES]


def _notable(s: Scored, during: During) -> bool:
    """Whether a day's entry says what happened notably: its writer put it in bold, or it
    names that day."""
    return bool(_STRESSED.search(s.sentence.text)) or _names_day(s, during[0])


def _names_day(s: Scored, day: dt.date | None) -> bool:
    """Whether the sentence names `day` ("On Tuesday 12 May the core switch failed")."""
    said = f"-{day:%m-%d}" if day else "~"
    return any(v.kind == "date" and v.norm.endswith(said) for v in values(s.sentence.text))


#: A best sentence of this few words is a lead-in ("**2026.05.12** — Bad one."): what
#: happened is the sentence after it.
LEAD_IN_WORDS = 3
_BOLD_LEAD = re.compile(r"^\s*\*\*[^*\n]*\*\*\s*[\u2014\u2013:|-]?\s*")


def _with_what_follows(picked: list[Scored], every: Sequence[Scored]) -> list[Scored]:
    """`picked` with the sentence that follows its first in the same paragraph next, when
    the first is only a lead-in (LEAD_IN_WORDS words or fewer after its bold lead)."""
    if not picked or len(_BOLD_LEAD.sub("", picked[0].sentence.text).split()) > LEAD_IN_WORDS:
        return picked
    return _and_next(picked, every)


def _with_successor(picked: list[Scored], every: Sequence[Scored]) -> list[Scored]:
    """`picked` with, after a sentence of it that says a value is old and names nothing in
    its place ("TimeSlate is out as of Friday 7/31 at 6 p.m."), the sentence of its paragraph,
    up to SUCCESSOR_REACH on, that says a change and names a value of the old one's kind
    ("Dumpsters: we're done with Pisgah Roll-Off." ... "Starting today, ... Swannanoa Waste
    Services handles all our roll-offs."); after the first, else the sentence that follows
    it ("We use LexLedger now — ...")."""
    out: list[Scored] = []
    for at, p in enumerate(picked):
        out.append(p)
        said = change_in(p.sentence.text)
        # (what the sentence names besides, "the one at Baird", is nothing in its place)
        if not (said.old or said.old_text) or said.new_text:
            continue
        later = _paragraph_after(p, every, SUCCESSOR_REACH)
        kinds = {v.kind for v in said.old}
        named = next(
            (
                x
                for x in later
                if CHANGE_CUE.search(x.sentence.text)
                and any(v.kind in kinds for v in values(x.sentence.text))
            ),
            None,
        )
        if named is None and at == 0:
            named = next(iter(_paragraph_after(p, every, 1)), None)
        if named is not None and named not in picked and named not in out:
            out.append(named)
    return out


#: How many sentences after a statement that something is out its replacement may be named.
SUCCESSOR_REACH = 3


def _paragraph_after(s: Scored, every: Sequence[Scored], reach: int) -> list[Scored]:
    """The sentences of `every` that follow `s` in its paragraph or list item, up to `reach`
    on, nearest first (none for a sentence outside one)."""
    first = s.sentence
    if not first.block:
        return []
    return sorted(
        (
            x
            for x in every
            if x.sentence.chunk is first.chunk
            and first.position < x.sentence.position <= first.position + reach
            and x.sentence.block == first.block
        ),
        key=lambda x: x.sentence.position,
    )


def _and_next(picked: list[Scored], every: Sequence[Scored]) -> list[Scored]:
    """`picked` with the sentence of `every` that follows its first in the same paragraph
    next, if any."""
    after = next(iter(_paragraph_after(picked[0], every, 1)), None)
    if after is None or after in picked:
        return picked
    return [picked[0], after, *picked[1:]]


def _block_lead(s: Scored, scored: Sequence[Scored]) -> Scored:
    """The first sentence of the paragraph or list item `s` is part of, if scored; else `s`."""
    block = s.sentence.block
    if not block or block.startswith(s.sentence.text):
        return s
    return next(
        (
            x
            for x in scored
            if x.sentence.block == block
            and x.sentence.chunk is s.sentence.chunk
            and block.startswith(x.sentence.text)
        ),
        s,
    )


def _clear(scored: Sequence[Scored]) -> bool:
    """Whether the best sentence is a clear winner: every subject word, the asked kind of
    value, and the next sentence CLEAR_GAP behind."""
    best = scored[0]
    gap = best.score - (scored[1].score if len(scored) > 1 else 0.0)
    return best.lexical == 1.0 and best.fits and gap >= CLEAR_GAP


def _made_old(scored: Sequence[Scored]) -> bool:
    """Whether a newer sentence holding the asked kind of value says the best one's value is
    old (`_makes_old`; the best one holds the asked kind too)."""
    best = scored[0]
    said = best.sentence.date
    if not best.fits or said is None:
        return False
    return any(
        s.fits and s.sentence.date is not None and s.sentence.date > said and _makes_old(s, best)
        for s in scored[1:]
    )


def _corroborated(scored: Sequence[Scored], kinds: Collection[str], given: Sequence[Value]) -> bool:
    """Whether another document's sentence close behind the best one gives its value of the
    asked kind (not one the question gives), both holding that kind."""
    wanted = {"name" if k == "person" else k for k in kinds}
    best = scored[0]
    if not wanted or not best.fits:
        return False

    def own(s: Scored) -> list[Value]:
        return [
            v
            for v in values(s.sentence.text)
            if v.kind in wanted and not any(same(v, g) for g in given)
        ]

    mine = own(best)
    return bool(mine) and any(
        s.fits
        and s.score >= CORROBORATED_SHARE * best.score
        and s.sentence.chunk.doc_id != best.sentence.chunk.doc_id
        and any(same(v, w) for v in mine for w in own(s))
        for s in scored[1 : 1 + CORROBORATED_REACH]
    )


def _says_given_old(best: Scored, given: Sequence[Value]) -> bool:
    """Whether the best sentence holds the asked kind of value and says a value the question
    gives is old ("No more Wednesday 07:30" for "is rounds still wednesday?"): asked whether
    it still holds, the change that ended it answers."""
    if not best.fits or not given:
        return False
    return any(same(old, g) for old in change_in(best.sentence.text).old for g in given)


def _own_sentences(
    picked: Sequence[Scored], scored: Sequence[Scored], asks_kind: bool
) -> list[Scored]:
    """`picked` with a whole paragraph or list item replaced by its one sentence that answers
    alone, where that one comes close (RELATIVE_FLOOR): "Account director: Jonas." rather
    than the paragraph that also gives HOT's focus and KPI. A sentence answers alone when it
    holds the asked kind of value, or, when the question asks for none, has every word of the
    question's subject in its own words and headings (lexical 1.0), and it names as much of
    that subject as the whole does ("Yevgenia and Caradoc got it in a day ahead" does not say
    what went in)."""
    out: list[Scored] = []
    for p in picked:
        parts = [
            s
            for s in scored
            if s.sentence.block == p.sentence.text
            and (s.fits if asks_kind else s.lexical == 1.0)
            and s.lexical >= p.lexical
        ]
        one = len(parts) == 1 and parts[0].score >= RELATIVE_FLOOR * p.score
        chosen = parts[0] if one else p
        if all(chosen is not o for o in out):
            out.append(chosen)
    return out


def newest_first_pick(
    question: str,
    picked: Sequence[Scored],
    partners: Sequence[Scored],
    min_score: float,
    during: During | None = None,
) -> list[Scored]:
    """`picked` led by the newest dated sentence of another document that may answer the
    question itself (it scores what a conflict's other side must, of the threshold or of the
    best sentence if higher; a change mark alone is not enough) and gives another value than
    the best one for the same thing (a measurement logged on several dates): the current
    value comes first, the older ones as its conflicts. A best sentence said in the window
    the question asks about (`during`) that names its month or quarter is its figure,
    whatever came later."""
    best = picked[0]
    when = best.sentence.date
    if when is None or (during is not None and _names_window(best, during)):
        return list(picked)
    rivals = [
        e
        for e in partners
        if e.sentence.date is not None
        and e.sentence.date > when
        # of one log, a later day's entry only when it says the best one's value is old
        and _elsewhere(e, best)
        and (e.sentence.chunk.doc_id != best.sentence.chunk.doc_id or _makes_old(e, best))
        # a statement of change that names the best sentence's value as old need only pass
        # the share of the threshold it lowers (a hand-over rarely repeats the title it
        # hands over)
        and e.score
        >= PARTNER_SHARE
        * (min_score - CHANGED_BELOW if _makes_old(e, best) else max(min_score, best.score))
        and between(question, best.sentence, e.sentence)
    ]
    if not rivals:
        return list(picked)
    # a newer statement that says the best one's value is old outranks a newer page that
    # merely says otherwise ("Holds are released unless Fergus extends them" is no hand-over
    # of an approval); of several, the one most about the question ("The weekly delivery
    # review moved from Monday" also says a Monday is old)
    changes = [e for e in rivals if _makes_old(e, best)]
    if changes:
        lead = max(changes, key=lambda e: (e.score, e.sentence.date))
    else:
        # a newer standing page that names fewer of the question's words speaks of something
        # else ("Any P1 ... gets an incident report" is no rival of "P1 pages: acknowledge
        # within 10 minutes" for how quickly a P1 page is acknowledged); a newer log line
        # rarely repeats the page's words ("It's 70 cents a mile, not 72")
        rivals = [
            e for e in rivals if e.lexical >= best.lexical or e.sentence.chunk.time_kind == "event"
        ]
        if not rivals:
            return list(picked)
        lead = max(rivals, key=lambda e: (e.sentence.date, e.score))
    return [lead, *(p for p in picked if p is not lead)]


def _names_window(s: Scored, during: During) -> bool:
    return said_during(s.sentence, during) and names_the_window(s.sentence, during)


def _elsewhere(a: Scored, b: Scored) -> bool:
    """Whether `a` is said apart from `b`: in another document, or in another day's entry of
    one log (a month's chat export: "Correction to yesterday — Laurel Ridge is $56/ton, not
    61" of the day before's "tipping goes to $61/ton")."""
    if a.sentence.chunk.doc_id != b.sentence.chunk.doc_id:
        return True
    return (
        a.sentence.chunk.time_kind == "event"
        and b.sentence.chunk.time_kind == "event"
        and a.sentence.date != b.sentence.date
    )


def _makes_old(change: Scored, s: Scored) -> bool:
    """Whether `change` is a statement of change that says a value `s` holds is old (not one
    `s` itself says is old: "The weekly delivery review moved from Monday" does not make
    "toolbox talk is Wednesday 6:30, not Monday" old)."""
    if CHANGE not in change.sentence.chunk.marks:
        return False
    found = change_in(change.sentence.text).old_in(s.sentence.text)
    own = change_in(s.sentence.text)
    if not own.says_change:
        return bool(found)
    return any(v.kind != "phrase" and any(same(v, n) for n in own.new) for v in found)


def _stale(question: str, s: Scored, lead: Scored, conflicts: Sequence[Found]) -> bool:
    """An older sentence than the lead that gives another value for the same thing and no
    conflict shows as older: left out rather than quoted as if it held."""
    if any(s is side.scored for found in conflicts for side in found.sides):
        return False
    dates = s.sentence.date, lead.sentence.date
    if dates[0] is not None and dates[1] is not None and dates[0] > dates[1]:
        return False
    # the value a statement of change leading the answer says is old, said again beside it
    # ("Going forward the PM huddle is Tuesdays at 8:30, not Mondays 9:00." then "Monday
    # mornings are eaten by weekend WOs"): no answer to what holds now
    said = change_in(lead.sentence.text)
    if (
        said.says_change
        and said.old_in(s.sentence.text)
        and not change_in(s.sentence.text).says_change
        and not asks_old(question)
    ):
        return True
    return (
        dates[0] is not None
        and dates[1] is not None
        and dates[0] < dates[1]
        and between(question, s.sentence, lead.sentence) is not None
    )


def _inside(a: Scored, b: Scored) -> bool:
    """Whether `a` is a sentence of the paragraph or list item `b` quotes whole."""
    return a.sentence.text != b.sentence.text and a.sentence.text in b.sentence.text


def repeats(a: Scored, b: Scored) -> bool:
    """Whether two sentences say nearly the same thing (the same rule in two sources), or one
    is part of the other (a sentence and its list item)."""
    if _inside(a, b) or _inside(b, a):
        return True
    ta, tb = set(terms(a.sentence.text)), set(terms(b.sentence.text))
    return bool(ta and tb) and len(ta & tb) / len(ta | tb) >= REPEAT_JACCARD


def _differ(a: Scored, b: Scored) -> bool:
    va, vb = values(a.sentence.text), values(b.sentence.text)
    return any(x.kind == y.kind for x in va for y in vb) and not all(
        any(same(x, y) for y in vb) for x in va
    )


def focus_pick(question: str, focus: Sequence[Scored]) -> list[Scored]:
    """The answer from the documents the question names (`focus`, best first): their best
    sentences holding the asked kind of value; of a decision record, its decision section's,
    and of several records the question names alike ("decision 4" of two series kept in one
    workspace), each one's best; of one record without a decision section that the question
    asks what it says ("What did CR-014 ask for?"), its lead (`_record_lead`)."""
    fitting = [s for s in focus if s.fits]
    changed = {s.sentence.chunk.doc_id for s in focus if _CHANGE_SECTION.match(_heading(s))}
    decided = [
        s
        for s in fitting
        if _in_decision(s)
        and not (s.sentence.chunk.doc_id in changed and _OUTCOME.match(_heading(s)))
    ]
    records = list(dict.fromkeys(s.sentence.chunk.doc_id for s in decided))
    if len(records) > 1:
        # every sentence fits when the question asks for no kind of value ("What does decision
        # 4 say?"): each record's lead answers it, not whichever sentence scores best
        lead = len(fitting) == len(focus)
        return [
            _first_said(s for s in decided if s.sentence.chunk.doc_id == d)
            if lead
            else next(s for s in decided if s.sentence.chunk.doc_id == d)
            for d in records
        ]
    if decided and len(fitting) == len(focus):
        # a question for no kind of value ("What does OPS-011 decide?"): the decision as the
        # record states it first ("On-call paging moves from Klaxo to Ringfold."), then what
        # else of it scores best
        first = _first_said(decided)
        return [first, *(s for s in pick(decided, 0.0) if s is not first)][:MAX_SENTENCES]
    if not decided and asks_content(question) and (on := _on_topic(question, focus)):
        return pick(on, 0.0)  # what it says of the one thing asked, not what it says first
    if (
        not decided
        and asks_content(question)
        and not _ASKS_ATTRIBUTE.match(question)
        and (lead := _record_lead(question, focus))
    ):
        # and what it says of the asked kind of value ("... and what does it cost?")
        more = [
            s
            for s in pick(fitting, 0.0)
            if not LABELLED.match(s.sentence.text) and not _HEADER_BLOCK.search(s.sentence.text)
        ]
        return [*lead, *(s for s in more[:1] if s not in lead)]
    return pick(decided or fitting, 0.0)


#: A question for one thing a record says, by its name before the record's ("What free
#: chlorine level did SP-9 require before a shocked pool could reopen?"): answered by the
#: record's sentence that says it best, not by what the record says first.
_ASKS_ATTRIBUTE = re.compile(
    r"^\W*(?:what|which)\s+(?!(?:did|does|do|is|was|are|were|has|have|had|will|would|"
    r"should|can|could|must|exactly|else|specifically|in|changes?|steps?|rules?|"
    r"requirements?)\b)[a-z][\w-]*\s+(?:[a-z][\w-]*\s+){0,3}(?:did|does|do)\s+[A-Z]",
    re.I,
)


def asks_content(question: str) -> bool:
    """Whether the question asks what a record says, covers or asks for, not one of its
    attributes ("What does P-06 require?", "what's in CR-022?")."""
    return bool(_ASKS_CONTENT.search(question))


def _on_topic(question: str, focus: Sequence[Scored]) -> list[Scored]:
    """Of `focus`, best first, the sentences that hold, in their own words or their
    section's headings (not the record's title, which names all it covers), at least half
    the terms of the one thing the question asks the record about ("What does SOP-CELLAR-02
    say about repitching yeast?": its "Before repitching" section), or of a question for a
    kind of value, those holding one with any of those terms; none when it asks of no one
    thing."""
    m = _ABOUT.search(question)
    topic = set(terms(m["topic"])) if m else set()
    if not topic:
        return []
    # a question for a kind of value ("... say about how quickly we respond to complaints?"):
    # the sentences holding one, with any of the topic's terms ("within **3 working days**")
    fitting = [s for s in focus if s.fits]
    asks_kind = len(fitting) < len(focus)
    need = 1 if asks_kind else (len(topic) + 1) // 2
    return [
        s
        for s in (fitting if asks_kind else focus)
        if covered(topic, words(" ".join([*_section(s), s.sentence.text]))) >= need
        and (_section(s) or not LABELLED.match(s.sentence.text))  # not "Version: 1.0"
    ]


def _section(s: Scored) -> tuple[str, ...]:
    """The headings of the section `s` is in below its document's title (none: its
    preamble)."""
    chunk = s.sentence.chunk
    return tuple(h for h in chunk.headers if h != chunk.title)


def _record_lead(question: str, focus: Sequence[Scored]) -> list[Scored]:
    """What the best record of `focus` says first: of each of its first LEAD_SECTIONS
    sections after its preamble (the "Client:", "Status:" lines before them), the sentence
    it puts in bold, or its first ("## Change: Add a second LED wall ..., 6m x 3.5m",
    "## Cost: $18,400 ..."); of a record without sections, its first sentence that is not a
    labelled line of its header block ("Issued: 19 Jan 2026", "Status: In force"); asked
    what it found, its paragraph led by why ("**Why** U-100 syringes were in the same ward
    drawer ...")."""
    doc = focus[0].sentence.chunk.doc_id
    said_in_order = sorted(
        (s for s in focus if s.sentence.chunk.doc_id == doc),
        key=lambda s: (s.sentence.chunk.ordinal, s.sentence.position),
    )
    mine = [s for s in said_in_order if _section(s)]
    if not mine:  # no sections: the paragraph it labels its change or decision ("**Change:**
        # nights 5 and 6 move to Casa Vicentina"), else its first sentence after the header
        # block's labelled lines and fields ("**Issued:** Wed 8 Jul 2026 · **By:** Ruaridh")
        found = [s for s in said_in_order if _FINDING_LEAD.match(s.sentence.text)]
        if not _ASKS_FINDING.search(question):
            found = []
        first = (
            found[:1]
            or _labelled_as_asked(question, said_in_order)
            or [s for s in said_in_order if _LEAD_LABEL.match(s.sentence.text)][:1]
            or [
                s
                for s in said_in_order
                if not LABELLED.match(s.sentence.text)
                and not _ONLY_SUPERSEDES.match(s.sentence.text)
                and not field_labels(s.sentence.text)
                and not _HEADER_BLOCK.search(s.sentence.text)
            ][:1]
        )
        # its paragraph, when short enough to be read whole ("Liftec will modernise lift 2.
        # Lift 2 will be out of service from Monday 6 July to Friday 24 July 2026.")
        lead = [next((w for w in said_in_order if _paragraph_of(w, s)), s) for s in first]
        # ... and a paragraph that opens a list ("At the fuel dock:"), the list's first item
        opened = [s for s in lead if s.sentence.text.rstrip().endswith(":")]
        return lead + [
            nxt for s in opened for nxt in _next_said(said_in_order, s) if nxt not in lead
        ]
    sections: dict[tuple[str, ...], list[Scored]] = {}
    for s in mine:
        sections.setdefault(_section(s), []).append(s)
    return [
        next((s for s in said if _STRESSED.search(s.sentence.text)), said[0])
        for said in list(sections.values())[:LEAD_SECTIONS]
    ]


def _labelled_as_asked(question: str, said_in_order: Sequence[Scored]) -> list[Scored]:
    """Of a record's sentences in the order it says them, the first labelled with a word of
    the question's (`_label_asked`: "**Before reopening:** free chlorine must read ...") and
    the first of each line labelled as what the question asks of it (`_ASKED_LABELS`:
    "Applies to: every air handler / furnace+coil in an attic."); of a list so labelled, its
    first two items ("Required: 1. Secondary drain pan ... 2. Float switch in the secondary
    pan ...")."""
    given = {t for v in read_ask(question).given for t in terms(v.text)}
    asked_terms = set(terms(question)) - given  # the record's own number is no label's word
    firsts = [s for s in said_in_order if _label_asked(asked_terms, s)][:1]
    for asked, label in _ASKED_LABELS:
        labelled = (s for s in said_in_order if label.match(s.sentence.lead or s.sentence.text))
        if asked.search(question) and (first := next(labelled, None)) is not None:
            firsts.append(first)
    found: list[Scored] = []
    for first in firsts:
        lead = first.sentence.lead
        items = [s for s in said_in_order if lead and s.sentence.lead == lead][:2]
        found += [s for s in items or [first] if s not in found]
    return found


def _label_asked(asked_terms: Collection[str], s: Scored) -> bool:
    """Whether the label `s` opens with, bold or before a colon ("**Before reopening:** free
    chlorine must read ...", "Required on every install ...:" over a list's item), has a
    word of `asked_terms`, the question's other than the record's own number ("What does
    SP-26 require before a pool can reopen ...?")."""
    text = s.sentence.text
    label = s.sentence.lead or ((m[1] or m[2]) if (m := _OPENING_LABEL.match(text)) else "")
    if not label or _HEADER_BLOCK.search(label) or _BY.search(label):
        return False  # "Reported by:" is its header's, whatever the question's "report"
    return not set(terms(label)).isdisjoint(asked_terms)


#: A label naming who did it ("Reported by", "Issued by"): the record's header, not its body.
_BY = re.compile(r"\bby\b", re.I)
#: A sentence's opening label: "**Before reopening:**", "Applies to:".
_OPENING_LABEL = re.compile(r"^\W*(?:\*\*([^*\n]{2,40}?):?\*\*|([^\W\d][\w ]{1,30}):)\s")


#: A record's header line that the splitter ran into the next ("Rev. 1 · March 2022 Status:
#: Current"): a revision line, or a field of the header block within it.
_HEADER_BLOCK = re.compile(
    r"^\W*(?:rev(?:ision)?\.?|version|v)\s*\d|\b(?:status|owner|issued|approved|signed)\s*:",
    re.I,
)


def _next_said(said_in_order: Sequence[Scored], s: Scored) -> list[Scored]:
    """The sentence said right after `s` (and not inside it), if any."""
    key = (s.sentence.chunk.ordinal, s.sentence.position)
    after = [
        w
        for w in said_in_order
        if (w.sentence.chunk.ordinal, w.sentence.position) > key
        and w.sentence.text not in s.sentence.text
    ]
    return after[:1]


def _paragraph_of(whole: Scored, s: Scored) -> bool:
    """Whether `whole` is the paragraph `s` opens, read as one sentence."""
    return (
        whole.sentence.chunk is s.sentence.chunk
        and len(whole.sentence.text) > len(s.sentence.text)
        and whole.sentence.text.startswith(s.sentence.text)
    )


def _first_said(sentences: Iterable[Scored]) -> Scored:
    """Of one record's decision sentences, the first it states, passing over a note of the
    record it supersedes ("Supersedes decision 0003.")."""
    given = list(sentences)
    stated = [s for s in given if not _ONLY_SUPERSEDES.match(s.sentence.text)] or given
    return min(stated, key=lambda s: (s.sentence.chunk.ordinal, s.sentence.position))


def _better_elsewhere(scored: Sequence[Scored], named: Scored) -> bool:
    """Whether a sentence of another document says more of what the question asks than the
    best of the documents it names, and scores above it: a client's page is named by the
    client's name, and what it says may not be what is asked of that client (a record's
    decision is what a question naming the record asks, whatever else scores higher)."""
    best = scored[0]  # `named` is one of `scored`
    return best.lexical > named.lexical and best.score > named.score and best.fits


#: The share of its words a standing text's sentence has in common with the answer's, to be
#: read as the same statement worded again ("We keep client workpapers and source documents
#: for seven years after the engagement ends" of "... are kept for five years ...").
RESTATED_SHARE = 0.6


def _restates(s: Scored, best: Scored) -> bool:
    """Whether `s`, a standing text's sentence in another document than the answer's, says
    most of what the answer's own (standing) sentence says in its words."""
    a, b = s.sentence, best.sentence
    if a.chunk.doc_id == b.chunk.doc_id or "event" in (a.chunk.time_kind, b.chunk.time_kind):
        return False
    mine, theirs = words(a.text), words(b.text)
    return bool(mine) and len(mine & theirs) >= RESTATED_SHARE * min(len(mine), len(theirs))


_CHANGE_SECTION = re.compile(r"\s*(?:the\s+)?changes?\s*$", re.I)
_OUTCOME = re.compile(r"\s*outcome\b", re.I)


def _heading(s: Scored) -> str:
    """The nearest heading of the section `s` is in, below its record's title ("" when none)."""
    return next(reversed(_section(s)), "")


def _in_decision(s: Scored) -> bool:
    """Whether `s` is in a record's decision section, or in a record of one section whose
    title names it a decision ("Decision 0004: A second person reviews ...")."""
    return any(_DECISION.match(h) for h in _section(s) or (s.sentence.chunk.title,))


def quoted(
    s: Scored,
    named: Collection[str] = (),
    shown: Collection[str] = (),
    during: During | None = None,
) -> str:
    """The sentence as the answer quotes it: with its heading when it is a fragment, with its
    day when that is what the question asks, after the sentence of its paragraph that names
    what it speaks of when it does not (`_lead`; `named`: the terms of the names the question
    gives; `shown`: the sentences the answer quotes anyway), or after its writer's handle when
    it speaks in the first person; a table row's cells of months
    outside the month `during` names left out (`in_window_cells`)."""
    text, heading = s.sentence.text, s.sentence.heading
    if during is not None:
        text = in_window_cells(text, *during)
    lead = _lead(s.sentence, named)
    if s.led:  # what it fits by is the line its list item is led by
        text = f"{s.sentence.lead}: {text}"
    elif lead and lead.removesuffix(" …") not in shown:
        text = f"{lead} {text}"
    elif s.sentence.speaker:  # "Ben: I'm the Pourtrail admin, ..."
        text = f"{s.sentence.speaker}: {text}"
    if s.on is not None:  # "2026-04-13 (Monday 13 April) — We've moved off Redlinery."
        return f"{s.on.isoformat()} ({s.on:%A} {s.on.day} {s.on:%B}) — {text}"
    if heading and len(text) <= FRAGMENT_CHARS and not set(terms(heading)) & set(terms(text)):
        return f"{heading} — {text}"
    return text


def record_titles(question: str, shown: Sequence[Scored]) -> dict[int, str]:
    """For a question that asks which thing ("What incident did we have on 12 May?"), the
    title of a numbered record each shown sentence of it is first to quote ("INC-2026-007 —
    Middle school core switch failure: "), by id, when the sentence does not give the
    record's number itself: which record it is, is what the question asks."""
    if not _ASKS_WHICH.search(question):
        return {}
    out: dict[int, str] = {}
    seen: set[str] = set()
    for s in shown:
        chunk = s.sentence.chunk
        if chunk.doc_id in seen:
            continue
        seen.add(chunk.doc_id)
        codes = [v.text for v in values(chunk.title) if v.kind == "code"]
        if codes and not any(c in s.sentence.text for c in codes):
            out[id(s)] = f"{chunk.title}: "
    return out


def in_window_cells(text: str, start: dt.date | None, end: dt.date | None) -> str:
    """A table row's sentence without the cells of its columns named by a month the window of
    whole months [start, end] leaves out: "Engineering hours used; October 2026: 34.5;
    September 2026: 26.75." asked of October says "Engineering hours used; October 2026:
    34.5." (the September column is another month's value, quoted as if it held)."""
    months = months_of(start, end)
    if not months or CELL_JOIN not in text:
        return text
    parts = text.rstrip(".").split(CELL_JOIN)
    named = [months_named(p.split(":", 1)[0]) if ":" in p else frozenset() for p in parts]
    if not any(n & months for n in named) or not any(n and not n & months for n in named):
        return text
    return CELL_JOIN.join(p for p, n in zip(parts, named, strict=True) if not n or n & months) + "."


def _lead(s: Sentence, named: Collection[str]) -> str:
    """The sentence before `s` in its paragraph that names what the question names and `s`
    does not ("Ebbfleet's report on the Brindlecombe pilot is in." before "The two bays ran
    side by side for three weeks"), "…" after it when another sentence comes between; "" when
    `s` names it itself or none before it does."""
    if not s.block or not named:
        return ""
    missing = [t for t in named if not covered([t], words(s.context))]
    parts = split_sentences(s.block)
    if not missing or s.text not in parts:
        return ""
    at = parts.index(s.text)
    for i in range(at - 1, -1, -1):
        if covered(missing, words(parts[i])):
            return parts[i] if i == at - 1 else f"{parts[i]} …"
    return ""


def not_found(
    hits: Sequence[Hit],
    *,
    scope: str,
    best: float,
    min_score: float,
    warnings: Sequence[str],
    when: dt.datetime,
    why: str = "",
) -> Answer:
    sources = Sources(hits)
    nearest = list(sources.citations.values())[:NEAREST]
    listed = "; ".join(f"{c.title} [{c.number}]" for c in nearest)
    text = NOT_FOUND + (f" Nearest sources: {listed}." if listed else "")
    note = (
        f"not found: no retrieved sentence answers the question (best score {best:.2f}, "
        f"threshold {min_score:.2f}); the citations are the nearest sources, not an answer"
    )
    if why:
        note = f"not found: {why}; the citations are the nearest sources, not an answer"
    if not hits:
        note = f"not found: nothing in scope '{scope}' matched the question"
    return Answer(
        answer=text,
        citations=nearest,
        confidence=round(max(best, 0.0), 3),
        warnings=[*warnings, note],
        mode="not_found",
        retrieval_date=when,
    )


def item_answer(
    item: Item, sources: Sources, *, warnings: Sequence[str], when: dt.datetime
) -> Answer:
    """The numbered item the question names, quoted whatever its score (the question says
    which it is), and the item that supersedes it, if one says so."""
    ref = sources.number[item.chunk.doc_id]
    body = f"{item.label} — {item.text} [{ref}]"
    quoted_from = {ref: item.chunk}
    notes = list(warnings)
    later = item.superseded_by
    if later is not None:
        later_ref = sources.number[later.chunk.doc_id]
        quoted_from.setdefault(later_ref, later.chunk)
        body += (
            f" ({item.label} is superseded by {later.label} [{later_ref}], which says:)"
            f" {later.label} — {later.text} [{later_ref}]"
        )
        notes.append(f"{item.label} is superseded by {later.label}")
    text, cited, _ = sources.in_order_of_use(f"{EXTRACTIVE_LABEL} {body}", quoted_from)
    return Answer(
        answer=text,
        citations=cited,
        confidence=1.0,
        warnings=notes,
        mode="extractive",
        retrieval_date=when,
    )


def newest_first(
    shown: Sequence[Scored], conflicts: Sequence[Found], old: Collection[int] = ()
) -> list[Scored]:
    """`shown` with every sentence a conflict says is older, or a newer statement of change
    makes old (`old`, by id), after the others."""
    older = {id(side.scored) for found in conflicts if (side := found.older()) is not None}
    return sorted(shown, key=lambda s: id(s) in older or id(s) in old)


def successor_sentences(
    shown: Sequence[Scored],
    scored: Sequence[Scored],
) -> dict[int, Scored]:
    """For the first shown sentence of each superseded document (by id), the best sentence
    of the document that supersedes it (of its decision section, for a decision record;
    not the line that only says it supersedes), where one was retrieved."""
    best: dict[str, Scored] = {}
    # stable: best first; a line that only says it supersedes says nothing of what it holds
    for s in sorted(
        scored, key=lambda s: (not _in_decision(s), bool(_ONLY_SUPERSEDES.match(s.sentence.text)))
    ):
        best.setdefault(s.sentence.chunk.doc_id, s)
    later: dict[int, Scored] = {}
    done: set[str] = set()
    for s in shown:
        succ = s.sentence.chunk.successor
        if succ and succ in best and s.sentence.chunk.doc_id not in done:
            done.add(s.sentence.chunk.doc_id)
            later[id(s)] = best[succ]
    return later


def superseded_items(
    shown: Sequence[Scored], scored: Sequence[Scored], known: dict[int, Scored]
) -> dict[int, tuple[Scored, Superseding]]:
    """For each shown sentence (by id; none `known` to be superseded already) of a numbered
    item another supersedes ("## D-3 — Code review" and "## D-11 — Two reviewers: ... This
    supersedes D-3." of one running decisions page): the sentence of the item that supersedes
    it the answer shows, else its best, and the two items' labels."""
    later: dict[int, tuple[Scored, Superseding]] = {}
    chunks = list({s.sentence.chunk.id: s.sentence.chunk for s in scored}.values())
    for s in shown:
        found = None if id(s) in known else superseding_item(s.sentence.chunk, chunks)
        if found is None:
            continue
        # the successor's sentence the answer shows already, else its best
        best = next((x for x in [*shown, *scored] if x.sentence.chunk.id == found.chunk.id), None)
        if best is not None and best is not s:
            later[id(s)] = (best, found)
    return later


def made_old(shown: Sequence[Scored]) -> dict[int, Scored]:
    """For each shown sentence (by id) whose value a newer shown statement of change in
    another document says is old ("Role: Editor; Day rate: $850." and "editor day rate goes
    to $950 from 1 july — it was $850"), that statement."""
    out: dict[int, Scored] = {}
    for s in shown:
        when = s.sentence.date
        for change in shown:
            said = change.sentence
            if change is not s and (
                _later_row(change, s)
                or (
                    _elsewhere(change, s)
                    and said.date is not None
                    and (when is None or said.date > when)
                    and _makes_old(change, s)
                )
            ):
                out[id(s)] = change
                break
    rows = [(s, out[id(s)]) for s in shown if id(s) in out and _later_row(out[id(s)], s)]
    for s in shown:
        if id(s) in out:
            continue
        for row, newer in rows:
            if _repeats_old_row(s, row, newer):
                out[id(s)] = newer
                break
    return out


#: The kinds of value a page that repeats a table's old row gives as that row did.
_RATE_KINDS = frozenset({"money", "percent", "duration", "time", "weekday"})


def _repeats_old_row(s: Scored, row: Scored, newer: Scored) -> bool:
    """Whether `s`, of another document and no later than `newer`, gives the value of a
    table's row that a later row of that table replaced (`_later_row`), and not the later
    one's: an FAQ's "A routine hygiene appointment (scale and polish, 30 minutes) is $85"
    beside the price list's "$85; Effective: 5 Jan 2026" and "$95; Effective: 1 Jul
    2026" is as old as the first row."""
    said, then = s.sentence.date, newer.sentence.date
    if not _elsewhere(s, row) or then is None or (said is not None and said >= then):
        return False
    mine = [v for v in values(s.sentence.text) if v.kind in _RATE_KINDS]
    was = [v for v in values(row.sentence.text) if v.kind in _RATE_KINDS]
    now = [v for v in values(newer.sentence.text) if v.kind in _RATE_KINDS]
    # of the cells the later row changed: both rows' "(30 min)" is no value that changed
    gone = [v for v in was if not any(same(v, n) for n in now)]
    came = [v for v in now if not any(same(v, g) for g in was)]
    return any(same(v, g) for v in mine for g in gone) and not any(
        same(v, n) for v in mine for n in came
    )


def _later_row(newer: Scored, older: Scored) -> bool:
    """Whether `newer` is a later row of the table `older` is a row of, for the same thing:
    one document and heading, the same columns and first cell, other cells that differ, and
    a later date of its own (a rate sheet adds a row per change, "Port Newark → Lehigh St;
    ...; Rate: $740; Effective from: 1 Jun 2026" under the lane's "$685 ... 1 Jan 2026")."""
    a, b = newer.sentence, older.sentence
    if a.chunk.doc_id != b.chunk.doc_id or a.heading != b.heading:
        return False
    if a.date is None or b.date is None or a.date <= b.date:
        return False
    ra, rb = row_cells(a.text), row_cells(b.text)
    return (
        ra is not None
        and rb is not None
        and [c for c, _ in ra] == [c for c, _ in rb]
        and ra[0] == rb[0]
        and ra != rb
    )


def _superseded_mark(s: Scored, later: dict[int, Scored]) -> str:
    if id(s) in later:
        return f" (superseded by [{later[id(s)].sentence.ref}], which says:)"
    return ""


def _older_mark(s: Scored, conflicts: Sequence[Found], old: dict[int, Scored]) -> str:
    """What the answer says before a sentence a newer one shown makes old: "(older; [2] is
    newer)", ahead of the value it states, so that it is not read as current."""
    for found in conflicts:
        older, newer = found.older(), found.newer()
        if older is not None and newer is not None and older.scored is s:
            return f"(older; [{newer.sentence.ref}] is newer) "
    if id(s) in old:
        return f"(older; [{old[id(s)].sentence.ref}] is newer) "
    return _changed_mark(s)


def _changed_mark(s: Scored) -> str:
    """What a quoted statement of change says it changed from, named ahead of it ("(changed
    from Mondays) Going forward the PM huddle is Tuesdays at 8:30, not Mondays 9:00."), so
    that the old value it mentions is not read as current."""
    text = s.sentence.text
    change = change_in(text)
    # the values it names as old, each where it also names a value of that kind that
    # replaced it (not "moves to the parts counter from Monday the 14th", the day it starts;
    # not a bare number: "Replaced heater element #2")
    kinds = {v.kind for v in change.new} - {"number"}
    # (an arrow alone is no cue here: "client asked about X → new matter M-26-0103")
    if CHANGE_CUE.search(ARROW.sub(" ", text)):
        old = [v.text for v in change.old if v.text in text and v.kind in kinds]
        if old:
            return f"(changed from {', '.join(dict.fromkeys(old))}) "
    # ... or only a day and time that are gone, with none in their place: "So: no more
    # Thursday 12:30 meetings after this week." (the new day is another sentence's)
    cue = _GONE_CUE.search(text)
    if cue is None or kinds & _GONE_KINDS:
        return ""
    said = text[cue.end() : cue.end() + GONE_REACH]
    gone = sorted((v.text for v in values(said) if v.kind in _GONE_KINDS), key=said.find)
    return f"(no longer {' '.join(dict.fromkeys(gone))}) " if gone else ""


#: What says a day or time is gone, right before it: "no more Thursday 12:30 meetings", "no
#: longer Mondays".
_GONE_CUE = re.compile(r"\bno\s+(?:more|longer)\b(?!\s+than)", re.I)
GONE_REACH = 24
_GONE_KINDS = frozenset({"weekday", "time"})


#: A running total: "Week to date", "Q4 to date", "MTD".
_RUNNING = r"(?:week|month|quarter|year|season|q[1-4])\s+to\s+date|[wmqy]td"
#: A table's row that sums the others up: "| **Total** | **137** |", "Client: Total; ...",
#: "| **Week to date** | **122,400** |".
_TOTAL_ROW = re.compile(
    rf"^\W*(?:[A-Za-z ()]+:\s*)?\**\s*(?:(?:grand\s+)?totals?|{_RUNNING})\b", re.I
)
#: ... or the line under it that does: "Week total: 186.5 volunteer hours."
_TOTAL_LINE = re.compile(r"^\W*(?:[A-Za-z]+\s+)?totals?\s*:", re.I)


#: A running total a log keeps anywhere in a line: "Q4 to date (BQE): 3,144.25 fee-earning
#: hrs", "MTD: 41".
_TO_DATE = re.compile(rf"\b(?:{_RUNNING})\b", re.I)
#: A question after a sum: "How many ... since Monday?", "total hours this quarter?"
_ASKS_SUM = re.compile(r"\bhow\s+(?:many|much)\b|\btotals?\b|\bso\s+far\b", re.I)
#: How much less of the question's words a total may share than a day's figure ("Week to
#: date" names no day; "Q4 to date (BQE)" says "hrs" where the question says "hours").
TOTAL_LEXICAL_SLACK = 0.25


def _totals(text: str) -> bool:
    """Whether `text` is a table's total row or the total line under it."""
    return bool((CELL_JOIN in text and _TOTAL_ROW.match(text)) or _TOTAL_LINE.match(text))


def _sums(text: str) -> bool:
    """... or a line that keeps a running total anywhere in it."""
    return _totals(text) or bool(_TO_DATE.search(text))


def _window_total(
    question: str, picked: list[Scored], every: Sequence[Scored], during: During | None
) -> list[Scored]:
    """Asked how many over days ("since Monday", "this quarter") of a log that gives each
    day's or week's figure: the window's total row, or the newest running total said in it
    ("Q4 to date: 3,144.25 hrs" of 20 Nov, not 13 Nov's 2,726), first — not one day's."""
    if during is None or not picked or not _ASKS_SUM.search(question):
        return picked
    start, end = during
    if start is None or (end is not None and end <= start):
        return picked  # one day's figure is that day's
    best = picked[0]
    totals = [
        s
        for s in every
        if _sums(s.sentence.text)
        and said_during(s.sentence, during)
        and s.fits
        and s.lexical >= best.lexical - TOTAL_LEXICAL_SLACK
    ]
    if not totals:
        return picked
    top = max(totals, key=lambda s: (s.sentence.date or dt.date.min, s.score))
    return [top, *(p for p in picked if p is not top)]


def _total_first(ask: Ask, picked: list[Scored], every: Sequence[Scored]) -> list[Scored]:
    """Rows of a table asked for none of them by name ("How much did the stall take last
    week?" of a Saturday's Veg, Flowers and Preserves rows): the table's total row (or the
    "Week total:" line under it) first, what the question asks of them all."""
    if not picked or CELL_JOIN not in picked[0].sentence.text:
        return picked
    best = picked[0].sentence
    label = best.text.split(CELL_JOIN)[0].split(":")[-1]
    if _TOTAL_ROW.match(best.text) or set(terms(label)) & ask.terms:
        return picked
    if row_month(best) not in (None, dt.date.max):
        return picked  # a month's row: what was asked of that month, not the year's to date
    total = next(
        (
            s
            for s in every
            if s.sentence.chunk.doc_id == best.chunk.doc_id
            and s.sentence.trail == best.trail
            and _totals(s.sentence.text)
            and (s.fits or not ask.kinds)
        ),
        None,
    )
    return picked if total is None else [total, *(p for p in picked if p is not total)]


def _other_sides(conflicts: Sequence[Found]) -> list[Scored]:
    """Each sentence a conflict quotes, once: two conflicts may share a side."""
    sides: dict[tuple[int, str], Scored] = {}
    for found in conflicts:
        for side in found.sides:
            sides.setdefault((side.sentence.ref, side.sentence.text), side.scored)
    return list(sides.values())


def extractive_answer(
    question: str,
    hits: Sequence[Hit],
    *,
    scope: str,
    embedder: Embedder,
    min_score: float = MIN_SCORE,
    named: Collection[str] = (),
    warnings: Sequence[str] = (),
    retrieved_at: dt.datetime | None = None,
    related: Related | None = None,
    during: During | None = None,
) -> Answer:
    """`named`: doc ids of documents the question names (see references.py); `related`: the
    service's search, for other sources of what the answer says; `during`: the window the
    question's own words name ("last week"), if any."""
    when = retrieved_at or now_utc()
    sources = Sources(hits)
    ask = read_ask(question)
    # a record's own file answers first, asked what it says; asked for a kind of value ("How
    # quickly must someone attend a P1 emergency?") its sentence is weighed with the other
    # sources' like any other, so a handbook's row that says otherwise is found
    item = None if named or ask.kinds else find_item(question, hits)
    if item is not None:
        return item_answer(item, sources, warnings=warnings, when=when)
    unknown = unknown_name(question, hits)
    if unknown and not named:
        return not_found(
            hits,
            scope=scope,
            best=0.0,
            min_score=min_score,
            warnings=warnings,
            when=when,
            why=f"no retrieved source mentions '{unknown}', the name the question asks about",
        )
    scored, every = _partners(question, sources, embedder, during)
    focus = [s for s in scored if s.sentence.chunk.doc_id in named]
    picked = focus_pick(question, focus) if focus else []
    own = _in_decision(picked[0]) or asks_content(question) if picked else False
    if picked and not own and _better_elsewhere(scored, picked[0]):
        picked = []  # "the Gannet Rooms booking page TTFB" is the log's, not the client page's
    if not picked:  # a named page without the asked kind of value: what else says it
        focus = []
        picked = pick(scored, min_score, ask.given, ask.kinds, question)
    picked = _own_sentences(picked, scored, bool(ask.kinds))
    picked = _with_what_follows(picked, every)
    if during is not None and (not picked or not said_during(picked[0].sentence, during)):
        # what happened that day, not a standing page's line that shares a word with it
        picked = day_pick(ask, scored, during) or picked
    elif during is not None and not _notable(picked[0], during):
        # ... or what its writer stressed, not its line that happens to score best
        day = day_pick(ask, scored, during)
        picked = day if day and _notable(day[0], during) else picked
    picked = _window_total(question, _total_first(ask, picked, every), every, during)
    if not picked:
        best = scored[0].score if scored else 0.0
        return not_found(
            hits, scope=scope, best=best, min_score=min_score, warnings=warnings, when=when
        )
    if related is not None and not focus:
        sources, every = with_related(
            question, sources, every, picked[0], related, embedder, during
        )
    partners = [
        s
        for s in every
        if s.score >= PARTNER_SHARE * min_score
        # a newer value may score low, but shares a word of what is asked, or two of the
        # answer's ("Security contact is now Mirela" of "Security contact: Idris Khan"; "Bea
        # has changed the Cartwheel cutoff" changes nothing of how soon samples are cupped)
        or (CHANGE in s.sentence.chunk.marks and (s.lexical > 0 or _shares_two(s, picked[0])))
        or _restates(s, picked[0])  # so may another page's own wording of the same rule
    ]
    # a record asked what it says answers from itself, whatever is newer
    itself = bool(focus) and asks_content(question)
    if not asks_old(question) and not itself:  # its answer is not moved to the newest
        picked = _with_successor(
            newest_first_pick(question, picked, partners, min_score, during), every
        )
        # the newest may be a paragraph another picked sentence is part of
        picked = [p for p in picked if not any(_inside(p, q) for q in picked)]
    # (its successor, if one, is shown as such below; other records are other subjects)
    if (
        during is not None
        and None not in during
        and not asks_old(question)
        and said_during(picked[0].sentence, during)
    ):
        # what was said in the window asked about: what other days said is no part of the
        # answer and no conflict, nor what that window's other entries say of something else
        # (unless it asks what held before: "... before it was shortened in June?")
        picked = [
            p
            for p in picked
            if said_during(p.sentence, during)
            or (p.sentence.chunk.time_kind != "event" and not _period_row(p.sentence.text))
        ]
        partners = [s for s in partners if said_during(s.sentence, during) and s.score >= min_score]
    conflicts = [] if itself else find_conflicts(question, picked, partners)
    picked = [picked[0], *(p for p in picked[1:] if not _stale(question, p, picked[0], conflicts))]
    # a conflict's side inside a quoted paragraph is quoted there already
    sides = [s for s in _other_sides(conflicts) if not any(_inside(s, p) for p in picked)]
    # ... and a picked sentence a side quotes within its paragraph is quoted once, there
    wider = {id(p): w for p in picked for w in sides if _inside(p, w)}
    quoting: list[Scored] = []
    for p in picked:
        if (q := wider.get(id(p), p)) not in quoting:
            quoting.append(q)
    shown = [*quoting, *(s for s in sides if s not in quoting)]
    old = made_old(shown)
    if not focus:  # a named record is answered first, whatever came after it
        shown = newest_first(shown, conflicts, old)
    later = successor_sentences(shown, every)
    items = superseded_items(shown, every, later)
    later.update((k, best) for k, (best, _) in items.items())
    follows = {id(x) for x in later.values()}
    shown = [
        x
        for s in shown
        if id(s) not in follows or id(s) in later
        for x in (s, *([later[id(s)]] if id(s) in later else []))
    ]
    labels = {id(best): f"{found.new}: " for best, found in items.values()}
    labels.update(
        (k, f"{found.old} (superseded by {found.new}): ") for k, (_, found) in items.items()
    )
    # the terms of the names the question gives (not `named`, the documents it names)
    name_terms = {t for n in ask.names for t in terms(n)}
    texts = {s.sentence.text for s in shown}
    titled = record_titles(question, shown)
    body = " ".join(
        f"{'' if id(s) in later else _older_mark(s, conflicts, old)}{labels.get(id(s), '')}"
        f"{titled.get(id(s), '')}{quoted(s, name_terms, texts, during)} [{s.sentence.ref}]"
        f"{'' if id(s) in items else _superseded_mark(s, later)}"
        for s in shown
    )
    body += "".join(" " + found.describe() for found in conflicts)
    quoted_from: dict[int, Chunk] = {}
    for s in shown:
        quoted_from.setdefault(s.sentence.ref, s.sentence.chunk)
    text, cited, renumber = sources.in_order_of_use(f"{EXTRACTIVE_LABEL} {body}", quoted_from)
    notes = [*warnings, *(f.warning(renumber) for f in conflicts)]
    return Answer(
        answer=text,
        citations=cited,
        confidence=max(s.score for s in picked),
        warnings=notes,
        mode="extractive",
        conflicts=[f.conflict(renumber, cited) for f in conflicts],
        retrieval_date=when,
    )
