"""Statements of change in ordinary English: which value a sentence says is old, and which
replaced it. The passive ("X was replaced by Y") names the old value first; reading it as
"replaced ... Y" marked the new value old."""

from __future__ import annotations

import pytest

from knowledge_platform.serve.answers.changes import change_in


def _old(sentence: str) -> set[str]:
    change = change_in(sentence)
    return {v.text.strip() for v in change.old} | set(change.old_text)


def _new(sentence: str) -> set[str]:
    change = change_in(sentence)
    return {v.text.strip() for v in change.new} | set(change.new_text)


@pytest.mark.parametrize(
    ("sentence", "old", "new"),
    [
        ("Hotjar was replaced by Clarity in March.", "Hotjar", "Clarity"),
        ("The old dashboard was superseded by the Looker report.", "old dashboard", "Looker"),
        ("Dana was succeeded by Lee as account director.", "Dana", "Lee"),
        ("The minimum test duration is now 21 days (previously 14 days).", "14 days", "21 days"),
        ("The minimum test duration is now 21 days, up from 14 days.", "14 days", "21 days"),
        ("Lee is now the account director, formerly Dana.", "Dana", None),
        ("Priya took over the Acme account from Dana.", "Dana", None),
        (
            "Farah Haddad takes over the Juniper Yoga account from Tomasz Wren.",
            "Tomasz Wren",
            "Farah Haddad",
        ),
        ("The budget was raised to $5,000 from $3,000.", "$3,000", "$5,000"),
        ("We switched from Asana to ClickUp.", "Asana", "ClickUp"),
        ("The retainer was cut from $8,000 to $6,000 a month.", "$8,000", "$6,000"),
        ("We replaced Hotjar with Clarity.", "Hotjar", "Clarity"),
        ("Clarity replaces Hotjar for session replays.", "Hotjar", "Clarity"),
        ("Acme's account lead is no longer Dana.", "Dana", None),
        ("Idle staging sites now get torn down after 18 days, not 40.", "40 days", "18 days"),
        ("A wet proof is now $140 a sheet, not $95.", "$95", "$140"),
        ("The pipeline review now starts at 15:15, not 10:45.", "10:45", "15:15"),
        ("The board report now goes out weekly, not monthly.", "monthly", "weekly"),
    ],
)
def test_the_old_value_is_the_one_the_sentence_says_changed_away_from(
    sentence: str, old: str, new: str | None
) -> None:
    assert old in _old(sentence)
    if new is not None:
        assert new in _new(sentence)
        assert new not in _old(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "As previously discussed, the budget is $5,000.",
        "The report was sent to Acme from the shared inbox.",
        "Traffic from paid search converts at 3%.",
        "Now that the launch is done, not much is left on the board.",
    ],
)
def test_sentences_that_change_nothing_name_no_old_value(sentence: str) -> None:
    assert not change_in(sentence).says_change
