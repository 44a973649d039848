"""SupabaseConnector against a local fake of the Supabase REST API (PostgREST)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from knowledge_platform.connectors.base import Known, PullResult
from knowledge_platform.connectors.supabase.connector import SupabaseConnector, SupabaseSettings
from knowledge_platform.errors import ConfigError, SourceError
from tests.fakes.http_fake import FakeClock
from tests.fakes.supabase_server import SupabaseFake

pytestmark = pytest.mark.integration

KEY = "service-role-key"
TABLES: list[dict[str, Any]] = [
    {
        "name": "memory",
        "kind": "memory",
        "title_template": "{title}",
        "text_template": "{title}\n\n{body}",
    },
    {"name": "standing_rules", "title_template": "Rule {id}: {topic}", "text_template": "{rule}"},
    {"name": "clients"},
    {
        "name": "tests",
        "title_template": "{name}",
        "date_column": "ended_on",
        "text_template": "Hypothesis: {hypothesis}\n\nLift: {lift:.1%}",
    },
]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[SupabaseFake]:
    monkeypatch.setenv("SUPABASE_SERVICE_KEY", KEY)
    with SupabaseFake(key=KEY) as server:
        for name in ("memory", "standing_rules", "clients", "tests"):
            server.create_table(name)
        server.insert(
            "memory",
            {"id": 1, "title": "Kickoff", "body": "Met the team."},
            {"id": 2, "title": "Pricing", "body": "Raised prices."},
            {"id": 3, "title": "Hiring", "body": None},
        )
        server.insert(
            "standing_rules",
            {"id": 1, "topic": "tone", "rule": "Be direct."},
            {"id": 2, "topic": "sources", "rule": "Cite everything."},
        )
        server.insert(
            "clients",
            {"id": "shade_store", "name": "The Shade Store", "tier": "A"},
            {"id": "hot", "name": "HOT", "tier": None},
        )
        server.insert(
            "tests",
            {
                "id": 10,
                "name": "Sticky CTA",
                "hypothesis": "A sticky CTA helps.",
                "lift": 0.125,
                "ended_on": "2024-04-30",
            },
        )
        yield server


def connector(
    fake: SupabaseFake, clock: FakeClock | None = None, **overrides: Any
) -> SupabaseConnector:
    # The fake's tables hold no client's rows: each says so (shared) unless it filters.
    tables = [
        t if "filter" in t else {"shared": True, **t} for t in overrides.pop("tables", TABLES)
    ]
    raw = {"url": fake.url(), "tables": tables, **overrides}
    clock = clock or FakeClock()
    return SupabaseConnector(
        SupabaseSettings.model_validate(raw), "internal", sleep=clock.sleep, clock=clock
    )


def known(*results: PullResult) -> Known:
    """What the index holds after these pulls (the merge's snapshot, for a connector test)."""
    docs: dict[str, Any] = {}
    for result in results:
        if result.full:
            docs = {}
        docs.update({d.source_id: d for d in result.documents})
        for sid in result.deleted:
            docs.pop(sid, None)
    return Known(documents=docs)


def test_full_pull_renders_every_row(fake: SupabaseFake) -> None:
    result = connector(fake).pull(None)

    docs = {d.source_id: d for d in result.documents}
    assert result.full is True
    assert set(docs) == {
        "memory:1",
        "memory:2",
        "memory:3",
        "standing_rules:1",
        "standing_rules:2",
        "clients:shade_store",
        "clients:hot",
        "tests:10",
    }
    assert docs["memory:1"].kind == "memory" and docs["memory:1"].text == "Kickoff\n\nMet the team."
    assert docs["memory:3"].text == "Hiring"  # NULL renders as nothing
    assert docs["memory:1"].version == fake.tables["memory"][1]["updated_at"]
    assert docs["memory:1"].date is not None and docs["memory:1"].date.isoformat() == "2024-06-01"
    assert docs["memory:1"].uri == fake.url("/rest/v1/memory?id=eq.1")
    assert docs["standing_rules:2"].title == "Rule 2: sources"
    assert docs["clients:shade_store"].title == "The Shade Store"
    assert "- **tier**: A" in docs["clients:shade_store"].text
    assert docs["tests:10"].text.endswith("Lift: 12.5%")
    assert docs["tests:10"].date is not None and docs["tests:10"].date.isoformat() == "2024-04-30"
    for r in fake.requests("/rest/v1/"):
        assert r.arg("limit") == "1000"
        assert r.headers["Apikey"] == KEY and r.headers["Authorization"] == f"Bearer {KEY}"
    # Per table: rows with updated_at by (updated_at, id) keyset (a page, then an empty one),
    # then the rows whose updated_at is NULL by id (one empty page).
    walks = [(r.arg("updated_at"), r.arg("order")) for r in fake.requests("/rest/v1/memory")]
    assert walks == [("not.is.null", "updated_at.asc,id.asc")] * 2 + [("is.null", "id.asc")]
    assert result.requests == len(fake.log) == 12
    assert result.cursor.tables["memory"].high_water == fake.tables["memory"][3]["updated_at"]


def _bulk(fake: SupabaseFake, n: int) -> None:
    fake.insert(
        "memory", *({"id": i, "title": f"Note {i}", "body": "x"} for i in range(100, 100 + n))
    )


@pytest.mark.parametrize(("cap", "page_size", "pages"), [(1000, 1000, 3), (300, 1000, 9)])
def test_max_rows_cap_never_ends_paging_early(
    fake: SupabaseFake, cap: int, page_size: int, pages: int
) -> None:
    fake.max_rows = cap
    _bulk(fake, 2500)

    result = connector(fake, tables=TABLES[:1], page_size=page_size).pull(None)

    assert sum(d.source_id.startswith("memory:") for d in result.documents) == 2503
    served = fake.requests("/rest/v1/memory")[:-1]  # the NULL updated_at walk comes last
    assert len(served) == pages + 1  # the last one comes back empty
    assert all(r.arg("limit") == str(page_size) for r in served)
    last = fake.tables["memory"][fake_id(cap)]
    assert served[0].arg("or") is None and served[1].arg("or") == (
        f'(updated_at.gt."{last["updated_at"]}",and(updated_at.eq."{last["updated_at"]}",'
        f"id.gt.{fake_id(cap)}))"
    )


def fake_id(cap: int) -> int:
    """The id of the last row of the first capped page (ids 1..3, then 100...)."""
    return 100 + cap - 4


def test_equal_timestamps_across_a_page_boundary_lose_no_row(fake: SupabaseFake) -> None:
    """One transaction's writes share `updated_at`; pages of two split them, and the keyset's
    id tie-breaker still reads every row, in the full pull and in the ordinary run."""
    fake.max_rows = 2
    fake.frozen = True
    conn = connector(fake, tables=TABLES[:1], overlap_seconds=0)
    _bulk(fake, 5)
    first = conn.pull(None)
    assert len(first.documents) == 8
    fake.insert("memory", *({"id": i, "title": f"Late {i}", "body": "y"} for i in (200, 201)))
    fake.update("memory", 101, body="edited in the same transaction")
    second = conn.pull(first.cursor, known=known(first))
    assert {d.source_id for d in second.documents} >= {"memory:200", "memory:201", "memory:101"}
    assert second.deleted == [] and second.missing == []


def test_incremental_pull_requests_only_changes_and_sweeps_ids(fake: SupabaseFake) -> None:
    conn = connector(fake, overlap_seconds=0)
    first = conn.pull(None)
    fake.clear_log()
    fake.tick(3600)
    fake.update("memory", 2, body="Raised prices by 5%.")
    (new_id,) = fake.insert("memory", {"title": "Offsite", "body": "In May."})
    fake.delete("standing_rules", 1)

    second = conn.pull(first.cursor, known=known(first))

    assert second.full is False
    # `gte` re-reads the row sitting exactly at each table's high-water mark: harmless.
    boundary = {
        f"{t}:{rid}"
        for t, rows in fake.tables.items()
        for rid, row in rows.items()
        if row["updated_at"] == first.cursor.tables[t].high_water
    }
    assert {"memory:3", "clients:hot", "tests:10"} <= boundary
    assert {d.source_id for d in second.documents} == {"memory:2", f"memory:{new_id}"} | boundary
    assert second.deleted == ["standing_rules:1"] and second.missing == []
    hw = first.cursor.tables["memory"].high_water
    data = [r for r in fake.requests("/rest/v1/memory") if r.arg("select") == "*"]
    assert data and all(r.arg("updated_at") == f"gte.{hw}" for r in data)
    sweeps = [r for r in fake.log if r.arg("select") == "id"]
    assert {r.path for r in sweeps} == {f"/rest/v1/{t['name']}" for t in TABLES}
    assert all(r.arg("updated_at") is None for r in sweeps)
    # The sweep's missing id was looked up, counted, before it was called deleted.
    (lookup,) = [
        r for r in fake.requests("/rest/v1/standing_rules") if (r.arg("id") or "").startswith("in.")
    ]
    assert lookup.arg("id") == "in.(1)" and lookup.headers["Prefer"] == "count=exact"
    assert second.cursor.tables["memory"].high_water > hw


def test_rows_below_the_high_water_mark_are_fetched_by_id(fake: SupabaseFake) -> None:
    """A row restored or backfilled with an old updated_at never matches `gte`; the id sweep
    finds it and one `in.(...)` request fetches it (quoted ids, commas and all)."""
    conn = connector(fake, overlap_seconds=0)
    first = conn.pull(None)
    old = "2020-01-01T00:00:00+00:00"
    fake.tables["clients"]['acme, "the" co'] = {
        "id": 'acme, "the" co',
        "name": "Acme",
        "updated_at": old,
    }
    fake.tables["memory"][900] = {
        "id": 900,
        "title": "Restored",
        "body": "Old notes.",
        "updated_at": old,
    }
    fake.clear_log()

    second = conn.pull(first.cursor, known=known(first))

    assert {d.source_id for d in second.documents} >= {'clients:acme, "the" co', "memory:900"}
    assert second.deleted == []
    by_id = [r for r in fake.log if (r.arg("id") or "").startswith("in.")]
    assert {r.path for r in by_id} == {"/rest/v1/clients", "/rest/v1/memory"}
    assert [r.arg("id") for r in by_id if r.path.endswith("clients")] == [
        'in.("acme, \\"the\\" co")'
    ]
    third = conn.pull(second.cursor, known=known(first, second))
    assert "memory:900" not in {d.source_id for d in third.documents}


def test_overlap_moves_the_filter_back(fake: SupabaseFake) -> None:
    first = connector(fake).pull(None)
    fake.clear_log()
    connector(fake, overlap_seconds=90).pull(first.cursor)
    hw = first.cursor.tables["memory"].high_water
    sent = {r.arg("updated_at") for r in fake.requests("/rest/v1/memory") if r.arg("select") == "*"}
    assert hw.startswith("2024-06-01T10:00:03") and sent == {"gte.2024-06-01T09:58:33+00:00"}


def test_without_sweep_deletions_show_in_the_next_full_pull(fake: SupabaseFake) -> None:
    conn = connector(fake, sweep_deletions=False)
    first = conn.pull(None)
    fake.delete("memory", 1)
    second = conn.pull(first.cursor)
    assert second.deleted == [] and not [r for r in fake.log if r.arg("select") == "id"]
    third = conn.pull(second.cursor, full=True)
    assert "memory:1" not in {d.source_id for d in third.documents}


def test_rate_limit_waits_for_retry_after(fake: SupabaseFake) -> None:
    clock = FakeClock()
    fake.inject(
        "/rest/v1/clients",
        429,
        {"message": "Too many requests"},
        times=2,
        headers={"Retry-After": "7"},
    )

    result = connector(fake, clock).pull(None)

    assert clock.sleeps == [7.0, 7.0]
    assert "clients:hot" in {d.source_id for d in result.documents}


def test_outage_fails_after_retries(fake: SupabaseFake) -> None:
    clock = FakeClock()
    fake.inject(
        "/rest/v1/memory",
        503,
        {"code": "08006", "message": "connection failure", "details": None, "hint": None},
        times=None,
    )
    with pytest.raises(SourceError) as exc:  # every configured table failed: an outage
        connector(fake, clock, tables=TABLES[:1]).pull(None)
    assert str(exc.value) == (
        "supabase: GET /rest/v1/memory failed with HTTP 503 after 5 attempts: "
        "08006 connection failure"
    )
    assert clock.slept_backoff([0.5, 1.0, 2.0, 4.0]), clock.sleeps


def test_one_failing_table_is_skipped_with_its_rows_and_the_others_are_read(
    fake: SupabaseFake,
) -> None:
    conn = connector(fake, max_retries=1, backoff_seconds=0)
    first = conn.pull(None)
    fake.inject(
        "/rest/v1/memory",
        503,
        {"code": "08006", "message": "connection failure", "details": None, "hint": None},
        times=None,
    )
    fake.update("standing_rules", 2, rule="Cite everything, twice.")
    second = conn.pull(first.cursor, known=known(first))
    (skip,) = second.skipped
    assert skip.source_id == "table memory" and not skip.gone
    assert skip.covers == ["memory:1", "memory:2", "memory:3"]
    assert skip.reason == (
        "GET /rest/v1/memory failed with HTTP 503 after 2 attempts: 08006 connection failure"
    )
    assert "standing_rules:2" in {d.source_id for d in second.documents}
    # The failed table keeps its high-water mark: the next run reads its changes again.
    assert second.cursor.tables["memory"] == first.cursor.tables["memory"]


def test_malformed_json_fails(fake: SupabaseFake) -> None:
    fake.inject("/rest/v1/clients", 200, '[{"id": "hot", "name": ', times=1)
    with pytest.raises(SourceError, match="GET /rest/v1/clients returned malformed JSON"):
        connector(fake, tables=[{"name": "clients"}]).pull(None)
    fake.inject("/rest/v1/clients", 200, '[{"id": "hot", "name": ', times=1)
    (skip,) = connector(fake).pull(None).skipped  # among other tables: that table is skipped
    assert "GET /rest/v1/clients returned malformed JSON" in skip.reason


def test_postgrest_error_message_is_reported(fake: SupabaseFake) -> None:
    tables = [{"name": "memry"}]
    with pytest.raises(SourceError) as exc:
        connector(fake, tables=tables).pull(None)
    assert "HTTP 404" in str(exc.value)
    assert "PGRST205 Could not find the table 'public.memry' in the schema cache" in str(exc.value)
    assert "hint: Perhaps you meant the table 'public.memory'" in str(exc.value)


def test_rows_the_template_cannot_render_are_skipped(fake: SupabaseFake) -> None:
    fake.insert(
        "tests",
        {"id": 11, "name": "Bad lift", "hypothesis": "h", "lift": "n/a"},
        {"id": 12, "name": "No hypothesis", "lift": 0.1},
    )

    result = connector(fake).pull(None)

    reasons = {s.source_id: s.reason for s in result.skipped}
    assert set(reasons) == {"tests:11", "tests:12"}
    assert "Unknown format code '%'" in reasons["tests:11"]
    assert "names column 'hypothesis' that the row lacks" in reasons["tests:12"]
    assert "tests:10" in {d.source_id for d in result.documents}
    # The next ordinary run fetches them again (the merge lists them in `retry`).
    fake.update("tests", 11, lift=0.2)
    fake.clear_log()
    again = connector(fake).pull(
        result.cursor,
        known=Known(
            documents={d.source_id: d for d in result.documents},
            retry=frozenset({"tests:11", "tests:12"}),
        ),
    )
    assert "tests:11" in {d.source_id for d in again.documents}
    assert [s.source_id for s in again.skipped] == ["tests:12"] and again.deleted == []


def test_bad_key_fails_with_clear_message(
    fake: SupabaseFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUPABASE_SERVICE_KEY", "wrong-key")
    with pytest.raises(SourceError) as exc:
        connector(fake).pull(None)
    message = str(exc.value)
    assert "HTTP 401" in message and "PGRST301 Invalid API key" in message
    assert message.endswith("check the service key in $SUPABASE_SERVICE_KEY")
    assert "wrong-key" not in message


def test_new_secret_keys_go_in_apikey_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SB_KEY", "sb_secret_abc")
    with SupabaseFake(key="sb_secret_abc") as server:
        server.create_table("memory")
        server.insert("memory", {"title": "t", "body": "b"})
        result = connector(server, key_env="SB_KEY", tables=TABLES[:1]).pull(None)
    assert [d.source_id for d in result.documents] == ["memory:1"]
    assert all("Authorization" not in r.headers for r in server.log)


def test_missing_key_is_a_config_error(fake: SupabaseFake, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SUPABASE_SERVICE_KEY")
    with pytest.raises(ConfigError, match="SUPABASE_SERVICE_KEY is not set"):
        connector(fake).pull(None)


def test_there_is_no_default_table_list() -> None:
    with pytest.raises(ValueError, match="tables: list the tables this scope reads"):
        SupabaseSettings.model_validate({"url": "https://example.supabase.co"})


def test_a_wait_beyond_max_wait_seconds_fails_fast(fake: SupabaseFake) -> None:
    clock = FakeClock()
    fake.inject("/rest/v1/memory", 429, "", headers={"Retry-After": "900"}, times=None)
    with pytest.raises(SourceError, match=r"HTTP 429 rate limited; waiting 900s more would exceed"):
        connector(fake, clock, max_wait_seconds=300, tables=TABLES[:1]).pull(None)
    assert clock.sleeps == []
