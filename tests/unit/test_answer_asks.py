"""Reading a question before any sentence is scored (answers/asks.py), and matching its terms
in a sentence (answers/relevance.py): the wording that asks for the kind of value is not
the subject, an idiom is not an attribute, and a term the stemmer leaves apart from its
longer form still matches it."""

from __future__ import annotations

import pytest

from knowledge_platform.serve.answers.asks import asks_old, fits, known_names, read_ask
from knowledge_platform.serve.answers.conflicts import Statement, disagreement
from knowledge_platform.serve.answers.glossary import words
from knowledge_platform.serve.answers.relevance import covered
from knowledge_platform.serve.answers.sentences import terms


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("Who should I ask about an invoice?", {"invoic"}),
        ("Whom do we contact for billing questions?", {"bill", "question"}),
        ("Who can I talk to about a refund?", {"refund"}),
    ],
)
def test_the_verb_of_who_should_i_is_not_the_subject(question: str, subject: set[str]) -> None:
    ask = read_ask(question)
    assert ask.kinds == ("person",) and ask.subject == subject


def test_in_charge_of_asks_for_a_person_not_an_amount() -> None:
    assert read_ask("Who is in charge of invoicing?").kinds == ("person",)
    assert read_ask("How much do we charge for an audit?").kinds == ("money",)


def test_a_sum_budgeted_is_an_amount_and_anyone_new_is_a_person() -> None:
    # a date ("14-15 Jan") does not answer what was budgeted
    assert read_ask("How much have we budgeted for the January kickoff offsite?").kinds == (
        "money",
        "duration",
    )
    ask = read_ask("anyone new join the team in March?")
    assert ask.kinds == ("person",) and "anyon" not in ask.subject


def test_a_cdn_is_asked_by_name_leaving_is_the_change_and_a_measure_is_no_name() -> None:
    ask = read_ask("Which CDN do we put client sites behind these days?")
    assert ask.kinds == ("name", "code") and ask.subject == {"cdn", "client", "site"}
    assert read_ask("Why did we leave Edgewarden?").subject == {"edgewarden"}
    # "TTFB" is what is asked of Corvina: a line about Corvina without it is a near miss
    assert read_ask("What was Corvina's TTFB last week?").names == ("Corvina",)


def test_a_rate_per_unit_asks_for_a_figure_and_the_change_asked_across_is_no_subject() -> None:
    ask = read_ask("What should I put on an estimate per press proof sheet?")
    assert ask.kinds == ("money", "number", "percent") and ask.names == ()
    assert ask.subject == {"estim", "press", "proof", "sheet"}
    assert read_ask("What time was the huddle before it moved earlier?").subject == {"huddl"}


def test_a_verb_inside_a_compound_is_part_of_the_subject() -> None:
    assert read_ask("What day does on-call change over?").subject == {"call", "chang"}
    assert "call" not in read_ask("Who should I call about a late delivery?").subject


def test_a_tool_named_in_two_words_is_still_asked_for_by_name() -> None:
    ask = read_ask("Which A/B testing tool are we on now?")
    assert ask.kinds == ("name", "code")
    # a firm is asked for by its name too; what went to press is no firm
    assert read_ask("Which reprographics firm prints our drawing sets?").kinds == ("name", "code")
    assert read_ask("What went to press yesterday?").kinds != ("name", "code")


def test_what_we_use_to_do_something_asks_for_a_tool() -> None:
    assert read_ask("What do we use to watch recordings of visitor sessions?").kinds == (
        "name",
        "code",
    )


def test_a_term_matches_its_longer_form() -> None:
    have = set(terms("On-call duty rotates every Monday."))
    assert covered(terms("rota"), have) == 1  # "rota" and "rotat" of "rotates"
    assert covered(terms("rot"), set(terms("rotates"))) == 0  # too short to tell


def test_a_handover_gives_the_person_it_hands_over_to() -> None:
    found = disagreement(
        "Who is the account director at Copperline Outfitters now?",
        Statement(
            "Ruairi Quinn handed Copperline Outfitters over to Yuki Tanabe, who is now the "
            "account director."
        ),
        Statement("Account director: Ruairi Quinn.", "Clients > Copperline Outfitters"),
    )
    assert found is not None
    assert (found.a.text, found.b.text, found.superseding) == ("Yuki Tanabe", "Ruairi Quinn", "a")


def test_a_name_opening_a_sentence_counts_when_the_passages_write_it_as_one() -> None:
    ask = read_ask("What tool records visitor sessions?")
    said = ["Session replay: Glimmer.", "Glimmer keeps session recordings for 90 days."]
    known = known_names(said)
    assert fits(said[1], ask, known) and not fits(said[1], ask)
    assert not fits("Tests keep session recordings for 90 days.", ask, known)
    # a lone capital opening a sentence is as often a tool as a person
    who = read_ask("Who approved the move to Vantor?")
    assert not fits("Tallyhook's visual editor broke.", who, known_names(["Run Tallyhook."]))


