"""Round 20 (issue 25): a measure is a figure with its unit, a count is of what the question
counts, a revenue target is an amount, and a question about what happened in a window is
answered by the log entry about it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from knowledge_platform.models import Hit, chunk_id
from knowledge_platform.serve.answers.asks import counts, fits, read_ask
from knowledge_platform.serve.answers.conflicts import Statement, disagreement
from knowledge_platform.serve.answers.extractive import pick
from knowledge_platform.serve.answers.glossary import phrases, words
from knowledge_platform.serve.answers.items import find_item
from knowledge_platform.serve.answers.relevance import (
    MIN_SCORE,
    Scored,
    _window_first,
    asks_event,
)
from knowledge_platform.serve.answers.sentences import Sentence, _blocks, sentences_of
from knowledge_platform.serve.answers.sources import Sources
from knowledge_platform.serve.answers.values import values
from knowledge_platform.serve.references import item_hits
from knowledge_platform.store.base import SearchFilter
from knowledge_platform.store.edge import EdgeStore
from tests.store_fixtures import DIM, make_chunk, make_point


def test_a_weight_or_an_area_needs_its_unit() -> None:
    """ "4 in max spacing" is no load limit and "within 10 ft of the side line" no floor area
    (before, any number fitted both)."""
    load = read_ask("What is the floor load limit of the Copperkettle mezzanine?")
    assert not fits("Guard detail: balusters at 4 in max spacing, oak cap.", load)
    assert fits("The mezzanine is rated for 125 psf, storage only.", load)
    assert fits(
        "Barge deck limit: 2 tonnes spread evenly.", read_ask("What's the barge's weight limit?")
    )
    area = read_ask("What's the floor area of the Abernathy extension in square feet?")
    assert not fits("The porch comes within 10 ft of the side line.", area)
    assert fits("The extension adds 640 sq ft on the ground floor.", area)
    assert fits("New footprint: 1,200 square feet.", area)


def test_a_sample_size_is_a_count_of_those_observed() -> None:
    ask = read_ask("What was the sample size of the Saltmarsh checkout test?")
    assert not fits("Saltmarsh checkout test live: one-page (B) vs 3-step (A), 50/50 split.", ask)
    assert fits("Each variant needs at least 5,000 visitors.", ask)


def test_a_count_of_people_is_of_people_or_attendees() -> None:
    """ "How many people attended ...?" is not answered by "about 140 booths" (before, the
    verb ended no count and any number fitted); "14 attendees" still answers it."""
    ask = read_ask("How many people attended the Saltcote convention this year?")
    assert not fits("Flagship event: Annual Convention; exhibit hall of about 140 booths.", ask)
    assert fits("Brightwater Dental workshop: 14 attendees, good questions.", ask)
    assert "peopl" in words("14 attendees")


def test_a_count_stands_beside_what_it_counts() -> None:
    """ "19 of our staff seats, freelancer accounts fine" counts no freelancers; "54 client
    sites" and "site visits **39**" count what they name (before, the word anywhere in the
    sentence was enough)."""
    assert not counts(
        "Phrasewell: we're using 19 of our staff seats, freelancer accounts fine.", {"freelanc"}
    )
    assert counts("We host 54 client sites on Driftnode.", {"site"})
    assert counts("March close: drawings issued 81 · site visits **39**.", {"visit"})
    assert counts("Workshop: fourteen attendees.", {"peopl"})


def test_spending_asks_for_an_amount() -> None:
    assert read_ask("how much is ashgrove spending on the new building?").kinds == ("money",)


def test_a_revenue_target_is_an_amount() -> None:
    ask = read_ask("What's Cobbleroot's organic revenue target?")
    assert set(ask.kinds) == {"money", "percent"}
    assert "revenu" in ask.subject
    assert not fits("Cobbleroot organic sessions (7d) 19,305", ask)
    assert fits("Cobbleroot: organic revenue target $42k a month for Q4.", ask)


def test_ear_defenders_are_hearing_protection() -> None:
    assert "hearing" in phrases("What rating do our ear defenders need to have?")
    assert "hear" in words("Hearing protection")


def _said(text: str, score: float, lexical: float, during: bool) -> Scored:
    chunk = make_chunk(n=1, text=text)
    sentence = Sentence(text, ref=1, rank=1, position=0, chunk=chunk)
    return Scored(sentence, score, lexical, 0.3, fits=True, during=during)


def test_a_log_entry_of_the_window_about_something_else_gives_way() -> None:
    """ "Have we had any crisis call-outs this quarter?": "Stood the crisis desk down at 16:00"
    (a log entry of the window with one subject word of three) no longer outranks the entry
    that names the call-out (before, only sentences outside the window gave way)."""
    off = _said("Stood the crisis desk down at 16:00.", 0.628, 0.33, True)
    on = _said("Tumbleweed crisis call-out: a video claims the toy is a hazard.", 0.552, 0.67, True)
    standing = _said("Crisis call-outs are billed at the retainer rate.", 0.6, 0.67, False)
    ranked = sorted(_window_first([off, on, standing]), key=lambda s: -s.score)
    assert ranked[0].sentence.text.startswith("Tumbleweed")
    assert ranked[0].score == 0.552
    assert [round(s.score, 3) for s in ranked[1:]] == [0.44, 0.42]


def test_a_register_row_is_read_from_a_page_that_names_items_of_its_kind(tmp_path: Path) -> None:
    """ "What does SD-11 say?": three journals that mention SD-11 rank first and the style
    guide, whose register table states it, ranks fourth by a chunk naming SD-1; the guide is
    read whole for the row (before, only the first three documents were)."""
    journal = "Quality review: logged SD-11 after the client circled our footnotes in red."
    texts = {
        "journal/a.md": journal,
        "journal/b.md": "New matter for the client. Translator's notes per SD-11.",
        "journal/c.md": "Anselm has logged it as SD-11.",
        "wiki/style-guide.md": "Rule 7: House English is US English (SD-1).",
    }
    register = (
        "## Register\n\n| ID | Date | Decision | Status |\n|---|---|---|---|\n"
        "| SD-1 | 3 Nov 2025 | House English is US English. | Active |\n"
        "| SD-11 | 8 Oct 2026 | Translator's notes go inline in square brackets. | Active |"
    )
    store = EdgeStore(tmp_path / "shards", optimize=False)
    chunks = [
        make_chunk(source_id=name, n=n, text=text) for n, (name, text) in enumerate(texts.items())
    ]
    row = make_chunk(source_id="wiki/style-guide.md", n=3, text=register, ordinal=1)
    row = row.model_copy(
        update={"id": chunk_id("internal", "memory_files", "wiki/style-guide.md", 1)}
    )
    with store.writer("internal", "test", DIM) as writer:
        writer.upsert([make_point(c) for c in [*chunks, row]])
    try:
        hits = [Hit(chunk=c, score=1.0 - n / 10) for n, c in enumerate(chunks)]
        found = item_hits(store, "internal", "What does SD-11 say?", SearchFilter(), hits)
        assert [h.chunk.id for h in found] == [row.id]
        item = find_item("What does SD-11 say?", found)
        assert item is not None and "square brackets" in item.text
    finally:
        store.close()


def test_a_count_at_the_end_of_a_sentence_is_one() -> None:
    assert counts("Open support tickets: 14.", {"ticket"})
    assert counts("Tickets sold — Lanternfall; This week: 988.", {"ticket"})


def test_since_when_asks_for_a_day() -> None:
    """ "since when are we charging $74 an hour?" asks when, like "when" (before: no kind,
    and "since" a subject word the rate change lacked)."""
    for question in (
        "since when are we charging $74 an hour?",
        "From when does the new rate apply?",
    ):
        ask = read_ask(question)
        assert "date" in ask.kinds
        assert not ask.subject & {"sinc", "from"}
    assert "hr" in words("$74 an hour") and "hour" in words("$74/hr")


def test_a_pantone_is_a_number_or_a_code() -> None:
    ask = read_ask("What Pantone is Quillbrook's brand blue?")
    assert fits("Notes: brand spot colour is PMS 2935 C.", ask)
    assert not fits("Their new brand manager asked a lot of questions about the typeface.", ask)


def test_how_close_asks_for_a_distance() -> None:
    ask = read_ask("How close to the dock edge can I get before I need a life jacket on?")
    assert ask.subject == {"dock", "edg", "pfd"}
    assert fits("Wear a USCG-approved PFD whenever you are within 10 feet of a quay edge.", ask)
    assert not fits("Two people minimum on the barge at all times.", ask)
    assert "dock" in words("quay edge") and "pfd" in phrases("a life jacket")
    assert read_ask("How far ahead do we book crew?").kinds == ("duration",)


def test_a_newcomer_in_small_letters_is_a_person() -> None:
    """A chat's "fenna rook started today" names a person although "rook" is an English word
    (before, only a capitalised opening or a hand-over in small letters did)."""
    ask = read_ask("Who joined the studio in March?")
    assert fits("fenna rook started today, junior editor, shadowing OF on the cut-downs", ask)
    assert not fits("the new render queue started today, fewer crashes", ask)


def test_owning_an_account_is_managing_it() -> None:
    assert "manage" in phrases("Heads up: Dario now owns Tessellate as of Mon 3 Aug.")
    assert "manage" in phrases("who looks after tessellate these days")
    assert "manage" not in phrases("our own invoices go out monthly")


def test_a_list_under_a_bold_line_is_about_what_it_names() -> None:
    """ "- Mowing: 24 visits/season" under "**Borough of West Marlow — Marlow Mill Park**" is
    read with that line (before, the item alone named no park), but quoted alone."""
    text = (
        "## Council\n\n**Borough of West Marlow — Marlow Mill Park**\n- Their contact: Denise "
        "Kaur\n- Mowing: 24 visits/season\n\nPrivate gardens come next."
    )
    blocks = _blocks(text)
    assert blocks["Mowing: 24 visits/season"] == (
        "Borough of West Marlow — Marlow Mill Park: Mowing: 24 visits/season"
    )
    assert "Private gardens come next." not in blocks
    chunk = make_chunk(n=1, text=text)
    hit = Hit(chunk=chunk, score=1.0)
    said = [s.text for s in sentences_of(Sources([hit]), [hit], 0)]
    assert "Mowing: 24 visits/season" in said
    assert not any(t.startswith("Borough of West Marlow — Marlow Mill Park:") for t in said)


def test_a_contact_under_a_bold_client_line_conflicts_with_the_new_one() -> None:
    """The client list's "Their contact: Colleen Barber, Estates Manager" (under the client's
    bold line) and a chat's "From May our contact at Brandywine Vale is Dwayne Ortiz, Estates
    Officer." give two contacts: a role title beside each is not a second name."""
    question = "Who is our main contact at Brandywine Vale Housing Association?"
    listed = Statement(
        "Their contact: Colleen Barber, Estates Manager",
        "Clients > Housing associations",
        "Clients",
        "Brandywine Vale Housing Association (BVHA): Their contact: Colleen Barber, Estates "
        "Manager",
    )
    said = Statement("From May our contact at Brandywine Vale is Dwayne Ortiz, Estates Officer.")
    found = disagreement(question, listed, said)
    assert found is not None and {found.a.text, found.b.text} == {"Colleen Barber", "Dwayne Ortiz"}


