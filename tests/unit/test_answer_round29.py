"""Round 29 (issue 25): a week's digest named by its number alone, a rota's "w/c 09/11" rows,
a harvest table's "10-14" rows under their month, a ticket export's "Created (UTC)" column
(each row the day in the registry's timezone),
an undated page's dated headings read in the year its title gives; two numbered sections of
a binder that disagree, two readings in one unit; a labelled place; a change record's own
"## Change"."""

from __future__ import annotations

from datetime import date

from knowledge_platform.dating import day_named, iso_week, stated_review
from knowledge_platform.serve.answers.asks import fits, read_ask
from knowledge_platform.serve.answers.conflicts import Disagreement, Statement, disagreement
from knowledge_platform.serve.answers.disagreements import Found, Side, _of_asked_kind
from knowledge_platform.serve.answers.extractive import _other_sides, _partners, extractive_answer
from knowledge_platform.serve.answers.glossary import words
from knowledge_platform.serve.answers.sentences import names_a_thing
from knowledge_platform.serve.answers.sources import Sources
from knowledge_platform.serve.answers.values import Value, values
from tests.answer_fixtures import hits, local_embedder
from tests.store_fixtures import chunk_file

NOW = date(2026, 11, 20)


def _dated(chunks, text: str) -> date | None:
    """The date of the chunk holding `text`."""
    return next(c.date for c in chunks if text in c.text)


def test_a_digest_named_by_its_week_number_alone_is_of_that_week() -> None:
    """ "digests/wk46.md" gave no date: its ticket counts answered every week's question."""
    assert iso_week("digests/wk46.md", NOW) == date(2026, 11, 13)
    # a week that has not come yet this year is last year's
    assert iso_week("digests/wk50.md", NOW) == date(2025, 12, 12)
    assert iso_week("network/weekly.md", NOW) is None
    digest = "# Service desk digest\n\n| Client | Opened |\n|---|---|\n| **Total** | **137** |\n"
    chunks = chunk_file("digests/wk46.md", digest, iso_week("digests/wk46.md", NOW), "event")
    assert _dated(chunks, "137") == date(2026, 11, 13)


def test_a_rotas_week_commencing_rows_are_each_of_their_week() -> None:
    """ "| w/c 09/11 | Marcus | Dani |" rows were one standing text of the page's review day,
    and what follows a schedule was dated by its last row, weeks ahead."""
    rota = (
        "# On-call rota\n\nUpdated 02/11/2026 (Priya).\n\n"
        "| Week | Nights | Weekend on call |\n|---|---|---|\n"
        "| w/c 26/10 | Owen | Tom |\n| w/c 02/11 | Marcus | Owen |\n"
        "| w/c 09/11 | Marcus | Dani |\n| w/c 16/11 | Marcus | Fatima |\n"
        "| w/c 14/12 | Marcus | Fatima |\n\nSwaps: sort it between you, then tell Priya.\n"
    )
    chunks = chunk_file("oncall/rota.md", rota, date(2026, 11, 2), "standing")
    assert _dated(chunks, "| w/c 09/11 | Marcus | Dani |") == date(2026, 11, 9)
    assert _dated(chunks, "| w/c 26/10 |") == date(2026, 10, 26)
    assert _dated(chunks, "Swaps:") == date(2026, 11, 2)


def test_a_month_tables_month_day_rows_and_a_tickets_created_column() -> None:
    harvest = (
        "# Harvest log 2026\n\n## November 2026\n\n| Date | Kale | Total (lb) |\n|---|---|---|\n"
        "| 11-16 | 52 | 238 |\n| 11-19 | 50 | 212 |\n"
    )
    chunks = chunk_file("logs/harvest-log.md", harvest)
    assert _dated(chunks, "| 11-19 | 50 | 212 |") == date(2026, 11, 19)
    assert _dated(chunks, "| 11-16 |") == date(2026, 11, 16)
    export = (
        "# Ticket export\n\n| Ticket | Created (UTC) | Client | Summary |\n|---|---|---|---|\n"
        "| T-58812 | 2026-11-18T14:10Z | Brightside | Scanner not saving |\n"
        "| T-58830 | 2026-11-19T03:40Z | Brightside | Backup warnings |\n"
        "| T-58844 | 2026-11-19T11:02Z | Calder | Disk warning |\n"
        "| T-58871 | 2026-11-20T01:05Z | Brightside | Locked out of Outlook |\n"
        "| T-58890 | 2026-11-20T13:20Z | Brightside | Printer offline |\n"
    )
    chunks = chunk_file("tickets/export.md", export, date(2026, 11, 20), "event")
    assert _dated(chunks, "T-58844") == date(2026, 11, 19)
    # a time in UTC is a day where the service is (the registry's timezone, New York here):
    # 01:05 on the 20th in UTC was the evening of the 19th, 03:40 on the 19th the 18th's night
    assert _dated(chunks, "T-58871") == date(2026, 11, 19)
    assert _dated(chunks, "T-58830") == date(2026, 11, 18)


