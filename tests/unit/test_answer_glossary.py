"""Reworded questions (issue 25): words of one glossary group count as the question's own,
in a sentence's score and in whether two sentences speak of the same thing; words that ask
for the current value ("currently", "still") are not the subject; a name where something is
kept is not a person."""

from __future__ import annotations

from datetime import date

from knowledge_platform.embeddings.deterministic import HashEmbedder
from knowledge_platform.serve.answers.asks import fits, read_ask
from knowledge_platform.serve.answers.conflicts import Statement, disagreement
from knowledge_platform.serve.answers.glossary import abbreviated, phrases, synonyms, widen, words
from knowledge_platform.serve.answers.relevance import score_sentences
from knowledge_platform.serve.answers.sentences import candidates, terms
from knowledge_platform.serve.answers.sources import Sources
from tests.answer_fixtures import hits
from tests.store_fixtures import make_chunk


def test_a_word_brings_its_group_and_phrases_become_their_word() -> None:
    assert set(terms("KPI")) <= widen(terms("headline metric"))
    assert set(terms("primary")) <= widen(terms("headline"))
    assert phrases("Where are the sign-in details? Log-in first; book time off.") == (
        "Where are the login details? login first; book leave."
    )
    assert phrases("The test log in the client folder.") == "The test log in the client folder."
    assert widen(terms("checkout outage")) >= set(terms("incident"))
    assert not widen(terms("venue")) & set(terms("budget"))  # a word outside every group


def test_a_reworded_attribute_keeps_its_lexical_share() -> None:
    chunk = make_chunk(
        n=1,
        source_id="clients.md",
        title="Clients",
        headers=["Clients", "Orchard Bikes"],
        text="Primary KPI: average order value.",
        date=date(2026, 2, 1),
    )
    sentences = candidates(Sources(hits(chunk)), 6)
    [scored] = score_sentences(
        "What's the headline metric for Orchard Bikes?", sentences, HashEmbedder()
    )
    assert scored.lexical == 1.0  # before: 0.5 (only "Orchard Bikes")


def test_a_statement_of_change_in_other_words_is_the_other_side() -> None:
    """ "A/B tests" is the experiment platform's subject: the change that names the old value
    disagrees with the stale tools page (before: None, too few shared words)."""
    stale = Statement("Experiment platform: Tallyhook.", "Tools", "Tools")
    change = Statement(
        "Vantor replaces Tallyhook as our experiment platform from today (decision 0008).",
        "2026-07-06 daily log > Notes",
        "2026-07-06 daily log",
    )
    found = disagreement("What tool do we run A/B tests in?", stale, change)
    assert found is not None and found.superseding == "b"
    assert (found.a.text, found.b.text) == ("Tallyhook", "Vantor")


def test_words_that_ask_for_the_current_value_are_not_its_subject() -> None:
    assert read_ask("Who leads design at the studio currently?").subject == frozenset(
        terms("leads design")
    )  # the workplace itself is what every passage is about
    assert "still" not in read_ask("Is Tallyhook still our experiment platform?").subject


def test_a_name_where_something_is_kept_is_not_a_person() -> None:
    who = read_ask("Who leads design?")
    assert not fits("Mockups live in Figtree; the studio pays for twelve seats.", who)
    assert not fits("Book trains through Railhop.", who)
    assert fits("Priya Nair is our new head of design.", who)
    assert fits("The guest wifi password was rotated; ask Ines for it.", who)


def test_a_yearly_amount_is_an_annual_one() -> None:
    """ "What's the annual leave allowance?" of "Paid holiday: 27 days a year" (refused)."""
    said = words("Paid holiday: 27 days a year plus public holidays.")
    assert {"annual", "leav"} <= said
    assert "allow" in words("The holiday entitlement is generous.")
    assert "annual" not in words("A yearbook came out.")


