"""The Supabase connector's sync contract against the PostgREST fake: deletions confirmed by a
counted id lookup (never by a short sweep alone), soft deletes, moves between scopes, a table
that vanishes or is refused, a newly configured table, long id lists."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from werkzeug.wrappers import Request, Response

from knowledge_platform.connectors.base import PullResult
from knowledge_platform.connectors.supabase.connector import SupabaseConnector, SupabaseSettings
from knowledge_platform.errors import SourceError
from tests.fakes.http_fake import FakeClock
from tests.fakes.supabase_server import SupabaseFake
from tests.integration.test_supabase import known

pytestmark = pytest.mark.integration
KEY = "service-role-key"
COLUMNS = {"client_id": "text", "title": "text", "body": "text", "deleted_at": "timestamptz"}


def notes(**extra: Any) -> dict[str, Any]:
    return {
        "name": "notes",
        "title_template": "{title}",
        "text_template": "{body}",
        "soft_delete_column": "deleted_at",
        **extra,
    }


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[SupabaseFake]:
    monkeypatch.setenv("SUPABASE_SERVICE_KEY", KEY)
    with SupabaseFake(key=KEY) as server:
        for table in ("notes", "rules"):
            server.create_table(table, COLUMNS)
        server.insert(
            "notes",
            *(
                {
                    "id": i,
                    "client_id": "acme" if i <= 6 else "hot",
                    "title": f"Note {i}",
                    "body": f"Body {i}",
                }
                for i in range(1, 9)
            ),
        )
        server.insert("rules", {"id": 1, "client_id": "acme", "title": "Rule", "body": "Ask."})
        yield server


def acme(
    fake: SupabaseFake, tables: list[dict[str, Any]] | None = None, **overrides: Any
) -> SupabaseConnector:
    scoped = {"client_id": "eq.{scope}"}
    raw = {
        "url": fake.url(),
        "overlap_seconds": 0,
        "max_retries": 1,
        "backoff_seconds": 0,
        "tables": tables or [notes(filter=scoped), {"name": "rules", "filter": scoped}],
        **overrides,
    }
    clock = FakeClock()
    return SupabaseConnector(
        SupabaseSettings.model_validate(raw), "acme", sleep=clock.sleep, clock=clock
    )


def ids(result: PullResult) -> set[str]:
    return {d.source_id for d in result.documents}


def test_deletes_soft_deletes_and_moves_leave_the_scope_in_one_ordinary_run(
    fake: SupabaseFake,
) -> None:
    conn = acme(fake)
    first = conn.pull(None)
    assert ids(first) == {f"notes:{i}" for i in range(1, 7)} | {"rules:1"}  # no hot rows
    fake.delete("notes", 1)
    fake.update("notes", 2, deleted_at="2024-06-02T00:00:00+00:00")
    fake.update("notes", 3, client_id="hot")
    fake.update("notes", 7, client_id="acme")  # and one arrives from another client
    second = conn.pull(first.cursor, known=known(first))
    assert second.deleted == ["notes:1", "notes:2", "notes:3"] and second.missing == []
    assert "notes:7" in ids(second) and not {"notes:2", "notes:3"} & ids(second)
    full = conn.pull(second.cursor, full=True)
    assert ids(full) == {"notes:4", "notes:5", "notes:6", "notes:7", "rules:1"}


def answer_empty(
    fake: SupabaseFake, when: Callable[[Request], bool], *, times: int | None = None
) -> list[int]:
    """Requests for which `when` holds get `[]` without a count (`Content-Range: */*`), as a
    cut-off listing or a proxy would answer; returns a one-item list counting them."""
    served, handle = [0], fake.handle

    def empty(request: Request) -> Response:
        if when(request) and (times is None or served[0] < times):
            served[0] += 1
            return Response("[]", 200, {"Content-Range": "*/*"}, content_type="application/json")
        return handle(request)

    fake.handle = empty  # type: ignore[method-assign]
    return served


def test_a_truncated_sweep_deletes_nothing(fake: SupabaseFake) -> None:
    conn = acme(fake, page_size=2)
    first = conn.pull(None)
    # The sweep's second page comes back empty, as if the table ended after two rows.
    served = answer_empty(
        fake,
        lambda r: r.args.get("select") == "id" and r.args.get("id", "").startswith("gt."),
        times=1,
    )
    second = conn.pull(first.cursor, known=known(first))
    assert served == [1]
    assert second.deleted == [] and second.missing == []  # the lookup found them all


def test_an_uncounted_empty_lookup_only_infers(fake: SupabaseFake) -> None:
    """A lookup answered `[]` without a count (a proxy, a cut-off answer) confirms nothing:
    the ids go to `missing`, which the deletion guard weighs."""
    conn = acme(fake)
    first = conn.pull(None)
    fake.delete("notes", 4)
    answer_empty(fake, lambda r: r.args.get("id", "").startswith("in."))
    second = conn.pull(first.cursor, known=known(first))
    assert second.deleted == [] and second.missing == ["notes:4"]


def test_a_table_that_suddenly_lists_nothing_is_inferred_not_confirmed(fake: SupabaseFake) -> None:
    """A revoked policy or a wrong JWT shows an empty table, answers and counts included:
    that is never taken as the source's word that every row is gone."""
    conn = acme(fake)
    first = conn.pull(None)
    fake.enable_rls("notes", lambda row, claims: False)
    fake.key, fake.keys = "other", {KEY: "authenticated"}  # the key lost its bypass
    second = conn.pull(first.cursor, known=known(first))
    assert second.deleted == [] and second.missing == [f"notes:{i}" for i in range(1, 7)]


