"""Which scored sentences answer (extractive.pick): the best one at the threshold, or a
clear winner just below it (every subject word, the asked kind of value, and the next one
well behind), never a close call below it."""

from __future__ import annotations

from knowledge_platform.serve.answers.extractive import CLEAR_BELOW, CLEAR_GAP, pick
from knowledge_platform.serve.answers.relevance import MIN_SCORE, Scored
from knowledge_platform.serve.answers.sentences import Sentence
from tests.store_fixtures import make_chunk


def scored(text: str, score: float, lexical: float = 1.0, fits: bool = True) -> Scored:
    sentence = Sentence(text, ref=1, rank=0, position=0, chunk=make_chunk(text=text))
    return Scored(sentence, score, lexical, semantic=0.3, fits=fits)


JUST_BELOW = MIN_SCORE - CLEAR_BELOW / 2


def test_a_clear_winner_just_below_the_threshold_answers() -> None:
    best = scored("#incidents replaces #war-room for incident coordination.", JUST_BELOW)
    runner_up = scored("A checkout outage lasted 92 minutes.", JUST_BELOW - 1.5 * CLEAR_GAP, 0.5)
    assert pick([best, runner_up], MIN_SCORE) == [best]


def test_a_close_call_or_a_partial_match_below_the_threshold_does_not() -> None:
    best = scored("#incidents replaces #war-room for incident coordination.", JUST_BELOW)
    close = scored("Incidents are reviewed on Fridays.", JUST_BELOW - CLEAR_GAP / 2)
    assert pick([best, close], MIN_SCORE) == []
    partial = scored("The war room is booked.", JUST_BELOW, lexical=0.5)
    assert pick([partial], MIN_SCORE) == []
    unfit = scored("Coordination matters.", JUST_BELOW, fits=False)
    assert pick([unfit], MIN_SCORE) == []
    assert pick([scored("Far below.", MIN_SCORE - 2 * CLEAR_BELOW)], MIN_SCORE) == []