def test_a_first_day_is_a_hire_a_win_a_winner_and_a_sign_off_an_approval() -> None:
    for logged in (
        "Welcome Ines Duarte, our new junior designer.",
        "Soraya Haddadin starts today, junior PPC.",
        "Zadie Mortensen starts 9/8 as paid social lead.",
    ):
        assert set(terms("hire")) <= words(logged), logged
    assert "Ines" in phrases("Welcome Ines Duarte, our new junior designer.")  # the name stays
    assert set(terms("start")) <= words("Soraya Haddadin starts today")  # and the start
    assert not set(terms("hire")) & words("The welcome pack goes out on day one.")
    assert not set(terms("hire")) & words("The WIP meeting starts at 10:30.")
    assert set(terms("winner")) <= words("One-page checkout wins, +8.4% CVR.")
    assert set(terms("contract")) <= words("Wrenfield signed the phase-2 SOW.")
    assert set(terms("approval")) <= words("Purchases over $750 need sign-off.")
    assert set(terms("sites")) <= words("Every website ships with an accessibility audit.")
    assert set(terms("replaced")) <= words("Laptops are refreshed every 4 years.")
    # "who signs things off", "which came out ahead": an approval, a win; "beat" is a win
    assert set(terms("approval")) <= words("who signs things off on the Corrowyn side?")
    assert not set(terms("approval")) & words("the sign of the times was off")
    assert set(terms("win")) <= words("wood-wool or felt, which came out ahead?")
    assert set(terms("won")) <= words("the wood-wool panels beat the PET felt")


def test_a_spelt_out_phrase_also_searches_for_its_abbreviation() -> None:
    assert abbreviated("When does the work-in-progress meeting start?") == (
        "When does the work-in-progress meeting start? WIP"
    )
    assert abbreviated("What was our return on ad spend?").endswith(" ROAS")
    assert abbreviated("Where are the sign-in details?") == "Where are the sign-in details?"


def test_a_value_both_give_is_not_their_common_subject() -> None:
    """A delivery review that moved from Monday 09:30 is not the WIP meeting held on Mondays
    because both are weekly (before: "weekly" was the one question word both had)."""
    moved = Statement(
        "The weekly delivery review moved from Monday 09:30 to Wednesday 11:00.",
        "2026-09-02 daily log > Notes",
        "2026-09-02 daily log",
    )
    wip = Statement(
        "Monday WIP meeting at 10:30 in the big room.",
        "Standard operating procedures > Weekly rhythm",
        "Standard operating procedures",
    )
    question = "When does the weekly work-in-progress meeting start?"
    assert disagreement(question, moved, wip) is None
    also_moved = Statement("Moved the Monday WIP meeting to 10:15.", "2026-04-14 daily log")
    assert disagreement(question, also_moved, wip) is not None


def test_a_search_also_looks_for_the_other_words_of_a_group() -> None:
    assert synonyms("headline metric?").split() == [
        *("primary", "main", "principal"),
        *("kpi", "measure", "indicator"),
    ]
    assert synonyms("printer jammed") == ""  # no group: nothing added


def test_a_search_for_a_hire_looks_for_the_words_a_first_day_is_logged_with() -> None:
    assert {"starts", "welcome"} <= set(synonyms("Who did we hire?").split())


def test_a_statement_about_nothing_the_question_asks_is_no_side_of_its_conflict() -> None:
    """The spend floor shares "/mo" with Postmarque's renewal, not Postmarque (before: a
    conflict between $615 and $30k); a log naming the client by its first word is still
    a side of the page under the client's full name."""
    renewal = Statement(
        "Postmarque renewal came in: $615/mo from September (was 480).", "2026-08-03 > Log"
    )
    floor = Statement(
        "Oona: new-client spend floor goes up to $30k/mo, effective immediately.",
        "2026-10-05 > Log",
    )
    assert disagreement("Postmarque price?", renewal, floor) is None
    page = Statement("App redesign launch: October 5.", "Clients > Harrowgate Rowing Club")
    slipped = Statement(
        "Harrowgate launch slipped to November 9; their API isn't ready.", "2026-09-16 > Today"
    )
    assert disagreement("What's the go-live date for the rowing club app?", page, slipped)


