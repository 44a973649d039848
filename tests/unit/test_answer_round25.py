"""Round 25 (issue 25): a chat message or log line stamped with its time is a sentence of its
own, whatever its punctuation; abbreviations and everyday synonyms of ops and freight writing
are one word to a question."""

from __future__ import annotations

from knowledge_platform.serve.answers.glossary import words
from knowledge_platform.serve.answers.relevance import covered
from knowledge_platform.serve.answers.sentences import split_sentences

DISPATCH = """## Monday 2 November

[Mon 09:40] Marek: Tinicum won't be staying. Ironside keeps the Brightmere FTLs
[Mon 10:05] Marek: and we have a new one instead: Catasauqua Express, box trucks
[Mon 14:30] Bogdan: Lehigh St in is huge today, 118 pallets
"""


def test_a_stamped_chat_line_is_a_sentence_of_its_own() -> None:
    """A message without a full stop ran on into the next one ("... Brightmere FTLs [Mon
    10:05] Marek: and we have a new one"): the new carrier's message was never a sentence."""
    got = split_sentences(DISPATCH)
    assert "[Mon 10:05] Marek: and we have a new one instead: Catasauqua Express, box trucks" in (
        got
    )
    assert "[Mon 14:30] Bogdan: Lehigh St in is huge today, 118 pallets" in got
    assert "Ironside keeps the Brightmere FTLs" in got  # a sentence inside a message still ends


def test_a_line_opened_by_its_time_is_a_sentence_of_its_own() -> None:
    log = "09:59 — Bastiaan whiteboarding a nurture track\n10:26 — Ysmay drafting the report"
    assert split_sentences(log) == [
        "09:59 — Bastiaan whiteboarding a nurture track",
        "10:26 — Ysmay drafting the report",
    ]
    # a time inside a line is no stamp
    assert split_sentences("The call moved to\n10:30 on Tuesdays") == [
        "The call moved to 10:30 on Tuesdays"
    ]


def test_ack_is_acknowledge_and_a_trial_is_a_test() -> None:
    rule = words("A P1 page must be acknowledged within 15 minutes.")
    assert covered(list(words("ack")), rule)
    assert covered(list(words("meadow test")), words("Linden Court meadow trial write-up"))
    assert covered(list(words("reefer")), words("chilled trucking"))