def test_an_undated_pages_headings_are_read_in_the_year_its_title_gives() -> None:
    """ "## Box week 27 — 12 Nov" on "Veg box notes - 2026 season" was undated (no year),
    and a range's reading made "27 — 12 Nov" the 27th."""
    assert day_named("Box week 27 \u2014 12 Nov", date(2026, 7, 1)) == date(2026, 11, 12)
    assert day_named("Box week 25 \u2014 29 Oct", date(2026, 7, 1)) == date(2026, 10, 29)
    assert day_named("Handover (9-16 Nov)", date(2026, 7, 1)) == date(2026, 11, 9)
    notes = (
        "# Veg box notes - 2026 season\n\nConnie's running notes from pack day.\n\n"
        "## Box week 28 \u2014 19 Nov\n\nPacked: 58 small / 38 large = 104\n\n"
        "## Box week 27 \u2014 12 Nov\n\nPacked: 63 small / 41 large = 112\n"
    )
    title = "Veg box notes - 2026 season"
    chunks = chunk_file("box-scheme/box-notes.md", notes, None, "standing", title)
    assert _dated(chunks, "= 112") == date(2026, 11, 12)
    assert next(c for c in chunks if "= 104" in c.text).time_kind == "event"


def test_two_numbered_sections_of_two_binders_disagree_in_one_unit() -> None:
    """The print-room handbook's "5. Curing" says 320°F, the QC procedure's "1. First-off"
    330°F: a section's number read as a name made them two things, and two bare numbers
    with no word in common beside them were two counts."""
    assert not names_a_thing("5. Curing")
    assert not names_a_thing("SOP-13 \u2014 Facilities and equipment checks")
    assert names_a_thing("The Shade Store")
    handbook = (
        "# Print Room Handbook\n\n## 5. Curing\n\n"
        "Plastisol: **cure at 320°F** for the whole ink film. Check with the heat gun.\n"
    )
    qc = (
        "# QC procedure\n\n## 1. First-off\n\n"
        "- cure: heat-gun reading at the dryer exit of at least **330°F** on plastisol, "
        "and the stretch test;\n- sewing: seam type and label position.\n"
    )
    chunks = [
        *chunk_file("docs/print-room-handbook.md", handbook, date(2026, 4, 1), "standing"),
        *chunk_file("docs/qc-procedure.md", qc, date(2026, 3, 2), "standing"),
    ]
    got = extractive_answer(
        "At what temperature does plastisol have to cure?",
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
    )
    assert "320°F" in got.answer and "330°F" in got.answer
    assert got.conflicts and got.conflicts[0].newer is not None
    # a unit both write: one measure; no word beside them and no unit: two counts
    question = "How many were there?"
    assert disagreement(question, Statement("Units sewn: 380."), Statement("Down 25 min.")) is None


def test_a_labelled_place_answers_where_and_a_clock_time_is_no_label() -> None:
    where = read_ask("Where is the fire assembly point?")
    assert fits("**Assembly point: the north parking lot, by the loading dock.**", where)
    clippings = read_ask("Where do the daily press clippings come from now?")
    assert not fits("Daily clippings email at 07:00, broadcast monitoring included.", clippings)
    # an article after "at" or "by" is no place: "by the end of the day"
    assert not fits("Send it by the end of the day.", where)
    assert fits("Keys are in a drawer behind the desk.", read_ask("Where are the keys kept?"))


def test_a_change_record_asked_what_it_changed_answers_from_its_change_section() -> None:
    record = (
        "# CHG-0044 \u2014 Atlas RMM: disk-space warning threshold\n\n"
        "Raised: 17/03/2026 by Priya\nStatus: Implemented\n\n"
        "## Why\nAt 20% free we get around 30 disk warnings a week.\n\n"
        "## Change\n- Disk space warning: from below 20% free to below 15% free.\n\n"
        "## Outcome\nImplemented 19/03/2026. Monitoring runbook to be updated.\n"
    )
    title = "CHG-0044 \u2014 Atlas RMM: disk-space warning threshold"
    chunks = chunk_file("changes/CHG-0044.md", record, date(2026, 3, 17), title=title)
    got = extractive_answer(
        "What did CHG-0044 change?",
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
        named={chunks[0].doc_id},
    )
    assert "15%" in got.answer


def test_a_share_asked_of_an_sla_is_a_percentage_and_a_rows_day_no_count() -> None:
    """ "what % inside SLA are we aiming for?" asked for a duration (the SLA's), so "Q4
    target: 96% of P1/P2 responses inside SLA" held nothing it asked for."""
    assert read_ask("what % inside SLA are we aiming for this quarter?").kinds[0] == "percent"
    assert read_ask("What is our SLA compliance target?").kinds[0] == "percent"
    assert "duration" in read_ask("What is the SLA for a P2?").kinds
    target = "Q4 target: 96% of P1/P2 responses inside SLA."
    assert fits(target, read_ask("What is our SLA compliance target for this quarter?"))
    # a harvest row's "Date: 07-30" is a day, not the number 7 against another row's count
    assert [v.kind for v in values("Date: 07-30; Kale: 31")] == ["date", "number"]