def test_who_is_a_name_asks_what_the_name_is_not_for_another_person() -> None:
    """ "Who is Kwame Mensah?" was read as asking for a person (the pattern was case-sensitive
    and questions start with a capital), so "Kwame Mensah: account director." did not fit."""
    assert read_ask("Who is Kwame Mensah?").kinds == ()
    assert read_ask("Who is the account director for Halcyon Teas?").kinds == ("person",)


def test_how_many_asks_for_a_count_even_with_a_word_about_paying() -> None:
    assert read_ask("How many Figtree seats does the studio pay for?").kinds == ("number",)
    # a count of days is a duration too
    assert read_ask("How many retainer hours a month does Orchard Bikes have?").kinds == (
        "number",
        "duration",
    )
    assert read_ask("How much do we pay for Figtree?").kinds == ("money",)


def test_a_count_is_answered_by_a_number_of_what_it_counts() -> None:
    ask = read_ask("How many shoppers took part in the Quillbrook lid study?")
    assert not fits("They ran it for 12 days with the two lids side by side.", ask)
    assert fits("Glancewell had 240 shoppers pick a pot from the chiller.", ask)
    # a word of the counted noun's group counts; so does the noun before its figure
    assert fits(
        "Two approving reviews are required to merge to main.",
        read_ask("How many approvals does a pull request need before merging to main?"),
    )
    tickets = read_ask("How many support tickets were open two weeks ago?")
    assert fits("Open support tickets: 14", tickets)
    assert not fits("Support rota: 3 people this week.", tickets)
    # a count of days is a duration too, and asks for no counted word
    assert read_ask("How many days of paid holiday do we get?").counted == frozenset()


def test_a_title_in_capitals_is_asked_about_not_a_name() -> None:
    ask = read_ask("Who is the CEO of HOT?")
    assert ask.names == ("HOT",)
    assert ask.titles == {"ceo"}
    assert "ceo" in words("Dana Reyes took over as chief executive in May.")


def test_a_who_question_asks_for_a_person_whatever_words_about_money_follow() -> None:
    assert read_ask("Who leads paid social?").kinds == ("person",)
    assert read_ask("Who approves freelancer spend?").kinds == ("person",)


def test_a_measure_is_asked_for_as_a_figure_and_stays_the_subject() -> None:
    ask = read_ask("How did Saltmarsh's return on ad spend look?")
    assert ask.kinds == ("number", "percent", "money")  # not an amount spent
    assert "roa" in ask.subject
    assert fits("Saltmarsh ROAS 4.2x", ask)
    assert not fits("Primary KPI: blended ROAS.", ask)
    assert read_ask("Which tool tracks ROAS?").kinds == ("name", "code")


def test_a_phone_number_is_a_run_of_digits_not_any_number() -> None:
    """ "What's Zadie Mortensen's phone number?" was answered with her start date, 9/8."""
    ask = read_ask("What's Zadie Mortensen's phone number?")
    assert ask.kinds == ("phone",)
    assert not fits("Zadie Mortensen starts 9/8 as paid social lead", ask)
    assert not fits("The office opens on 2026-03-04 at 9:30.", ask)
    assert fits("Call Zadie on 020 7946 0958.", ask)
    assert read_ask("When is the on-call phone handed over?").kinds != ("phone",)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Zadie started today, welcome! Paid social lead.", True),
        ("Printer fixed. Ines joins the design team on Monday.", True),
        ("Tallyhook broke again this morning.", False),  # a lone opening capital: a tool too
        ("Starts today for everyone.", False),
    ],
)
def test_one_who_starts_joins_or_leaves_is_a_person(text: str, expected: bool) -> None:
    assert fits(text, read_ask("Who leads paid social?")) is expected


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("Who is the head of marketing?", {"market"}),
        ("Who is in charge of invoicing now?", {"invoic"}),
        ("Who's our lead for Meta ads?", {"meta", "ad"}),
    ],
)
def test_the_role_a_who_question_asks_for_is_not_its_subject(
    question: str, subject: set[str]
) -> None:
    """ "head" is what is asked for: a "QA lead" line is not about marketing."""
    ask = read_ask(question)
    assert ask.kinds == ("person",) and ask.subject == subject


def test_a_platform_is_not_a_person() -> None:
    ask = read_ask("Who runs our ads?")
    assert not fits("Paid social lead, Meta and TikTok for every account.", ask)
    assert fits("Paid social lead: Zadie Mortensen.", ask)


