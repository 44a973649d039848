"""The Supabase fake answers as PostgREST's documentation says (pagination_count.rst,
tables_views.rst, errors.rst, auth.rst), so connector tests against it mean something."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.fakes.supabase_server import SupabaseFake

pytestmark = pytest.mark.integration
KEY = "service-role-key"
ANON = "anon-key"


@pytest.fixture
def fake() -> Iterator[SupabaseFake]:
    with SupabaseFake(key=KEY, max_rows=3) as server:
        server.keys[ANON] = "anon"
        server.create_table("notes", {"deleted_at": "timestamptz"})
        server.insert(
            "notes", *({"id": i, "client_id": "acme" if i % 2 else "hot"} for i in range(1, 8))
        )
        yield server


def get(fake: SupabaseFake, query: str, key: str = KEY, **headers: str) -> httpx.Response:
    return httpx.get(fake.url(f"/rest/v1/notes?{query}"), headers={"apikey": key, **headers})


def ids(response: httpx.Response) -> list[Any]:
    return [r["id"] for r in response.json()]


def test_pages_are_capped_by_db_max_rows_and_described_by_content_range(fake: SupabaseFake) -> None:
    first = get(fake, "select=id&order=id.asc&limit=5")
    assert ids(first) == [1, 2, 3] and first.headers["Content-Range"] == "0-2/*"
    counted = get(fake, "select=id&order=id.asc&offset=3&limit=5", Prefer="count=exact")
    assert counted.status_code == 206 and counted.headers["Content-Range"] == "3-5/7"
    ranged = get(fake, "select=id&order=id.asc", Range="6-9")
    assert ids(ranged) == [7] and ranged.headers["Content-Range"] == "6-6/*"
    end = get(fake, "select=id&offset=7")
    assert end.status_code == 200 and end.json() == [] and end.headers["Content-Range"] == "*/*"
    beyond = get(fake, "select=id&offset=9", Prefer="count=exact")
    assert beyond.status_code == 416 and beyond.json()["code"] == "PGRST103"
    assert beyond.json()["details"] == "An offset of 9 was requested, but there are only 7 rows."
    assert get(fake, "select=id", Range="5-2").status_code == 416
    whole = get(fake, "select=id&client_id=eq.hot", Prefer="count=exact")
    assert whole.status_code == 200 and whole.headers["Content-Range"] == "0-2/3"


def test_keyset_paging_with_or_and_quoted_timestamps(fake: SupabaseFake) -> None:
    fake.frozen = True
    stamp = fake.tick()
    fake.insert("notes", {"id": 20, "client_id": "acme"}, {"id": 21, "client_id": "acme"})
    after = f'or=(updated_at.gt."{stamp}",and(updated_at.eq."{stamp}",id.gt.20))'
    response = get(fake, after.replace("+", "%2B") + "&order=updated_at.asc,id.asc")
    assert ids(response) == [21]
    unencoded = get(fake, f"updated_at=gt.{stamp}")  # `+` arrives as a space
    assert unencoded.status_code == 400 and unencoded.json()["code"] == "22007"


def test_filters_operators_and_errors(fake: SupabaseFake) -> None:
    assert ids(get(fake, 'id=in.(2,"4",6)&select=id')) == [2, 4, 6]
    assert ids(get(fake, "client_id=not.eq.acme&id=gt.3&select=id")) == [4, 6]
    assert ids(get(fake, "client_id=like.ac*&deleted_at=is.null&id=lte.3")) == [1, 3]
    fake.update("notes", 3, deleted_at="2024-06-02T00:00:00+00:00")
    assert ids(get(fake, "deleted_at=not.is.null")) == [3]
    bad_op = get(fake, "client_id=equals.acme")
    assert bad_op.status_code == 400 and bad_op.json()["code"] == "PGRST100"
    assert get(fake, "nope=eq.1").json()["code"] == "42703"
    assert get(fake, "id=eq.x").json()["code"] == "22P02"
    missing = httpx.get(fake.url("/rest/v1/note"), headers={"apikey": KEY})
    assert missing.status_code == 404 and missing.json()["code"] == "PGRST205"
    assert missing.json()["hint"] == "Perhaps you meant the table 'public.notes'"
    long = get(fake, "id=in.(" + ",".join(str(i) for i in range(3000)) + ")")
    assert long.status_code == 414


def test_keys_jwts_grants_and_row_level_security(fake: SupabaseFake) -> None:
    fake.enable_rls("notes", lambda row, claims: row["client_id"] == claims.get("client_id"))
    acme = fake.user_jwt({"client_id": "acme"})
    assert ids(get(fake, "select=id", ANON, Authorization=f"Bearer {acme}")) == [1, 3, 5]
    assert get(fake, "select=id", ANON).json() == []  # anon: no policy admits a row
    assert ids(get(fake, "select=id")) == [1, 2, 3]  # service_role bypasses RLS
    forged = fake.user_jwt({"client_id": "hot"}, secret="x" * 40)
    assert get(fake, "select=id", ANON, Authorization=f"Bearer {forged}").status_code == 401
    assert get(fake, "select=id", "nope").json()["message"] == "Invalid API key"
    fake.revoked.add("notes")
    assert get(fake, "select=id", ANON).status_code == 401
    denied = get(fake, "select=id", ANON, Authorization=f"Bearer {acme}")
    assert denied.status_code == 403 and denied.json()["code"] == "42501"
