"""Which retrieved statements are current: a newer statement of change ranks above the older
text whose value it says is old.

A chunk marked CHANGE (dating.marks: "handed over to", "moved from X to Y", "replaces", "no
longer") supersedes an older hit when one of its sentences names as old a value that a
sentence of that hit states, that sentence is about what the question asks (it shares a
term with the question beyond the names it gives, or the value is of the kind the question
asks for under a title or heading that shares one), and the change is dated after the hit
(or the hit is undated); of two log entries, the later one only when it names as many of the
question's terms ("the delivery review moved from Monday 09:30" is no change of "the Monday
kick-off starts at 10:15"). A sentence with a change cue that names no old value ("Uptime
checks now run every minute") supersedes the older sentence it gives another value of
(`_restates`). A log entry that gives, in a sentence about what the question asks, another
value of the asked kind than an older hit ranks above it too, unless the question asks for
the earlier value (`newer_values_first`). Evergreen texts are never moved down for age alone:
only a newer statement of another value does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from knowledge_platform.dating import CHANGE, CHANGE_CUE
from knowledge_platform.models import Chunk, Hit
from knowledge_platform.serve.answers.asks import (
    Ask,
    asks_old,
    fits,
    known_names,
    read_ask,
    terms,
)
from knowledge_platform.serve.answers.changes import Change, change_in, may_state_change
from knowledge_platform.serve.answers.conflicts import Statement, disagreement, restatement
from knowledge_platform.serve.answers.glossary import words
from knowledge_platform.serve.answers.relevance import covered
from knowledge_platform.serve.answers.sentences import split_sentences
from knowledge_platform.serve.answers.values import Value, same, values


def changes_of(chunk: Chunk) -> list[Change]:
    """The statements of change in a chunk marked CHANGE."""
    if CHANGE not in chunk.marks:
        return []
    return list(_statements(chunk.text)[0])


@lru_cache(maxsize=4096)  # the same passages come back for the questions an agent repeats
def _statements(text: str) -> tuple[tuple[Change, ...], tuple[str, ...]]:
    """A text's statements of change (an old value named), and its sentences with a change
    cue that name none ("Uptime checks now run every minute")."""
    changes: list[Change] = []
    cues: list[str] = []
    for s in split_sentences(text):
        change = change_in(s) if may_state_change(s) else None
        if change is not None and change.says_change:
            changes.append(change)
        elif CHANGE_CUE.search(s):
            cues.append(s)
    return tuple(changes), tuple(cues)


def may_supersede(newer: Chunk, older: Chunk) -> bool:
    """Whether `newer` could say a value of `older` is old, by its marks and both dates alone
    (no sentence read): a dated statement of change in another document, said after it."""
    if CHANGE not in newer.marks or newer.doc_id == older.doc_id or newer.date is None:
        return False
    return older.date is None or newer.date > older.date


def supersedes(
    newer: Chunk, older: Chunk, ask: Ask | None = None, changes: Sequence[Change] | None = None
) -> bool:
    """Whether `newer` says a value `older` states is old, and was said after it; with the
    question's `ask`, only a value said in a sentence about what it asks."""
    if not may_supersede(newer, older):
        return False
    if ask is not None and ask.subject:
        said = _covered(ask.subject, _words_of(newer))
        if not said:
            return False  # "the delivery review moved from 09:30" is no change of the huddle's
        if older.time_kind == "event" and _covered(ask.subject, _words_of(older)) > said:
            return False  # of two log entries, the one more about what is asked is its own
    found = changes_of(newer) if changes is None else changes
    for sentence in split_sentences(older.text):
        for change in found:
            old = change.old_in(sentence)
            if old and (ask is None or _about(sentence, old, ask, older)):
                return True
    return ask is not None and _restates(newer, older, ask)


def _words_of(chunk: Chunk) -> frozenset[str]:
    return words(" ".join([chunk.title, *chunk.headers, chunk.text]))


@lru_cache(maxsize=4096)  # each hit is read against every other hit of a search
def _covered(subject: frozenset[str], have: frozenset[str]) -> int:
    return covered(subject, have)


