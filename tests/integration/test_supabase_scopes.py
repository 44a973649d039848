"""Which rows a scope reads from a shared Supabase project: registry filters validated when the
registry is read, and a canary row of one client that never reaches another client's scope or
`internal`, whether a filter or row-level security (a per-scope JWT) does the scoping."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from knowledge_platform.config.registry import parse_registry
from knowledge_platform.errors import ConfigError
from knowledge_platform.ingest.snapshots import SnapshotStore
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from tests.assets.conftest import Materializer
from tests.conftest import write_registry
from tests.fakes.supabase_server import SupabaseFake

pytestmark = pytest.mark.integration
KEY, ANON = "service-role-key", "anon-key"
MEMORY = {"name": "memory", "title_template": "{title}", "text_template": "{body}"}


def registry(
    client_tables: list[dict[str, Any]], internal: list[dict[str, Any]] | None = None, **client: Any
) -> dict[str, Any]:
    source = {"url": "https://abcdefghijklmnopqrst.supabase.co", "tables": client_tables, **client}
    internal = internal or [{**MEMORY, "filter": {"client_id": "is.null"}}]
    return {
        "internal": {"sources": {"supabase": {"url": source["url"], "tables": internal}}},
        "clients": {"acme": {"name": "Acme", "director": "maya", "sources": {"supabase": source}}},
    }


FILTERED = {**MEMORY, "filter": {"client_id": "eq.{scope}"}}


@pytest.mark.parametrize(
    ("tables", "extra", "says"),
    [
        (
            [MEMORY],
            {},
            "clients.acme.sources.supabase: Value error, tables.0 (memory): say which "
            "of its rows are acme's: give a filter (e.g. filter: {client_id: "
            "eq.{scope}}) or, if no row of it belongs to a client, shared: true",
        ),
        (
            [],
            {},
            "clients.acme.sources.supabase: Value error, tables: list the tables this scope reads",
        ),
        (
            [{**MEMORY, "shared": True, "filter": {"client_id": "eq.{scope}"}}],
            {},
            "tables.0 (memory): give a filter or shared: true, not both",
        ),
        (
            [MEMORY],
            {"key_env": "SUPABASE_ANON_KEY", "jwt_env": "SUPABASE_ACME_JWT"},
            "tables.0 (memory): say which of its rows are acme's",
        ),  # RLS does not replace it
        (
            [{**MEMORY, "filter": {"client_id": "equals.{scope}"}}],
            {},
            "tables.0.filter: Value error, filter: client_id=equals.{scope}: unknown PostgREST "
            "operator 'equals'",
        ),
        (
            [{**MEMORY, "filter": "client_id=eq.{scope}&order=id.asc"}],
            {},
            "'order' is not a column name PostgREST can filter on",
        ),
        (
            [{**MEMORY, "filter": "or=(client_id.eq.{scope},client_id.is.nul)"}],
            {},
            "`is` takes null, not_null, true, false, unknown",
        ),
        ([{**MEMORY, "filter": "client_id"}], {}, "'client_id' is not column=operator.value"),
        (
            [{**MEMORY, "shared": True}],
            {},
            "supabase: clients.acme.sources.supabase.tables.0 "
            "(memory) is shared: true, but internal filters it, so its rows belong to scopes",
        ),
    ],
)
def test_a_bad_or_missing_filter_is_refused_when_the_registry_is_read(
    tables: list[dict[str, Any]], extra: dict[str, Any], says: str
) -> None:
    with pytest.raises(ConfigError) as info:
        parse_registry(registry(tables, **extra), Path("."))
    assert says in str(info.value) and "\n" not in str(info.value)


def test_internal_names_its_tables_and_their_rows_too() -> None:
    """The leak this closes: `internal` (which every principal reads) with no `tables` read
    four default tables whole, every client's rows included."""
    for internal, says in (
        (None, "internal.sources.supabase: Value error, tables: list"),
        (
            [MEMORY],
            "tables.0 (memory): say which of its rows are "
            "internal's: give a filter (e.g. filter: {client_id: "
            "is.null}) or, if no row of it belongs to a client, "
            "shared: true",
        ),
    ):
        data = registry([FILTERED])
        data["internal"]["sources"]["supabase"] = {
            "url": "https://a.supabase.co",
            **({"tables": internal} if internal else {}),
        }
        with pytest.raises(ConfigError, match=re.escape(says)):
            parse_registry(data, Path("."))


@pytest.mark.parametrize(
    ("tables", "extra"),
    [
        ([{**MEMORY, "filter": {"client_id": "eq.{scope}"}}], {}),
        ([{**MEMORY, "filter": "client_id=eq.{scope}&deleted_at=is.null"}], {}),
        (
            [
                {
                    **MEMORY,
                    "filter": {
                        "or": "(client_id.eq.{scope},client_id.is.null)",
                        "tags": ["cs.{seo}", "not.cs.{draft}"],
                    },
                }
            ],
            {},
        ),
        ([{"name": "services", "shared": True}], {}),
        ([FILTERED], {"key_env": "SUPABASE_ANON_KEY", "jwt_env": "SUPABASE_ACME_JWT"}),
    ],
)
def test_scoped_tables_are_accepted(tables: list[dict[str, Any]], extra: dict[str, Any]) -> None:
    parsed = parse_registry(registry(tables, **extra), Path("."))
    assert parsed.source_settings("supabase", "acme").tables[0].name == tables[0]["name"]