def test_what_was_decided_asks_what_happened() -> None:
    assert asks_event("what was decided at yesterday's client meeting?")
    assert not asks_event("Who is our main contact at Brandywine Vale?")


def test_a_number_with_thousands_and_decimals_is_one() -> None:
    said = values("March close: fee-earning hours 1,803.5 · drawings issued 81")
    assert [(v.kind, v.norm) for v in said] == [("number", "1803.5"), ("number", "81")]


def test_the_months_total_is_quoted_without_the_other_rows() -> None:
    """ "How many site visits did we make in March?": the March close, not February's close
    or a week's row beside it (before, both came within the relative floor)."""
    march = replace(_said("March close: site visits 39.", 0.95, 1.0, True), month=True)
    february = _said("February close: 43 site visits.", 0.855, 1.0, True)
    week = _said("This week: 7 site visits.", 0.84, 1.0, True)
    assert [s.sentence.text for s in pick([march, february, week], MIN_SCORE)] == [
        "March close: site visits 39."
    ]
    assert len(pick([replace(march, month=False), february, week], MIN_SCORE)) == 3


def test_a_number_asked_for_in_so_many_words_is_a_figure() -> None:
    ask = read_ask("crew days number last wk?")
    assert "number" in ask.kinds and "number" not in ask.subject
    assert not fits("Billie posts the number of crew days booked for the week on Friday.", ask)
    assert fits("billie: crew days booked this wk: 162. highest all year", ask)
    assert "date" in read_ask("When is the count due?").kinds


def test_a_new_starter_asks_who_joined_then() -> None:
    """ "new starter back in march - who was that?" asks what happened in the window, as
    "Who joined in March?" does (before, without a verb of the event, a team row's
    "joined January" stood beside the log's newcomer)."""
    assert asks_event("new starter back in march - who was that?")
    assert asks_event("any new logos since the start of october?")


def test_whose_ok_asks_for_a_person() -> None:
    """ "whose ok do I need ...?" is read as approval and still asks for a person (before,
    the phrase took "whose" with it and the question asked for no kind of value)."""
    ask = read_ask("whose ok do I need before artwork goes off to Hexley?")
    assert ask.kinds == ("person",)
    assert "approv" in ask.subject


def test_a_heading_ends_what_a_bold_line_leads() -> None:
    """A heading after the bold-led list starts another section: neither it nor the list
    under it is read with the bold line."""
    text = (
        "**Borough of West Marlow**\n- Mowing: 24 visits/season\n\n## Private gardens\n\n"
        "- Mowing: weekly"
    )
    blocks = _blocks(text)
    assert blocks["Mowing: 24 visits/season"] == "Borough of West Marlow: Mowing: 24 visits/season"
    assert "Mowing: weekly" not in blocks