def _restates(newer: Chunk, older: Chunk, ask: Ask) -> bool:
    """Whether a sentence of `newer` with a change cue but no old value ("Uptime checks now
    run every minute") gives another value of what a sentence of `older` about the question
    states (conflicts.restatement)."""
    cues = _statements(newer.text)[1]
    if not cues:
        return False
    trail = " > ".join(h for h in dict.fromkeys([older.title, *older.headers]) if h)
    for sentence in split_sentences(older.text):
        for cue in cues:
            found = restatement(Statement(sentence, trail, older.title), Statement(cue))
            if found is not None and _about(sentence, [found.a], ask, older):
                return True
    return False


def _about(sentence: str, old: Sequence[Value], ask: Ask, older: Chunk) -> bool:
    """Whether the sentence that states the old value is about what the question asks: it
    shares a term with the question, or its value is of the kind asked for and the text it
    sits in (title, headings) shares one; a value of the asked kind about something else
    (another tool, when the question asks which tool records sessions) is not."""
    if ask.subject & set(terms(sentence)):
        return True
    if not any(v.kind in ask.kinds for v in old):
        return False
    where = set(terms(" ".join([older.title, *older.headers])))
    return not ask.subject or bool(ask.subject & where)


def current_first(hits: Sequence[Hit], question: str = "") -> list[Hit]:
    """`hits` with each statement of change moved just above the best-ranked older hit it
    supersedes on what `question` asks; everything else keeps its order."""
    ask: Ask | None = None
    ordered = list(hits)
    for hit in list(ordered):
        if not any(may_supersede(hit.chunk, other.chunk) for other in hits if other is not hit):
            continue  # most hits: no sentence needs reading
        found = changes_of(hit.chunk)
        ask = ask or read_ask(question)
        # by identity: list.index compares hits field by field
        at = next(i for i, h in enumerate(ordered) if h is hit)
        target = next(
            (
                i
                for i, other in enumerate(ordered[:at])
                if supersedes(hit.chunk, other.chunk, ask, found)
            ),
            None,
        )
        if target is not None:
            ordered.insert(target, ordered.pop(at))
    return ordered


#: How far down the hits a newer log entry is read for another value (the answer quotes from
#: the first few; a search's later hits are rarely read).
NEWER_DEPTH = 6


def newer_values_first(hits: Sequence[Hit], question: str) -> list[Hit]:
    """`hits` with each log entry among the first NEWER_DEPTH moved just above the best-ranked
    standing text said before it (or undated) that gives another value of the kind the
    question asks for, about the same thing ("we're at 67 hosted sites" above the standing
    "We host 54 client sites"). A question that asks for no kind of value, or for the
    earlier value ("before", "used to"), keeps the order; so do log entries among themselves
    (two tests' results, two weeks' figures are look-alikes, not one value that changed)."""
    ordered = list(hits)
    if not any(_dated_event(h.chunk) for h in ordered[1:NEWER_DEPTH]):
        return ordered  # most searches: nothing to read
    ask = read_ask(question)
    if not ask.kinds or asks_old(question):
        return ordered
    for at in range(1, min(len(ordered), NEWER_DEPTH)):
        newer = ordered[at].chunk
        if not _dated_event(newer):
            continue
        mine = _about_ask(newer, ask)
        if not mine:
            continue
        target = next(
            (
                i
                for i, other in enumerate(ordered[:at])
                if _standing_before(other.chunk, newer)
                and _another_value(question, ask, mine, other.chunk)
            ),
            None,
        )
        if target is not None:
            ordered.insert(target, ordered.pop(at))
    return ordered


#: How far down the hits a passage holding the asked kind of value is looked for.
ANSWERING_DEPTH = 6
#: A search worded as a question ("Which platform ...?", "who on the museum side"); a
#: statement or a few keywords ask for no kind of value, and are not read (~0.7 ms a search).
_QUESTION = re.compile(
    r"\?|^\W*(?:who|whom|whose|what|what's|which|when|where|how|is|are|was|were|do|does|did|"
    r"can|could|should|would|will|has|have|any|anything|anyone)\b",
    re.I,
)