def test_idioms_and_spelt_out_names_of_an_office() -> None:
    assert "approve" in phrases("Who gives the OK on freelancer costs?")
    assert abbreviated("Which email service provider do we use?").endswith("ESP")
    assert "target" in words("What CPL are we aiming for?")


def test_going_live_is_a_launch_and_dev_is_development() -> None:
    assert "launch" in words("When is the app going live?")
    assert "launch" in words("What's the go-live date?")
    assert "develop" in words("day rate for dev work")


def test_a_day_two_statements_name_is_not_what_they_are_both_about() -> None:
    """The Monday kick-off and the delivery review that moved off Monday are two meetings
    (before: a conflict, "Monday" being the name both write)."""
    kickoff = Statement("The Monday kick-off is at 9:30: fifteen minutes.", "Handbook > Rituals")
    review = Statement(
        "The weekly delivery review moved from Monday 09:30 to Wednesday 11:00.",
        "2026-09-02 daily log > Notes",
    )
    assert disagreement("What time does the Monday kick-off begin?", kickoff, review) is None


def test_the_word_of_change_both_use_is_not_what_they_share() -> None:
    """A delivery review that moved and a WIP meeting that moves are two meetings (before:
    "moved"/"moves" and 11:00 made one a restatement of the other)."""
    review = Statement(
        "The weekly delivery review moved from Monday 09:30 to Wednesday 11:00.",
        "2026-09-02 daily log > Notes",
    )
    wip = Statement("From Monday 23 March, the WIP meeting moves to Mondays at 11:00.", "Log")
    assert disagreement("When do we hold the WIP meeting?", review, wip) is None


def test_the_name_a_question_gives_is_not_what_makes_two_statements_one_subject() -> None:
    """An invoice to Halcyon Teas is not its subscription box's price; an expense limit is
    not Marlow & Finch's budget (before: conflicts of $34 with $14,970, $38,500 with $750)."""
    box = Statement("Subscription box: $34 a month.", "Clients > Halcyon Teas")
    invoice = Statement("Sent Halcyon Teas invoice INV-120 for $14,970.", "2026-08-07 > Notes")
    assert disagreement("What does a Halcyon Teas subscription box cost?", box, invoice) is None
    budget = Statement("Quarterly budget: $38,500.", "Billing > Marlow & Finch")
    limit = Statement(
        "From today expenses up to $750 need no approval, instead of $500.", "2026-09-21 > Notes"
    )
    question = "What's Marlow & Finch's quarterly budget with us?"
    assert disagreement(question, budget, limit) is None
    other = Statement("Quarterly budget: $42,000.", "Clients > Marlow & Finch")
    assert disagreement(question, budget, other) is not None


def test_a_system_is_an_engine_or_a_platform() -> None:
    assert {"engin", "platform"} <= words("booking system")
    assert "seat" in words("How many Figtree licences do we have?")


def test_what_a_question_asks_in_round_eight_wording() -> None:
    """A role a who-question names is a title its answer must hold; a role asked in a few
    words is a person; "price-led" is no price; "which writer" asks for a person and keeps
    the role as what it is about; trying out is a trial, a client won is signed."""
    assert read_ask("Who's the account manager for Harrowgate Rowing Club?").titles == {"manag"}
    assert read_ask("Billing contact at Cobbleroot Kitchenware?").kinds == ("person",)
    assert "bill" in read_ask("Billing contact at Cobbleroot Kitchenware?").subject
    assert "money" not in read_ask("What CTR lift did the price-led titles get?").kinds
    writer = read_ask("Which writer joined Cindervale in March?")
    assert writer.kinds == ("person",) and "writer" in writer.subject
    assert "trial" in phrases("Which tool did the team try out last month?")
    assert "signed" in synonyms("Any SEO clients won this quarter?")
    assert phrases("Which variant won the test?") == "Which variant won the test?"  # a winner


