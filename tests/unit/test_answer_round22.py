"""Round 22 (issue 25): a phrase and its initials are one thing ("stage manager", "SM"); a
number counts the plural noun it stands before; a chat handle and a word of status ("old",
"new") are not what two statements are about."""

from __future__ import annotations

from datetime import date

from knowledge_platform.dating import CHANGE
from knowledge_platform.embeddings.deterministic import HashEmbedder
from knowledge_platform.models import Hit
from knowledge_platform.serve.answers.asks import counts, fits, read_ask
from knowledge_platform.serve.answers.changes import change_in
from knowledge_platform.serve.answers.conflicts import Disagreement, Statement, disagreement
from knowledge_platform.serve.answers.disagreements import _of_asked_kind
from knowledge_platform.serve.answers.extractive import (
    _older_mark,
    extractive_answer,
    made_old,
    newest_first,
)
from knowledge_platform.serve.answers.glossary import capitals, initials
from knowledge_platform.serve.answers.relevance import Scored, _lexical, covered
from knowledge_platform.serve.answers.sentences import sentences_of
from knowledge_platform.serve.answers.sources import Sources
from knowledge_platform.serve.answers.values import Value, values
from knowledge_platform.sparse import SparseEncoder
from tests.answer_fixtures import hits
from tests.store_fixtures import make_chunk


def _sentence(text: str):
    hit = Hit(chunk=make_chunk(n=1, text=text), score=1.0)
    return next(s for s in sentences_of(Sources([hit]), [hit], 0) if s.text == text)


def test_a_phrase_the_sentence_abbreviates_counts_as_its_words() -> None:
    """ "From when does the new stage manager rate apply?" has four of its five subject words in
    "new SM day rate: $725 (was $650), as of 1 July." (before: two, "new" and "rate", and the
    question was refused)."""
    question = "From when does the new stage manager rate apply?"
    ask = read_ask(question)
    said = _sentence("ludmila: new SM day rate: $725 (was $650), as of 1 July.")
    assert _lexical(ask.subject, said) == 0.4
    assert _lexical(ask.subject, said, question) == 0.8


def test_an_abbreviation_of_the_question_spelled_out_counts() -> None:
    question = "Who is the PM on the Brennock program?"
    ask = read_ask(question)
    said = _sentence("Brennock program: project manager Idony Ravenhill.")
    assert _lexical(ask.subject, said, question) > _lexical(ask.subject, said)


def test_a_time_of_day_is_no_abbreviation() -> None:
    assert capitals("Call at 2 PM with the PMs") == frozenset({"pm"})
    assert capitals("Call at 2 PM") == frozenset()
    assert initials("the new stage manager rate")["sm"] == frozenset({"stage", "manag"})
    assert "tn" not in initials("the new")  # a stopword is no word of a phrase


def test_a_number_counts_the_plural_noun_it_stands_before() -> None:
    """ "2,500 words" counts no linguists, "about 140 booths" no people; "67 hosted sites" and
    "14 attendees" still count sites and people."""
    linguists = read_ask("How many freelance linguists do we have on our roster?").counted
    assert not counts("Jobs over 2,500 words: linguists revise in pairs.", linguists)
    assert counts("We have 38 freelance linguists on the roster.", linguists)
    people = read_ask("How many people attended the expo?").counted
    assert not counts("An exhibit hall of about 140 booths.", people)
    assert counts("Workshop: 14 attendees.", people)
    sites = read_ask("How many sites are on Driftnode?")
    assert fits("we're at 67 hosted sites", sites)


def test_a_chat_handle_and_old_and_new_are_not_what_two_messages_share() -> None:
    """ "the 8% on the rate card is old" (September) and the June stage manager rate share
    "ludmila", "old" and "rate": no conflict of "1 Oct" against "1 July" (before, one was
    drawn and put the contingency first)."""
    question = "From when does the new stage manager rate apply?"
    june = Statement("ludmila: new SM day rate: $725 (was $650), as of 1 July.")
    september = Statement(
        "ludmila: heads up: as of 1 Oct it's 10% contingency on every budget we send out. the "
        "8% on the rate card is old, i'll fix it"
    )
    assert disagreement(question, june, september) is None
    # nor are the tags a log puts first: a purchase limit is not the editor's day rate
    limit = Statement("DECISION: MV raised the purchase limit to $1,200 (was $500).")
    rate = Statement("DECISION (MV): editor day rate goes to $950 from 1 july — it was $850.")
    assert disagreement("What is our day rate for an editor?", limit, rate) is None