def test_a_vanished_table_is_inferred_a_refused_one_is_kept(fake: SupabaseFake) -> None:
    conn = acme(fake)
    first = conn.pull(None)
    fake.revoked.add("rules")
    second = conn.pull(first.cursor, known=known(first))
    (refused,) = second.skipped
    assert refused.source_id == "table rules" and not refused.gone
    assert refused.covers == ["rules:1"] and "42501 permission denied" in refused.reason
    fake.revoked.clear()
    fake.drop_table("rules")
    third = conn.pull(second.cursor, known=known(first))
    (gone,) = third.skipped  # PGRST205 also answers while the schema cache is stale
    assert gone.vanished and not gone.gone
    assert gone.covers == ["rules:1"] and "PGRST205" in gone.reason
    assert "rules" in third.cursor.tables  # its high-water mark, for when it answers again
    fake.drop_table("notes")
    with pytest.raises(SourceError, match="PGRST205"):  # every table failing: an outage
        conn.pull(third.cursor, known=known(first))


def test_a_refused_key_fails_the_whole_pull(fake: SupabaseFake) -> None:
    conn = acme(fake)
    first = conn.pull(None)
    fake.key = "rotated"
    with pytest.raises(SourceError) as info:
        conn.pull(first.cursor, known=known(first))
    assert "HTTP 401" in str(info.value) and str(info.value).endswith(
        "check the service key in $SUPABASE_SERVICE_KEY"
    )


def test_a_newly_configured_table_is_read_whole_in_an_ordinary_run(fake: SupabaseFake) -> None:
    first = acme(fake, [notes(filter={"client_id": "eq.{scope}"})]).pull(None)
    second = acme(fake).pull(first.cursor, known=known(first))
    assert "rules:1" in ids(second) and second.deleted == []
    assert second.cursor.tables["rules"].high_water == fake.tables["rules"][1]["updated_at"]


def test_rows_without_updated_at_are_read(fake: SupabaseFake) -> None:
    fake.tables["notes"][50] = {
        "id": 50,
        "client_id": "acme",
        "title": "Undated",
        "body": "No trigger set updated_at.",
        "updated_at": None,
    }
    conn = acme(fake)
    first = conn.pull(None)
    assert "notes:50" in ids(first)
    fake.tables["notes"][51] = {**fake.tables["notes"][50], "id": 51}
    assert "notes:51" in ids(conn.pull(first.cursor, known=known(first)))


def test_long_id_lists_are_split_below_the_url_limit(fake: SupabaseFake) -> None:
    many = [
        {"id": f"row-{i:05d}-{'x' * 20}", "client_id": "acme", "body": "b"} for i in range(1500)
    ]
    fake.create_table("refs", COLUMNS)
    fake.insert("refs", *many)
    conn = acme(fake, [{"name": "refs", "filter": {"client_id": "eq.{scope}"}}])
    first = conn.pull(None)
    assert len(first.documents) == 1500
    for row in many:
        fake.delete("refs", row["id"])
    fake.insert("refs", {"id": "keep", "client_id": "acme", "body": "b"})
    second = conn.pull(first.cursor, known=known(first))
    assert len(second.deleted) == 1500
    lookups = [r for r in fake.log if (r.arg("id") or "").startswith("in.")]
    assert len(lookups) > 10 and all(r.status == 200 for r in fake.log)


def test_an_expired_scope_jwt_fails_the_pull_saying_so(
    fake: SupabaseFake, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.keys["anon-key"] = "anon"
    monkeypatch.setenv("SB_ANON", "anon-key")
    token = fake.user_jwt({"client": "acme", "exp": 1_000_000})
    monkeypatch.setenv("SB_ACME_JWT", token)
    conn = acme(
        fake,
        [{"name": "notes", "filter": {"client_id": "eq.{scope}"}}],
        key_env="SB_ANON",
        jwt_env="SB_ACME_JWT",
    )
    with pytest.raises(SourceError) as info:
        conn.pull(None)
    assert "HTTP 401: PGRST303 JWT expired" in str(info.value)
    assert str(info.value).endswith(
        "check the key in $SB_ANON and the JWT in $SB_ACME_JWT "
        "(expired? signed with this project's JWT secret?)"
    )
    assert token not in str(info.value) and token.split(".")[1] not in str(info.value)