def test_the_workplace_a_question_names_is_what_every_passage_is_about() -> None:
    """A page titled for the workplace names it; the question is read without it."""
    from knowledge_platform.serve.question import without_workplace, workplace_names

    names = workplace_names(
        ["Tansy Row staff handbook", "Experiment playbook", "2026-05-18 daily log"], ["Fernhill"]
    )
    assert names == {"Tansy Row", "Fernhill"}
    assert without_workplace("Who leads crisis comms at Tansy Row now?", names) == (
        "Who leads crisis comms now?"
    )
    assert without_workplace("Which client did Fernhill sign?", names) == (
        "Which client did we sign?"
    )
    assert without_workplace("What is Fernhill's mission?", names) == "What is our mission?"
    # a page the question names is the page it asks about: the name says which one
    asked = "What does the Tansy Row staff handbook say about leave?"
    assert without_workplace(asked, names) == asked


def test_measures_and_waits_as_logs_write_them() -> None:
    """ "TTFB 468ms" holds a value, "the end of the next working day" is a day's wait, "one
    round" a count, and a question's "SOV" also searches "share of voice"."""
    from knowledge_platform.serve.answers.values import values

    assert [v.norm for v in values("Gannet booking page TTFB 468ms")] == ["468"]
    assert [
        (v.kind, v.norm) for v in values("a first review by the end of the next working day")
    ] == [("duration", "1d")]
    assert ("number", "1") in {(v.kind, v.norm) for v in values("one round of client revisions")}
    assert not values("No one knows.")
    assert abbreviated("Latest Velvetine SOV?").endswith("share of voice")


def test_what_we_decided_is_a_decision() -> None:
    """ "What did we decide last week?" is about the log's "Decision: ..." (the stemmer keeps
    "decide" and "decision" apart)."""
    assert words("What did we decide?") & words("Decision: client reports go out monthly.")


def test_a_new_client_signed_is_a_signing_and_a_sign_off_an_approval() -> None:
    """ "new logos signed", "did we sign up anyone new", "new client did we win" ask about a
    signing; "signs things off" is an approval, read as no word a signing shares."""
    assert phrases("any new logos signed in Q4?") == "any sign in Q4?"
    assert phrases("did we sign up anyone new?") == "did we sign?"
    assert phrases("Which new client did we win?") == "Which sign?"
    assert phrases("who signs things off?") == "who approve?"
    assert not {t for t in words("Ilse signs off the invoices") if t.startswith("sign")}


def test_a_verbs_irregular_forms_and_whom_we_deal_with() -> None:
    """ "come down to" is said as "came down to"; whom we "deal with day to day" is a
    contact; billable is utilisation and PMS is Pantone."""
    assert "come" in words("reverberation under the wood-wool came down to 1.1 seconds")
    assert phrases("Which person at Calloway do we deal with day to day?") == (
        "Which person at Calloway do we contact?"
    )
    assert "contact" in words("Day to day: Perdita Saltire")
    assert words("how billable were we?") & words("the week's utilisation: 81%")
    assert words("What Pantone is the brand blue?") & words("Brand blue is PMS 2945 C")
    # the group, not the words both share ("brand", "blue")
    assert {"billabl", "panton"} <= words("the week's utilisation: 81%; PMS 2945 C")


def test_who_on_the_clients_side_is_their_contact() -> None:
    """ "who on the museum side do we send cuts to?" asks for the museum's contact ("Client
    contact: Delphine ..."); "on our side" is one of ours, and a server side is no one."""
    assert phrases("who on the museum side do we send cuts to?") == (
        "who on the museum contact do we send cuts to?"
    )
    assert phrases("who do i bug about the film on our side?").endswith("on our side?")
    assert phrases("server-side tracking") == "server-side tracking"