def answering_first(hits: Sequence[Hit], question: str, *, events: bool = False) -> list[Hit]:
    """`hits` led by a passage that holds the kind of value the question asks for (a person,
    an amount, a time) when the first holds none: the first such passage among the first
    ANSWERING_DEPTH that names as many of the question's terms moves to the top ("Vantor
    replaces Tallyhook as our experiment platform" above "No client runs more than 3
    experiments at once" for "Which experiment platform do we use?"); a log entry holds its
    own day for a question that asks when. The rest keep their order; so does a question that
    asks for no kind, or for the earlier value (a hand-over opens with the name it replaces).
    `events`: only a log entry moves up (a question about a window: what was said then, not
    the standing text in force)."""
    ordered = list(hits)
    if len(ordered) < 2 or not _QUESTION.search(question):
        return ordered
    ask = read_ask(question)
    if not ask.kinds or asks_old(question):
        return ordered
    top = ordered[:ANSWERING_DEPTH]
    known = known_names(h.chunk.text for h in top)

    def holds(chunk: Chunk) -> bool:
        return ("date" in ask.kinds and _dated_event(chunk)) or fits(chunk.text, ask, known)

    if holds(ordered[0].chunk):
        return ordered
    named = covered(ask.subject, _words_of(ordered[0].chunk))
    for at, hit in enumerate(top[1:], 1):
        if events and not _dated_event(hit.chunk):
            continue
        if holds(hit.chunk) and covered(ask.subject, _words_of(hit.chunk)) >= named:
            return [hit, *ordered[:at], *ordered[at + 1 :]]
    return ordered


def _dated_event(chunk: Chunk) -> bool:
    return chunk.time_kind == "event" and chunk.date is not None


def _standing_before(older: Chunk, newer: Chunk) -> bool:
    assert newer.date is not None
    return (
        older.time_kind != "event"
        and older.doc_id != newer.doc_id
        and (older.date is None or older.date < newer.date)
    )


def _statement(text: str, chunk: Chunk) -> Statement:
    trail = " > ".join(h for h in dict.fromkeys([chunk.title, *chunk.headers]) if h)
    return Statement(text, trail, chunk.title)


def _about_ask(chunk: Chunk, ask: Ask) -> list[Statement]:
    """The sentences of `chunk` that hold a value of the asked kind and share a word with
    what the question asks about."""
    return [
        _statement(s, chunk)
        for s in split_sentences(chunk.text)
        if ask.subject & set(terms(s)) and fits(s, ask)
    ]


#: Words that make a figure a goal or a bound, not a measure: a week's cost per lead is no new
#: target, so a question about the target is answered by a sentence that says "target".
_QUALIFIERS = frozenset(
    terms("target goal budget cap limit minimum maximum threshold quota forecast estimate")
)


def _another_value(question: str, ask: Ask, mine: Sequence[Statement], older: Chunk) -> bool:
    """Whether a sentence of `older` about the question gives, of the asked kind, another
    value than one of `mine` (conflicts.disagreement: same subject, different values), where
    that sentence of `mine` names what the question asks about as fully as the older one
    (one word short of three or more: "hosted sites" for "client sites"; "QA lead" is not
    "design lead") and says neither value of the other ("First 8:50 huddle" restates
    "8:50 instead of 9:20")."""
    bounds = ask.subject & _QUALIFIERS
    slack = 1 if len(ask.subject) >= 3 else 0
    kind_only = replace(ask, counted=frozenset())  # a value alone ("54") names no noun
    for theirs in _about_ask(older, ask):
        held = covered(ask.subject, words(f"{theirs.context} {theirs.text}"))
        for statement in mine:
            have = words(f"{statement.context} {statement.text}")
            if not bounds <= have or covered(ask.subject, have) < held - slack:
                continue
            found = disagreement(question, theirs, statement)
            if (
                found is not None
                and found.kind != "phrase"
                and fits(found.a.text, kind_only)
                and fits(found.b.text, kind_only)
                and not any(same(found.b, v) for v in values(theirs.text))
                and not any(same(found.a, v) for v in values(statement.text))
            ):
                return True
    return False
