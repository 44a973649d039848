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


HEADER = "| Lane | Equipment | Rate | Effective from |\n|---|---|---|---|\n"


def _row(cells: str, n: int, day, text: str):
    from tests.unit.test_answer_round23 import _scored

    return _scored(
        text,
        n,
        day,
        "event",
        0.75,
        0.88,
        chunk_text=HEADER + cells,
        source_id="gantry/carriers/ironside-haulage.md",
        title="Ironside Haulage — rate sheet",
    )


def test_a_later_row_of_a_rate_sheet_makes_the_lanes_earlier_row_old() -> None:
    """A rate sheet adds a row with its "Effective from" day per change: before, the
    answer quoted the $685 row beside the $740 one, neither marked, as if both held."""
    from datetime import date

    from knowledge_platform.serve.answers.extractive import made_old

    old = _row(
        "| Port Newark → Lehigh St | 40' container | $685 | 1 Jan 2026 |",
        1,
        date(2026, 1, 1),
        "Lane: Port Newark → Lehigh St; Equipment: 40' container; Rate: $685; "
        "Effective from: 1 Jan 2026.",
    )
    new = _row(
        "| Port Newark → Lehigh St | 40' container | $740 | 1 Jun 2026 |",
        2,
        date(2026, 6, 1),
        "Lane: Port Newark → Lehigh St; Equipment: 40' container; Rate: $740; "
        "Effective from: 1 Jun 2026.",
    )
    other = _row(
        "| Port of Baltimore → Lehigh St | 40' container | $1,120 | 1 Jun 2026 |",
        3,
        date(2026, 6, 1),
        "Lane: Port of Baltimore → Lehigh St; Equipment: 40' container; Rate: $1,120; "
        "Effective from: 1 Jun 2026.",
    )
    assert made_old([old, new]) == {id(old): new}
    assert made_old([old, other]) == {}  # another lane's later row says nothing of this one