def test_it_was_after_a_dash_names_the_old_figure() -> None:
    """ "editor day rate goes to $950 from 1 july — it was $850" says $850 is old (before: no
    old value), so the rate card's "Role: Editor; Day rate: $850." is marked older."""
    change = change_in("DECISION (MV): editor day rate goes to $950 from 1 july — it was $850.")
    assert [v.text for v in change.old] == ["$850"]
    assert "$850" in [v.text for v in change.old_in("Role: Editor; Day rate: $850.")]
    assert not change_in("the test ran 14 days - it was fine").says_change


PAGE = make_chunk(
    n=1,
    source_id="equipment.md",
    title="Equipment",
    text="Instrument rental: Kestrelmark Instrument Rental (Newark DE).",
    date=date(2026, 4, 27),
)
LOG = make_chunk(
    n=2,
    source_id="memory/2026-09-11.md",
    title="2026-09-11",
    text="SUPPLIER CHANGE Kestrelmark is out, Ombry Survey Supply is in for instrument rental.",
    date=date(2026, 9, 11),
    marks=[CHANGE],
)


def _rental() -> tuple[str, int]:
    answer = extractive_answer(
        "Which company do we rent survey instruments from?",
        hits(PAGE, LOG),
        scope="internal",
        embedder=HashEmbedder(),
        min_score=0.3,
    )
    change = next(c.number for c in answer.citations if c.doc_id.endswith("2026-09-11.md"))
    return answer.answer, change


def test_a_row_a_newer_change_makes_old_is_marked_older_before_its_value() -> None:
    """The equipment page's "Instrument rental: Kestrelmark Instrument Rental" and a later log's
    "Kestrelmark is out, Ombry Survey Supply is in": the page's sentence is quoted after the
    change, with "(older; [n] is newer)" before it (before: quoted first, unmarked)."""
    text, change = _rental()
    assert text.index("Ombry") < text.index("Kestrelmark Instrument Rental"), text
    assert f"(older; [{change}] is newer) Instrument rental: Kestrelmark" in text, text


def test_the_change_marks_the_old_row_with_no_conflict_drawn() -> None:
    """With no conflict between them, the statement of change alone makes the page's row
    old (`made_old`): the row goes after it and is marked; the change itself is not marked
    older, only led by what it changed from."""
    sources = Sources(hits(PAGE, LOG))
    row, moved = (
        Scored(s, 0.9, 1.0, 0.5)
        for hit in sources.hits
        for s in sentences_of(sources, [hit], 0)
        if s.text in (PAGE.text, LOG.text)
    )
    old = made_old([row, moved])
    assert old == {id(row): moved}
    assert newest_first([row, moved], [], old) == [moved, row]
    assert _older_mark(row, [], old) == f"(older; [{moved.sentence.ref}] is newer) "
    assert _older_mark(moved, [], old) == "(changed from Kestrelmark) "


def test_a_plural_in_capitals_is_its_singular() -> None:
    """ "marking up PDFs" and "PDF markup" share "pdf" (before: "pdfs", as the stemmer keeps
    an "s" after no vowel or right after one: "kpis", "ctas")."""
    terms = SparseEncoder().terms
    assert terms("PDFs KPIs CTAs ADRs") == ["pdf", "kpi", "cta", "adr"]
    assert terms("GPS is on") == ["gps"]  # a capital S is part of the word


def test_a_tool_list_label_is_the_old_value_a_move_names() -> None:
    """ "We've moved off Redlinery" makes the tools page's "Redlinery: PDF markup, ..." old,
    and the two conflict (before: the label's colon hid the name, and "markups" was no word
    of "marking up")."""
    moved = "We've moved off Redlinery. From today all markups go through Scrivlet."
    listed = "Redlinery: PDF markup, and where clients leave comments on our drawings."
    assert change_in(moved).makes_old(listed)
    found = disagreement(
        "What do we use for marking up PDFs?", Statement(listed, "Tools"), Statement(moved)
    )
    assert found is not None and found.superseding == "b"


def test_a_question_for_a_name_is_not_answered_by_a_conflict_of_durations() -> None:
    """ "What do we use for marking up PDFs?" asks for a tool's name: the tools page's "$38 a
    seat a month" and the handbook's "kept ... for six years" disagree about nothing it asks
    (before, a name question took a conflict of any kind)."""
    question = "What do we use for marking up PDFs?"
    tools = Statement("Redlinery: PDF markup for drawings, $38 a seat a month.", "Tools")
    kept = Statement("Issued PDF drawings are kept a month, then deleted.", "Handbook")
    durations = Disagreement("duration", values("a month")[0], values("six years")[0])
    assert _of_asked_kind(question, durations) is None
    assert _of_asked_kind("How long do we keep PDF drawings?", durations) is durations
    names = Disagreement(
        "name", Value("name", "redlinery", "Redlinery"), Value("name", "scrivlet", "Scrivlet")
    )
    assert _of_asked_kind(question, names) is names
    assert disagreement(question, tools, kept) is None  # the same duration: no disagreement