def _row(rid: int, client: str | None, title: str, body: str) -> dict[str, Any]:
    return {"id": rid, "client_id": client, "title": title, "body": body}


def test_a_canary_row_of_one_client_never_reaches_another_scope(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """internal filters `client_id=is.null`; acme filters with the raw template; hot reads
    with the anon key and a JWT whose claim row-level security checks, and a filter. The
    `clients` table (a row per client) is filtered by id; the `services` reference table is
    shared by every scope; `partners`, marked shared in acme though a row of it names HOT, is
    refused there when read. Each client's canary row stays in its own scope. (About 9 s:
    three scopes through the real assets, as a leak would show in what search returns.)"""
    with SupabaseFake(key=KEY) as fake:
        fake.keys[ANON] = "anon"
        fake.create_table("memory", {"client_id": "text"})
        for table in ("clients", "services", "partners"):
            fake.create_table(table)
        fake.insert(
            "memory",
            _row(1, None, "Agency rota", "The agency rota canary stays internal."),
            _row(2, "acme", "Acme brief", "The acme brief canary belongs to Acme."),
            _row(3, "hot", "HOT brief", "The zanzibar canary belongs to HOT alone."),
            _row(4, "hot", "HOT notes", "HOT notes mention the acme brief canary."),
        )
        fake.insert(
            "clients",
            {"id": "acme", "name": "Acme", "tier": "A, the quokka tier"},
            {"id": "hot", "name": "HOT", "tier": "B, the wombat tier"},
        )
        fake.insert("services", {"id": 1, "name": "Audit", "offer": "The numbat audit."})
        fake.insert(
            "partners",
            {
                "id": 1,
                "name": "Agency",
                "client": "HOT",
                "note": "The bilby referral came through HOT.",
            },
        )
        fake.enable_rls("memory", lambda row, claims: row["client_id"] == claims.get("client"))
        monkeypatch.setenv("SB_SERVICE", KEY)
        monkeypatch.setenv("SB_ANON", ANON)
        monkeypatch.setenv("SB_HOT_JWT", fake.user_jwt({"client": "hot"}))
        services = {"name": "services", "shared": True}
        clients = {"name": "clients", "filter": {"id": "eq.{scope}"}}
        own = {**MEMORY, "filter": "client_id=eq.{scope}"}
        source = {"url": fake.url(), "key_env": "SB_SERVICE"}
        data = {
            "embedding": {"provider": "hash"},
            "store": {"engine": "edge"},
            "internal": {
                "sources": {
                    "supabase": {
                        **source,
                        "tables": [{**MEMORY, "filter": {"client_id": "is.null"}}, services],
                    }
                }
            },
            "clients": {
                "acme": {
                    "name": "Acme",
                    "director": "maya",
                    "sources": {
                        "supabase": {
                            **source,
                            "tables": [
                                own,
                                clients,
                                services,
                                {"name": "partners", "shared": True},
                            ],
                        }
                    },
                },
                "hot": {
                    "name": "HOT",
                    "director": "jonas",
                    "sources": {
                        "supabase": {
                            "url": fake.url(),
                            "key_env": "SB_ANON",
                            "jwt_env": "SB_HOT_JWT",
                            "tables": [own, clients, services],
                        }
                    },
                },
            },
        }
        monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("KP_CONFIG", str(write_registry(tmp_path / "registry.yaml", data)))
        settings = Settings()
        run = Materializer(settings)
        results = {scope: run("supabase", scope) for scope in ("internal", "acme", "hot")}
        assert all(r.success for r in results.values())
        hot = [r for r in fake.log if r.headers.get("Apikey") == ANON]
        assert hot and all(r.headers["Authorization"].startswith("Bearer ey") for r in hot)
    checks = {c.check_name: c.passed for c in results["acme"].get_asset_check_evaluations()}
    assert checks["supabase_pull_complete"] is False  # partners: refused, and said so
    problems = SnapshotStore(settings.data_dir).read_sync("supabase", "acme").problems
    assert [p.what for p in problems] == ["table partners"]
    assert "names client 'hot' in client" in problems[0].reason

    runtime = Runtime(settings)
    try:

        def found(phrase: str, scope: str) -> list[str]:
            hits = runtime.retriever.search(scope, phrase, limit=20)
            return sorted(
                {h.chunk.title for h in hits if phrase in h.chunk.embedding_text().lower()}
            )

        assert found("zanzibar canary", "hot") == ["HOT brief"]
        assert found("zanzibar canary", "acme") == found("zanzibar canary", "internal") == []
        assert found("acme brief canary", "acme") == ["Acme brief"]
        assert found("acme brief canary", "internal") == []
        assert found("agency rota canary", "internal") == ["Agency rota"]
        assert found("agency rota canary", "acme") == found("agency rota canary", "hot") == []
        assert found("wombat tier", "hot") == ["HOT"]
        assert found("wombat tier", "acme") == found("wombat tier", "internal") == []
        assert found("quokka tier", "acme") == ["Acme"]
        assert found("quokka tier", "hot") == found("quokka tier", "internal") == []
        assert found("bilby referral", "acme") == []
        for scope in ("internal", "acme", "hot"):
            assert found("numbat audit", scope) == ["Audit"]
    finally:
        runtime.close()
