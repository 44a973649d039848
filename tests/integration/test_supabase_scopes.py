"""Which rows a scope reads from a shared Supabase project: registry filters validated when the
registry is read, and a canary row of one client that never reaches another client's scope or
`internal`, whether a filter or row-level security (a per-scope JWT) does the scoping."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from knowledge_platform.errors import ConfigError
from knowledge_platform.registry import parse_registry
from knowledge_platform.runtime import Runtime
from knowledge_platform.settings import Settings
from tests.assets.conftest import Materializer
from tests.conftest import write_registry
from tests.fakes.supabase_server import SupabaseFake

pytestmark = pytest.mark.integration
KEY, ANON = "service-role-key", "anon-key"
MEMORY = {"name": "memory", "title_template": "{title}", "text_template": "{body}"}


def registry(client_tables: list[dict[str, Any]], **client: Any) -> dict[str, Any]:
    source = {"url": "https://abcdefghijklmnopqrst.supabase.co", "tables": client_tables,
              **client}
    return {"internal": {"sources": {"supabase": {"url": source["url"],
                                                  "tables": [MEMORY]}}},
            "clients": {"acme": {"name": "Acme", "director": "maya",
                                 "sources": {"supabase": source}}}}


@pytest.mark.parametrize(("tables", "extra", "says"), [
    ([MEMORY], {}, "clients.acme.sources.supabase: Value error, tables.0 (memory): a client "
                   "scope reads only its own rows; give a filter"),
    ([{**MEMORY, "filter": {"client_id": "equals.{scope}"}}], {},
     "tables.0.filter: Value error, filter: client_id=equals.{scope}: unknown PostgREST "
     "operator 'equals'"),
    ([{**MEMORY, "filter": "client_id=eq.{scope}&order=id.asc"}], {},
     "'order' is not a column name PostgREST can filter on"),
    ([{**MEMORY, "filter": "or=(client_id.eq.{scope},client_id.is.nul)"}], {},
     "`is` takes null, not_null, true, false, unknown"),
    ([{**MEMORY, "filter": "client_id"}], {}, "'client_id' is not column=operator.value"),
])
def test_a_bad_or_missing_filter_is_refused_when_the_registry_is_read(
        tables: list[dict[str, Any]], extra: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_registry(registry(tables, **extra), Path("."))
    assert says in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(("tables", "extra"), [
    ([{**MEMORY, "filter": {"client_id": "eq.{scope}"}}], {}),
    ([{**MEMORY, "filter": "client_id=eq.{scope}&deleted_at=is.null"}], {}),
    ([{**MEMORY, "filter": {"or": "(client_id.eq.{scope},client_id.is.null)",
                            "tags": ["cs.{seo}", "not.cs.{draft}"]}}], {}),
    ([{"name": "clients", "shared": True}], {}),
    ([MEMORY], {"key_env": "SUPABASE_ANON_KEY", "jwt_env": "SUPABASE_ACME_JWT"}),
])
def test_scoped_tables_are_accepted(tables: list[dict[str, Any]], extra: dict[str, Any]) -> None:
    parsed = parse_registry(registry(tables, **extra), Path("."))
    assert parsed.source_settings("supabase", "acme").tables[0].name == tables[0]["name"]


def _row(rid: int, client: str | None, title: str, body: str) -> dict[str, Any]:
    return {"id": rid, "client_id": client, "title": title, "body": body}


def test_a_canary_row_of_one_client_never_reaches_another_scope(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """internal filters `client_id=is.null`; acme filters with the raw template; hot reads
    with the anon key and a JWT whose claim row-level security checks. The shared `clients`
    table is read by every scope; each client's canary row stays in its own scope. (About
    9 s: three scopes through the real assets, as the leak would show in what search returns.)"""
    with SupabaseFake(key=KEY) as fake:
        fake.keys[ANON] = "anon"
        fake.create_table("memory", {"client_id": "text"})
        fake.create_table("clients")
        fake.insert("memory",
                    _row(1, None, "Agency rota", "The agency rota canary stays internal."),
                    _row(2, "acme", "Acme brief", "The acme brief canary belongs to Acme."),
                    _row(3, "hot", "HOT brief", "The zanzibar canary belongs to HOT alone."),
                    _row(4, "hot", "HOT notes", "HOT notes mention the acme brief canary."))
        fake.insert("clients", {"id": "acme", "name": "Acme", "tier": "A"},
                    {"id": "hot", "name": "HOT", "tier": "B"})
        fake.enable_rls("memory", lambda row, claims: row["client_id"] == claims.get("client"))
        monkeypatch.setenv("SB_SERVICE", KEY)
        monkeypatch.setenv("SB_ANON", ANON)
        monkeypatch.setenv("SB_HOT_JWT", fake.user_jwt({"client": "hot"}))
        shared = {"name": "clients", "shared": True}
        source = {"url": fake.url(), "key_env": "SB_SERVICE"}
        data = {
            "embedding": {"provider": "hash"}, "store": {"engine": "edge"},
            "internal": {"sources": {"supabase": {**source, "tables": [
                {**MEMORY, "filter": {"client_id": "is.null"}}, shared]}}},
            "clients": {
                "acme": {"name": "Acme", "director": "maya", "sources": {"supabase": {
                    **source, "tables": [{**MEMORY, "filter": "client_id=eq.{scope}"},
                                         shared]}}},
                "hot": {"name": "HOT", "director": "jonas", "sources": {"supabase": {
                    "url": fake.url(), "key_env": "SB_ANON", "jwt_env": "SB_HOT_JWT",
                    "tables": [MEMORY, shared]}}}}}
        monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
        monkeypatch.setenv("KP_CONFIG", str(write_registry(tmp_path / "registry.yaml", data)))
        settings = Settings()
        run = Materializer(settings)
        for scope in ("internal", "acme", "hot"):
            assert run("supabase", scope).success
        hot = [r for r in fake.log if r.headers.get("Apikey") == ANON]
        assert hot and all(r.headers["Authorization"].startswith("Bearer ey") for r in hot)

    runtime = Runtime(settings)
    try:
        def found(phrase: str, scope: str) -> list[str]:
            hits = runtime.retriever.search(scope, phrase, limit=20)
            return sorted({h.chunk.title for h in hits
                           if phrase in h.chunk.embedding_text().lower()})

        assert found("zanzibar canary", "hot") == ["HOT brief"]
        assert found("zanzibar canary", "acme") == found("zanzibar canary", "internal") == []
        assert found("acme brief canary", "acme") == ["Acme brief"]
        assert found("acme brief canary", "internal") == []
        assert found("agency rota canary", "internal") == ["Agency rota"]
        assert found("agency rota canary", "acme") == found("agency rota canary", "hot") == []
        for scope in ("internal", "acme", "hot"):
            assert "HOT" in {h.chunk.title for h in runtime.retriever.search(scope, "HOT tier")}
    finally:
        runtime.close()