def test_whoever_now_owns_an_account_replaces_its_titled_lead() -> None:
    """ "Dario now owns Tessellate" and the client directory's "Account lead: Ysmay
    Halvorsen." under "Tessellate Analytics": Dario is newer, Ysmay the old lead (before: no
    old value, so no conflict, and the directory was quoted alone); a name beside the account
    without a title is no holder of it."""
    question = "who looks after tessellate analytics these days"
    change = change_in("Heads up: Dario now owns Tessellate as of Mon 3 Aug.")
    assert change.role == "tessellate"
    lead = Statement("Account lead: Ysmay Halvorsen.", "Clients > Tessellate Analytics", "Clients")
    found = disagreement(question, lead, Statement(change.new_text[0] + " now owns Tessellate."))
    assert found is not None and found.superseding == "b"
    assert (found.a.text, found.b.text) == ("Ysmay Halvorsen", "Dario")
    assert not change.holders("Tessellate list uploaded after the Datavein pass.")
    assert not change.holders("Tessellate SDR team unhappy with lead routing, Thorvald on it.")
    assert [v.text for v in change.holders("Ysmay Halvorsen, account lead for Tessellate")] == [
        "Ysmay Halvorsen"
    ]


def test_the_contact_a_paragraph_labels_is_the_one_it_gives() -> None:
    """The brief's "Our day-to-day contact: Ruth Penhallow" and the client list's "Our contact:
    **Derek Amsel, Director of Facilities.** Everything goes through Derek; he copies the
    Head of School (James Whitcombe)": the list names several people, and labels Derek Amsel
    the contact (before, several names a side were no conflict)."""
    question = "Who is our day-to-day contact at Ashgrove Friends School?"
    brief = Statement(
        "**Our day-to-day contact: Ruth Penhallow, Business Manager.** She coordinates with "
        "the facilities staff.",
        "Ashgrove Friends School — client brief",
    )
    listed = Statement(
        "Our contact: **Derek Amsel, Director of Facilities.** Everything goes through Derek; "
        "he copies the Head of School (James Whitcombe) on design decisions.",
        "Clients > Ashgrove Friends School",
    )
    found = disagreement(question, brief, listed)
    assert found is not None and (found.a.text, found.b.text) == ("Ruth Penhallow", "Derek Amsel")


def test_a_hand_over_names_who_took_over_not_a_word_before_it() -> None:
    """ "[x] Client side — intro call with Ruth Penhallow, who took over from Derek Amsel as
    our contact": the new contact is Ruth Penhallow, not "Client"."""
    question = "Who is our contact at Ashgrove?"
    listed = Statement("Our contact at Ashgrove: Derek Amsel.", "Clients > Ashgrove")
    handed = Statement(
        "[x] Client side — intro call with Ruth Penhallow, who took over from Derek Amsel as our "
        "contact at Ashgrove in July"
    )
    found = disagreement(question, listed, handed)
    assert found is not None and (found.a.text, found.b.text) == ("Derek Amsel", "Ruth Penhallow")


def test_an_abbreviation_may_count_the_initial_of_a_small_word() -> None:
    """ROS is "run of show" (the "of" counted), and so may RS be."""
    spelled = initials("Run of show locks 7 working days before the event")
    assert spelled["ros"] == spelled["rs"] == frozenset({"run", "show"})


def test_a_term_is_covered_by_its_longer_or_shorter_form_of_four_letters_or_more() -> None:
    """`covered` reads prefixes by look-ups now; what it counts is unchanged: "rota" and
    "rotat" cover each other, "mark" covers "markup", a three-letter start covers nothing."""
    assert covered(["rota"], frozenset({"rotat"})) == 1
    assert covered(["rotat"], ["rota"]) == 1
    assert covered(["mark", "pdf"], {"markup", "pdfs"}) == 1  # "pdf": three letters
    assert covered(["pdf"], {"pdf"}) == 1
    assert covered(["manag"], frozenset({"man"})) == 0
    assert covered(["client"], set(), loose={"clients"}) == 1
