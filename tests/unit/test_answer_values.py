"""Values in sentences: two ways of writing one value compare equal, different values do not,
and the detector tells a disagreement from other wording and from another subject."""

from __future__ import annotations

import pytest

from knowledge_platform.serve.answers.conflicts import Statement, disagreement
from knowledge_platform.serve.answers.values import same, values


def one(text: str, kind: str) -> list[str]:
    return [v.norm for v in values(text) if v.kind == kind]


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        ("at least 14 days", "two weeks", "duration"),
        ("at 02:00", "at 2 am", "time"),
        ("every second Monday", "biweekly", "frequency"),
        ("every 90 days", "every ninety days", "frequency"),
        ("95% significance", "95 percent", "percent"),
        ("$12k a month", "$12,000", "money"),
        ("1,000 conversions", "1000 conversions", "number"),
        ("the first business day of every month", "first working day of the month", "weekday"),
        ("on the 15th of each month", "the 15th of the month", "weekday"),
    ],
)
def test_one_value_written_two_ways(a: str, b: str, kind: str) -> None:
    assert one(a, kind) == one(b, kind) != []


def test_a_day_of_each_month_is_not_a_monthly_frequency() -> None:
    assert [v.kind for v in values("Pay on the 15th of every month.")] == ["weekday"]
    assert one("the first working day of the month", "weekday") != one(
        "the last working day of the month", "weekday"
    )


def test_a_date_without_a_year_matches_that_day_in_any_year() -> None:
    [iso], [short], [other] = (values(t) for t in ("2026-12-20", "December 20", "December 21"))
    assert same(iso, short) and not same(short, other)


def test_a_date_is_not_read_as_numbers() -> None:
    assert [v.kind for v in values("No tests launch between 2026-12-20 and 2027-01-04.")] == [
        "date",
        "date",
    ]


def test_a_chat_lines_time_stamp_is_when_it_was_said_not_a_time_it_states() -> None:
    assert values("08:48 — Monthly town hall notes are up in #general.")[0].kind == "code"
    assert one("08:48 — Monthly town hall notes are up.", "time") == []
    assert one("10:10 - Heads up: Dario now owns Tessellate.", "number") == []
    assert one("Town hall at 9:30 — first Monday of the month.", "time") == ["09:30"]
    assert one("9:20 every weekday, standing", "time") == ["09:20"]


QUESTION = "What is our naming convention for experiments?"


def test_different_codes_for_the_same_thing_disagree() -> None:
    found = disagreement(
        QUESTION,
        Statement("Test names follow `CLIENT-YYYYMM-short-slug`.", "Standing rules > Experiments"),
        Statement("Experiment naming: `BRAND-YYMM short-slug`."),
    )
    assert found is not None and found.kind == "code"
    assert (found.a.text, found.b.text) == ("`CLIENT-YYYYMM-short-slug`", "`BRAND-YYMM short-slug`")


def test_other_wording_of_the_same_value_agrees() -> None:
    assert (
        disagreement(
            "How long should a test run?",
            Statement("Tests run for at least two weeks."),
            Statement("Every test needs a minimum of 14 days."),
        )
        is None
    )


def test_sections_about_different_clients_do_not_disagree() -> None:
    assert (
        disagreement(
            "Who are the account directors?",
            Statement("Account director: Maya.", "Clients > The Shade Store"),
            Statement("Account director: Jonas.", "Clients > HOT"),
        )
        is None
    )


def test_two_pages_naming_the_asked_client_disagree_on_its_contact_with_one_word_shared() -> None:
    """A client's own page and the directory's section for it: both name the client the
    question names, so "contact" alone is what they share about it."""
    question = "Who's our main contact at Pellucid?"
    title = "Pellucid Skincare: account brief"
    brief = Statement(
        "Main contact: Esme Brackwater, head of ecommerce.", f"{title} > Contacts", title
    )
    row = Statement("Client contact: Maren Ostrowski.", "Client directory > Pellucid Skincare")
    found = disagreement(question, brief, row)
    assert found is not None and found.kind == "name"
    assert (found.a.text, found.b.text) == ("Esme Brackwater", "Maren Ostrowski")
    # ... and a page about another client is still another thing
    other = Statement("Client contact: Tamsin Reed.", "Client directory > Harrowgate Home Loans")
    assert disagreement(question, brief, other) is None


def test_a_table_rows_asked_column_disagrees_with_the_clients_own_page() -> None:
    """A directory's row names its account manager and its client contact: the column the
    question asks about is the row's value ("with several names a side, which one is the
    subject is a guess" no longer holds for a row)."""
    question = "Who's our contact at Corrowyn Skincare?"
    title = "Corrowyn Skincare: client brief"
    brief = Statement(
        "Our day-to-day contact and approver is Isadora Penhallow, head of brand.", title, title
    )
    row = Statement(
        "Client: Corrowyn Skincare; What we do for them: rebrand, cartons and labels; "
        "Account manager: Obadiah Tiernan; Client contact: Mireille Grocott.",
        "Client directory",
        "Client directory",
    )
    found = disagreement(question, brief, row)
    assert found is not None and found.kind == "name"
    assert (found.a.text, found.b.text) == ("Isadora Penhallow", "Mireille Grocott")
    # the account manager's column is not what "contact" asks
    assert disagreement("Who is Corrowyn Skincare's account manager?", brief, row) is None


def test_numbers_in_different_units_do_not_disagree() -> None:
    """ "TTFB 468ms" and "three hotels" are numbers of different things; 468ms and 503ms
    are one measure said twice."""
    question = "How fast was Gannet's booking page last week?"
    speed = Statement("Gannet booking page TTFB 468ms", "Log", "Gannet Rooms")
    hotels = Statement(
        "Three boutique hotels (harbourfront, old town, and the lodge). Marketing site, offers, "
        "and the booking flow.",
        "Clients > Gannet Rooms",
    )
    assert disagreement(question, speed, hotels) is None
    found = disagreement(question, speed, Statement("Gannet booking page TTFB 503ms"))
    assert found is not None and (found.a.text, found.b.text) == ("468ms", "503ms")