def test_a_word_and_its_other_form_are_one_subject_and_locked_out_is_a_login() -> None:
    """The FAQ's "we respond within 30 minutes" and the schedule's "P1: 1 hour response"
    shared no word of the question (respond, response: two stems), so no conflict."""
    question = "How quickly do we promise to respond to a P1?"
    faq = Statement(
        "For a P1 — your whole office can't work — we respond within 30 minutes, day or night.",
        "Client FAQ",
    )
    schedule = Statement(
        "In words, because people quote it: **P1: 1 hour response**, around the clock.",
        "Schedule 2 > 3. Service levels",
    )
    found = disagreement(question, faq, schedule)
    assert found is not None and {found.a.text, found.b.text} == {"30 minutes", "1 hour"}
    said = words("locked out of plotline, who can sort my login?")
    assert {"login", "fix"} <= said and "sort" not in said
    assert "fix" not in words("sort the list by date")
    # "When did the 10% threshold take effect?" of "Implemented Thursday 17 September"
    assert "implement" in words("When did the threshold take effect?")
    assert "charact" in words("how many chars does a password need?")


def test_a_tables_rows_asked_for_none_by_name_answer_with_its_total() -> None:
    """ "How much did the market stall take last week?" quoted the Veg, Flowers and Preserves
    rows of the Saturday's table, never its Total row: the question names no row."""
    takings = (
        "# Market stall takings 2026\n\nCarver Square, Saturdays 8am-1pm.\n\n"
        "## Saturdays\n\n### Sat 14 Nov\n\n| | Cash | Card | Total |\n"
        "|---|---|---|---|\n| Veg | $417.58 | $541.25 | $958.83 |\n"
        "| Flowers | $38.62 | $74.02 | $112.64 |\n"
        "| **Total** | $490.51 | $671.99 | **$1,162.50** |\n\n### Sat 7 Nov\n\n"
        "| | Cash | Card | Total |\n|---|---|---|---|\n| Veg | $394.21 | $690.97 | $1,085.18 |\n"
        "| **Total** | $495.40 | $822.60 | **$1,318.00** |\n"
    )
    title = "Market stall takings 2026"
    chunks = chunk_file("market/takings-2026.md", takings, None, "standing", title)
    got = extractive_answer(
        "How much did the market stall take on Saturday 14 November?",
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
        during=(date(2026, 11, 14), date(2026, 11, 14)),
    )
    assert got.answer.index("$1,162.50") < got.answer.index("$958.83")
    # a row the question names is its answer, not the total
    flowers = extractive_answer(
        "How much did the flowers take on Saturday 14 November?",
        hits(*chunks),
        scope="internal",
        embedder=local_embedder(),
        during=(date(2026, 11, 14), date(2026, 11, 14)),
    )
    total_at = flowers.answer.find("$1,162.50")
    assert total_at == -1 or flowers.answer.index("$112.64") < total_at


def test_a_page_approved_by_the_board_is_as_of_that_month() -> None:
    """The volunteer handbook's footer "Approved by the board: March 2026 · Next review: March
    2027" dated nothing, so its 16-or-older rule had no date against the FAQ's 18."""
    handbook = (
        "# Volunteer Handbook\n\nVolunteers aged 16 or older can come on their own.\n\n"
        "Approved by the board: March 2026 · Next review: March 2027 · Owner: Zubair\n"
    )
    assert stated_review(handbook) == date(2026, 3, 1)


def test_asked_who_a_platforms_name_is_no_ones_and_a_shared_side_is_quoted_once() -> None:
    """ "locked out of plotline, who can sort my login?" flagged Zubair against "Google Form",
    and the minutes' sentence both conflicts shared was quoted twice."""
    question = "Who looks after Plotline?"
    zubair, form = Value("name", "zubair", "Zubair"), Value("name", "google form", "Google Form")
    assert _of_asked_kind(question, Disagreement("name", zubair, form)) is None
    ike = Value("name", "ike", "Ike")
    assert _of_asked_kind(question, Disagreement("name", zubair, ike)) is not None
    page = (
        "# Volunteer FAQ\n\nMessage Zubair: he's the Plotline admin.\n\n"
        "Ike set Plotline up in March.\n\nPlotline replaced the Google Form.\n"
    )
    chunks = chunk_file("volunteers/faq.md", page, date(2026, 9, 2), title="Volunteer FAQ")
    scored, _ = _partners(question, Sources(hits(*chunks)), local_embedder())
    a, b, c = scored[:3]
    shared = [
        Found("name", (Side(a, "x"), Side(b, "y"))),
        Found("name", (Side(c, "z"), Side(b, "y"))),
    ]
    assert [s.sentence.text for s in _other_sides(shared)] == [s.sentence.text for s in (a, b, c)]
