"""Round 24 (issue 25): a correction is a statement of change, a later day's entry of one log
may make an earlier day's value old, and a question that asks only what happened on one day is
answered by that day's log."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from knowledge_platform.dating import CHANGE, CHANGE_CUE
from knowledge_platform.serve.answers.asks import read_ask
from knowledge_platform.serve.answers.changes import change_in
from tests.unit.test_answer_round23 import _scored

LOG = "moss/chat/ops-2026-10.md"
SAID = "Priya Nair: Laurel Ridge tipping goes to $61/ton from Oct 12."
CORRECTION = "Priya Nair: Correction to yesterday — Laurel Ridge is $56/ton, not 61."


def test_a_correction_names_the_value_it_corrects_as_old() -> None:
    """ "Correction to yesterday — ... $56/ton, not 61" said nothing changed (before: no old
    value, and its chunk was not marked as a statement of change)."""
    assert CHANGE_CUE.search(CORRECTION)
    corrected = change_in(CORRECTION)
    assert [v.norm for v in corrected.old_in(SAID)] == ["$61"]
    # "not" without a correction or a "now" is no change
    assert not change_in("Laurel Ridge is $56/ton, not the $61 the others pay.").old


def _entry(text: str, day: date, score: float, lexical: float):
    return _scored(
        text,
        1,
        day,
        "event",
        lexical,
        score,
        source_id=LOG,
        title="#ops · October 2026",
        marks=[CHANGE] if CHANGE_CUE.search(text) else [],
    )


def test_a_later_days_entry_of_one_log_may_make_an_earlier_days_value_old() -> None:
    """Both entries are in one month's chat export: before, a statement of change in the same
    document was never a rival, so the answer led with the $61 the next day's entry corrects
    and quoted it as current."""
    from knowledge_platform.serve.answers.extractive import made_old, newest_first_pick

    said = _entry(SAID, date(2026, 10, 5), 1.0, 1.0)
    corrected = _entry(CORRECTION, date(2026, 10, 6), 0.84, 0.67)
    question = "What does Laurel Ridge Compost charge us per ton?"
    assert newest_first_pick(question, [said], [said, corrected], 0.72)[0] is corrected
    assert made_old([corrected, said]) == {id(said): corrected}
    # one day's entry does not make another sentence of the same day old
    same_day = _entry(CORRECTION, date(2026, 10, 5), 0.84, 0.67)
    assert made_old([same_day, said]) == {}


def test_a_question_about_what_happened_on_one_day_is_answered_by_that_days_log() -> None:
    """ "What did we damage on 14 May?" was not found: no sentence says "damage" ("hit the
    mainline at Orchard Row with the trencher")."""
    from knowledge_platform.serve.answers.extractive import day_pick

    day = date(2026, 5, 14)
    standing = _scored(
        "Damage to client property is reported the same day.", 2, day, "standing", 1, 0.6
    )
    logged = _entry("Dev: hit the mainline at Orchard Row with the trencher.", day, 0.45, 0.0)
    named = _entry("On Thursday 14 May the crew cut the irrigation line.", day, 0.4, 0.0)
    other_day = _entry("Dev: hit a cable at Pruitt.", date(2026, 5, 20), 0.5, 0.0)
    scored = [other_day, standing, logged, named]
    picked = day_pick(read_ask("What did we damage on 14 May?"), scored, (day, day))
    assert picked == [named, logged]
    # a name the question gives must be the entry's ("Dev: hit the mainline"); a question
    # that asks for a kind of value or covers more than a day is answered as any other
    assert day_pick(read_ask("What did Dev damage on 14 May?"), scored, (day, day)) == [logged]
    assert day_pick(read_ask("What did Priya damage on 14 May?"), scored, (day, day)) == []
    assert day_pick(read_ask("How much did we spend on 14 May?"), scored, (day, day)) == []
    week = (date(2026, 5, 11), date(2026, 5, 17))
    assert day_pick(read_ask("What did we damage last week?"), scored, week) == []


def test_an_answer_to_which_record_names_the_record() -> None:
    """ "What incident did we have on 12 May?" quoted "Incident closed with the district."
    (before: without the record it is of); a question for what a record says is not."""
    from knowledge_platform.serve.answers.extractive import record_titles

    closed = _scored(
        "Incident closed with the district.",
        1,
        date(2026, 5, 12),
        "event",
        1.0,
        0.8,
        title="INC-2026-007 — Middle school core switch failure",
    )
    assert record_titles("What incident did we have on 12 May?", [closed]) == {
        id(closed): "INC-2026-007 — Middle school core switch failure: "
    }
    assert record_titles("What did INC-2026-007 find?", [closed]) == {}
    untitled = _scored("Incident closed.", 2, date(2026, 5, 12), "event", 1.0, 0.8)
    assert record_titles("Which incident was closed?", [untitled]) == {}


def test_a_pages_version_line_dates_it() -> None:
    """ "Revision 4 — 11 August 2026 (Marek Rudd)" under a carrier pack's title, "Version 3.1
    (approved March 2026)" under a handbook's, "Rev. C — 14/02/2026": before, all undated."""
    from knowledge_platform.dating import stated_review

    pack = "# Carrier onboarding pack\n\nRevision 4 — 11 August 2026 (Marek Rudd). Replaces 3.\n"
    assert stated_review(pack) == date(2026, 8, 11)
    handbook = "# Employee Handbook\n\nVersion 3.1 (approved March 2026)\nOwner: Lucy.\n"
    assert stated_review(handbook) == date(2026, 3, 1)
    assert stated_review("# SOP-02\n\nRev. C — 14/02/2026\n") == date(2026, 2, 14)
    assert stated_review("# Notes\n\nVersion control: we use git.\n") is None


def test_an_undated_pages_heading_is_dated_by_its_weekday() -> None:
    """ "## Week of Monday 9 November" on a volumes page with no date of its own: before, its
    table was undated, so "last week" could not find it. 9 November was a Monday in 2026 (and
    in 2020, 2015), not in 2025 or 2027."""
    from knowledge_platform.dating import section_time, weekday_year

    today = date(2027, 3, 1)
    assert weekday_year("Week of Monday 9 November", today) == date(2026, 11, 9)
    assert weekday_year("Tues 3rd Nov", today) == date(2026, 11, 3)
    assert weekday_year("Wed, Nov 4", today) == date(2026, 11, 4)
    assert weekday_year("Week of 9 November", today) is None
    assert section_time(["Weekly volumes", "Week of Monday 9 November"], None, "standing") == (
        date(2026, 11, 9),
        "event",
    )


def _chunk_days(text: str, name: str, day: date | None, kind: str) -> list[tuple]:
    from tests.store_fixtures import chunk_file

    return [(c.date, c.time_kind) for c in chunk_file(name, text, day, kind)]


def test_a_tables_rows_are_dated_by_its_date_column() -> None:
    """A rate sheet adds a row per change with its "Effective from" day in its fifth column;
    a stock log writes "13/01/26"; a month's KPI page "w/c 16/11". Before: every row undated,
    or dated by the page, so the newer rate was no newer than the old one."""
    rates = (
        "# Ironside Haulage — rate sheet\n\n"
        "| Lane | Equipment | Rate | Effective from | Notes |\n|---|---|---|---|---|\n"
        "| Port Newark → Lehigh St | 40' container | $685 | 1 Jan 2026 | |\n"
        "| Port Newark → Lehigh St | 40' container | $740 | 1 Jun 2026 | agreed 21 May |\n"
    )
    days = _chunk_days(rates, "carriers/ironside.md", None, "standing")
    assert (date(2026, 1, 1), "event") in days and (date(2026, 6, 1), "event") in days
    log = (
        "# Stock order log\n\n| Date | Branch | Value |\n|---|---|---|\n"
        "| 06/01/26 | Northgate | £1,318.80 |\n| 13/01/26 | Ashby | £231.90 |\n"
    )
    assert [d for d, _ in _chunk_days(log, "stock-order-log.md", None, "standing")] == [
        date(2026, 1, 6),
        date(2026, 1, 13),
    ]
    kpi = (
        "# KPIs — November 2026\n\n## Consults\n\n| w/c | Northgate |\n|---|---|\n"
        "| 02/11 | 406 |\n| 16/11 (Mon\u2013Thu) | 352 |\n"
    )
    assert [d for d, _ in _chunk_days(kpi, "kpi/2026-11.md", date(2026, 11, 1), "event")] == [
        date(2026, 11, 2),
        date(2026, 11, 16),
    ]


def test_a_routes_arrow_does_not_hide_what_a_lane_costs() -> None:
    """ "Port Newark → Lehigh St" read as a move between places made the two rows' disagreement
    one of names, which the question (an amount) drops: the older $685 was quoted as current
    beside the newer $740. Read as answers read it (`between`: the kinds of value that answer
    the question)."""
    from knowledge_platform.serve.answers.disagreements import between

    question = "What does Ironside charge to dray a 40' container from Port Newark to Lehigh St?"
    guide = _scored(
        "Carrier: Ironside; Lane: Port Newark → Lehigh St, 40' container drayage; Base: $685.",
        1,
        date(2026, 4, 14),
        "standing",
        0.9,
        1.0,
        title="Quoting guide",
    ).sentence
    sheet = _scored(
        "Lane: Port Newark → Lehigh St; Equipment: 40' container, drayage; Rate: $740; "
        "Effective from: 1 Jun 2026.",
        2,
        date(2026, 6, 1),
        "event",
        0.9,
        1.0,
        title="Ironside — rate sheet",
    ).sentence
    found = between(question, guide, sheet)
    assert found is not None and (found.a.norm, found.b.norm) == ("$685", "$740")


def test_a_code_with_its_year_inside_names_its_record() -> None:
    """ "What did OB-2026-02 require?": a bulletin's code with its year between letters and
    number gave no number key (its "2026-0" read as neither), so the question named nothing
    and the bulletin ranked fourth."""
    from knowledge_platform.doc_names import name_keys, names, reference

    keys = name_keys(
        "OB-2026-02 — Forklift pre-use checks", "bulletins/OB-2026-02-forklift-checks.md", "memory"
    )
    assert names("What did OB-2026-02 require?", keys)
    assert names("what's in ob-2026-2", keys)
    assert not names("What did OB-2026-12 require?", keys)
    assert not names("What did OB-2025-02 require?", keys)
    assert reference("INC-2026-007") == ("inc2026", 7)
    assert "n:*:2026" not in keys  # "OB-2026" is no record of number 2026


def test_what_a_record_without_sections_says_is_its_first_sentence_after_its_header() -> None:
    """ "What does OB-2026-14 change?" quoted its header block ("Issued: 24 Aug 2026 Issued
    by: ... Supersedes: OB-2026-02") rather than "From Monday 31 August pre-use checks are done
    in the Checkpoint app"."""
    from knowledge_platform.serve.answers.extractive import focus_pick

    body = (
        "Issued: 24 Aug 2026\nStatus: In force\n\n"
        "From Monday 31 August pre-use checks are done in the Checkpoint app. "
        "Scan the QR code on the truck's overhead guard."
    )
    record = dict(source_id="bulletins/OB-2026-14.md", title="OB-2026-14", chunk_text=body)
    when = date(2026, 8, 24)
    issued = _scored("Issued: 24 Aug 2026", 1, when, "standing", 1.0, 0.9, **record)
    first = _scored(
        "From Monday 31 August pre-use checks are done in the Checkpoint app.",
        1,
        when,
        "standing",
        0.3,
        0.5,
        **record,
    )
    picked = focus_pick("What does OB-2026-14 change?", [issued, first])
    assert picked[0].sentence.text == first.sentence.text
    assert all(not p.sentence.text.startswith("Issued:") for p in picked)


def test_a_rows_count_under_a_heading_naming_what_it_counts_fits() -> None:
    """ "How many consults did Northgate do last week?" of "w/c: 09/11; Northgate: 431" under
    "## Consults": the row names no consults, so its 431 counted nothing asked (not found)."""
    from knowledge_platform.embeddings.deterministic import HashEmbedder
    from knowledge_platform.serve.answers.relevance import score_sentences

    row = (
        "# KPIs — November 2026\n\n## Consults\n\n| w/c | Northgate |\n|---|---|\n| 09/11 | 431 |\n"
    )
    said = _scored(
        "w/c: 09/11; Northgate: 431.",
        1,
        date(2026, 11, 9),
        "event",
        1.0,
        0.5,
        chunk_text=row,
        headers=["KPIs — November 2026", "Consults"],
    ).sentence
    question = "How many consults did Northgate do last week?"
    (scored,) = score_sentences(question, [said], HashEmbedder())
    assert scored.fits
    other = replace(said, chunk=said.chunk.model_copy(update={"headers": ["KPIs"]}))
    (scored,) = score_sentences(question, [other], HashEmbedder())
    assert not scored.fits


def test_a_bulletin_that_supersedes_a_year_coded_one_names_it() -> None:
    """ "Supersedes: OB-2026-02" in OB-2026-14's header: the code stopped at "OB-2026", so
    OB-2026-02 was never marked superseded."""
    from knowledge_platform.supersession import stated_links

    header = "# OB-2026-14 — Checks go digital\n\nIssued: 24 Aug 2026\nSupersedes: OB-2026-02\n"
    assert stated_links(header) == {"supersedes": ["OB-2026-02"]}
    assert stated_links("# FC-09\n\nSupersedes FC-04.\n") == {"supersedes": ["FC-04"]}


def test_a_record_asked_what_it_says_answers_from_itself() -> None:
    """ "What is OB-2026-18 about?": another bulletin's newer "Issued: 18 Nov 2026" led the
    answer and its date was drawn as a conflict with the record's own."""
    from knowledge_platform.embeddings.deterministic import HashEmbedder
    from knowledge_platform.serve.answers.extractive import extractive_answer
    from tests.store_fixtures import make_chunk
    from tests.unit.test_answer_round22 import hits

    kiosk = make_chunk(
        n=1,
        source_id="bulletins/OB-2026-18-kiosk.md",
        title="OB-2026-18 — Driver check-in kiosk",
        text="Issued: 26 Oct 2026\n\nFrom Monday 2 November every driver checks in at the kiosk.",
        date=date(2026, 10, 26),
    )
    other = make_chunk(
        n=2,
        source_id="bulletins/OB-2026-20-thanksgiving.md",
        title="OB-2026-20 — Thanksgiving week",
        text="Issued: 18 Nov 2026\n\nThe docks close at noon on Wednesday 25 November.",
        date=date(2026, 11, 18),
    )
    question = "What is OB-2026-18 about?"
    answer = extractive_answer(
        question,
        hits(kiosk, other),
        scope="internal",
        embedder=HashEmbedder(),
        named=[kiosk.doc_id],
    )
    assert "kiosk" in answer.answer and "18 Nov 2026" not in answer.answer, answer.answer
    assert not answer.conflicts