def test_a_sample_size_is_a_count_not_a_duration() -> None:
    ask = read_ask("What was the sample size of the checkout test?")
    assert not fits("The checkout test stopped after 24 days.", ask)
    assert fits("The checkout test reached 18,400 sessions.", ask)


def test_has_anyone_asks_for_a_person_and_the_team_it_ends_on_is_no_subject() -> None:
    ask = read_ask("Has anyone new joined the team?")
    assert ask.kinds == ("person",) and ask.subject == {"new", "join"}
    assert "team" in read_ask("Who is on the design team for HOT?").subject


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Runbooks and decision records live in git.", True),
        ("The scorecard template lives in the shared drive.", True),
        ("Our analytics warehouse is Borealis.", True),
        ("Booked Millrace Lodge for the winter offsite.", True),
        ("#incidents replaces #war-room for incident coordination.", True),
        ("Brightwater Dental checkout outage lasted 25 minutes before the fix.", False),
        ("Standup moved to Monday at 09:30.", False),
    ],
)
def test_a_where_question_asks_for_a_place(text: str, expected: bool) -> None:
    """A name the sentence is about is not where; one it names after a verb is."""
    assert fits(text, read_ask("Where do we keep it?")) is expected


def test_paid_holiday_is_time_off_not_an_amount() -> None:
    assert "duration" in read_ask("How much paid holiday do we get a year?").kinds
    assert read_ask("How much are we paid for an audit?").kinds == ("money",)


def test_the_studio_s_is_the_workplace_and_a_day_is_a_value_not_a_name() -> None:
    assert "studio" not in read_ask("What's the studio's day rate for dev work?").subject
    ask = read_ask("What time does the Monday kick-off begin?")
    assert ask.names == () and "monday" in ask.subject


def test_how_long_asks_for_a_duration_whatever_money_words_follow() -> None:
    assert read_ask("How long do clients have to pay our invoices?").kinds == ("duration",)


def test_what_do_we_do_something_on_asks_for_a_tool() -> None:
    ask = read_ask("What do we run experiments on?")
    assert "name" in ask.kinds
    assert not fits("Every experiment runs for at least 14 days.", ask)
    assert fits("All client experiments run in Vantor.", ask)


def test_a_name_after_an_article_still_opens_the_sentence() -> None:
    ask = read_ask("Where do we talk about incidents?")
    assert not fits("A Sev-1 incident pages the on-call engineer within 15 minutes.", ask)


@pytest.mark.parametrize(
    ("question", "old"),
    [
        ("Who handled Quillbrook before Briony?", True),
        ("What was the maintenance window before it moved?", True),
        ("What did a wet proof cost before Hexley's new rate card?", True),
        ("Who used to sign artwork out to the printer?", True),
        ("What did we pay prior to the switch?", True),
        ("How long can a staging site sit idle before it gets torn down?", False),
        ("Whose OK do I need before artwork goes off to the printer?", False),
        ("Who do I ask before adding a custom object to a client CRM?", False),
    ],
)
def test_before_asks_for_the_earlier_value_only_when_it_names_a_change(
    question: str, old: bool
) -> None:
    assert asks_old(question) is old


def test_how_positive_was_asks_for_a_measure_and_anything_is_no_subject() -> None:
    """ "How positive was the coverage?" asks for a figure and keeps "positive" in its
    subject; "how frequently" stays a frequency; "anything" names nothing."""
    ask = read_ask("how positive was Sundial Petfoods coverage?")
    assert ask.kinds == ("percent", "number")
    assert {"posit", "coverag"} <= ask.subject
    assert read_ask("How frequently is PingPost checking the storefronts?").kinds[0] == (
        "frequency"
    )
    assert read_ask("How fast was the booking page?").kinds[0] == "number"
    assert read_ask("anything go off to the printer?").subject == {"printer"}


def test_what_hours_are_counted_of_and_a_period_stay_the_subject() -> None:
    """A question of "how many billable hours" asks for a number of hours, of billable work:
    "billable" stays the subject (without it only "log" was left, which every daily log's
    title has); a notice period asks for a duration, of notice."""
    hours = read_ask("How many billable hours did we log last week?")
    assert "duration" in hours.kinds and "billabl" in hours.subject
    notice = read_ask("What's the notice period on the Stratocast Render account?")
    assert notice.kinds == ("duration",) and "notic" in notice.subject
    assert read_ask("What's the trial period for new hires?").kinds == ("duration",)


def test_what_was_their_name_asks_for_a_person() -> None:
    assert read_ask("new starter, what was their name again?").kinds == ("person",)
    assert read_ask("What is the name of the tool?").kinds != ("person",)
