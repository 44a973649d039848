"""Round 16 (issue 25): a lone first name that looks after something is a person, a month
named beside a name is no second name of a conflict's side, and a window of whole months
is reported on in the days after it."""

from __future__ import annotations

from datetime import date

from knowledge_platform.dating import months_of, names_month_of, reports_on
from knowledge_platform.serve.answers.asks import fits, read_ask
from knowledge_platform.serve.answers.conflicts import Statement, disagreement


def test_a_first_name_that_looks_after_something_is_a_person() -> None:
    """ "Leocadia administers the licences" answers "Who do I ask ...?" (before: a lone
    capital opening a sentence was never read as a person, as often being a tool's)."""
    who = read_ask("Who do I ask for a Contourly seat?")
    assert fits("Leocadia administers the licences; ask her for a seat.", who)
    assert fits("Dario now owns Tessellate as of Mon 3 Aug.", read_ask("Who owns Tessellate?"))
    assert not fits("Glimmer keeps recordings for 90 days.", who)
    assert not fits("Contourly: CAD and GIS drafting.", who)


def test_a_month_beside_a_name_is_no_second_name() -> None:
    """The brief's "Seraphine Loftus ... is our day-to-day contact since April" against the
    list's "Client contact: Cyprian Hadlow": a conflict of two people (before: "April" was a
    second name on the brief's side, so which one was the subject was a guess and nothing
    was flagged)."""
    question = "Who's our contact at Quarrendale Water Authority?"
    brief = Statement(
        "Seraphine Loftus, dam safety engineer, is our day-to-day contact since April and "
        "approves our reports.",
        "Quarrendale Water Authority: client brief > People",
        "Quarrendale Water Authority: client brief",
    )
    row = Statement(
        "Client: Quarrendale Water Authority; Account lead: Idony Ravenhill; Client contact: "
        "Cyprian Hadlow, dam safety engineer.",
        "Clients",
        "Clients",
    )
    found = disagreement(question, brief, row)
    assert found is not None and found.kind == "name"
    assert {found.a.text, found.b.text} == {"Seraphine Loftus", "Cyprian Hadlow"}


def test_a_months_report_after_it_is_about_it() -> None:
    """ "September close: 96 sets", said on 2 October, reports on September; a week of
    October naming no month of the window, or said weeks later, does not."""
    september = (date(2026, 9, 1), date(2026, 9, 30))
    assert months_of(*september) == {9}
    assert months_of(date(2026, 10, 1), date(2026, 11, 20)) == frozenset()  # this quarter
    assert reports_on("September close: 96 sets issued.", date(2026, 10, 2), *september)
    assert not reports_on("Sets issued this week: 31", date(2026, 10, 9), *september)
    assert not reports_on("September close: 96 sets issued.", date(2026, 11, 2), *september)
    assert names_month_of("Sept drawings total: 96", *september)
    assert not names_month_of("We may ship it.", date(2026, 5, 1), date(2026, 5, 31))


def test_a_day_labelled_in_a_later_text_is_reported_on() -> None:
    """Friday's email "Thurs: Hobnail Creek report went out" and "ZBA approved last night"
    (posted the morning after) report on yesterday; "paid on Friday" inside a sentence of
    Monday's notes does not make them last week's."""
    yesterday = (date(2026, 11, 19), date(2026, 11, 19))
    assert reports_on("Thurs: Hobnail Creek report went out.", date(2026, 11, 20), *yesterday)
    assert reports_on("ZBA approved the variance last night.", date(2026, 11, 20), *yesterday)
    last_week = (date(2026, 11, 9), date(2026, 11, 15))
    assert not reports_on("Crux paid the old balance on Friday.", date(2026, 11, 16), *last_week)
