"""Secrets from 1Password references (a fake `op` on PATH) where the core reads them: an MCP
principal's bearer token, the OpenAI key of the embedder and of answer synthesis (the fake
OpenAI server accepts only the referenced key), the Qdrant URL; and the Supabase service key
fetched from the fake Management API."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge_platform.config.registry import AnswerConfig, Registry
from knowledge_platform.connectors.supabase.connector import SupabaseConnector, SupabaseSettings
from knowledge_platform.connectors.supabase.keys import fetch_service_key, project_ref_from_url
from knowledge_platform.embeddings.deterministic import HashEmbedder
from knowledge_platform.errors import ConfigError, SourceError
from knowledge_platform.models import Chunk, Hit
from knowledge_platform.runtime import Runtime
from knowledge_platform.secrets.vault import Vault
from knowledge_platform.serve.access import Authenticator, LiveAuthenticator
from knowledge_platform.serve.answers.ask import answer_question
from knowledge_platform.settings import Settings
from tests.fakes.fake_op import FakeOp
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.supabase_management import FakeSupabaseManagement, legacy_key, new_key
from tests.fakes.supabase_server import SupabaseFake

pytestmark = pytest.mark.integration

OPENAI_REF = "op://Compass/OpenAI platform/api key"
MAYA_REF = "op://Compass/KP maya/token"
OPENAI_KEY = "sk-CANARY-openai-7f3a9c"
MAYA_TOKEN = "CANARY-maya-token-5d1e"
HIT = Hit(
    chunk=Chunk(
        id="c1",
        doc_id="memory_files:ops.md",
        source="memory_files",
        source_id="ops.md",
        scope="internal",
        title="Operations",
        text="The weekly reindex runs on Sunday at 02:00.",
        headers=[],
        ordinal=0,
        kind="memory",
        uri="file:///ops.md",
    ),
    score=0.9,
)


@pytest.fixture
def openai() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(api_key=OPENAI_KEY) as server:
        yield server


def registry(tmp_path: Path, **data: object) -> Registry:
    return Registry.model_validate({**data, "base_dir": tmp_path})


# -- an MCP principal ------------------------------------------------------------------------


def test_a_principal_signs_in_with_a_token_from_a_reference(
    fake_op: FakeOp, tmp_path: Path
) -> None:
    fake_op.set(MAYA_REF, MAYA_TOKEN)
    reg = registry(
        tmp_path,
        principals=[
            {"name": "maya", "token_ref": MAYA_REF},
            {"name": "jonas", "token_env": "KP_TEST_JONAS"},
        ],
    )  # its variable holds a reference
    fake_op.set("op://Compass/KP jonas/token", "jonas-token")
    authn = Authenticator(reg, env={"KP_TEST_JONAS": "op://Compass/KP jonas/token"}, vault=Vault())
    grant = authn.authenticate(MAYA_TOKEN)
    assert grant is not None and grant.principal == "maya"
    assert authn.authenticate("jonas-token").principal == "jonas"  # type: ignore[union-attr]
    assert authn.authenticate(MAYA_REF) is None


def test_a_rotated_principal_token_works_without_a_restart(fake_op: FakeOp, tmp_path: Path) -> None:
    fake_op.set(MAYA_REF, MAYA_TOKEN)
    authn = Authenticator(
        registry(tmp_path, principals=[{"name": "maya", "token_ref": MAYA_REF}]),
        env={},
        vault=Vault(ttl=0.2),
    )
    assert authn.authenticate(MAYA_TOKEN) is not None
    fake_op.set(MAYA_REF, "CANARY-maya-rotated")
    time.sleep(0.25)
    authn.authenticate("anything")  # past the TTL: a background re-read starts
    authn.tokens.wait(10)
    assert authn.authenticate("CANARY-maya-rotated") is not None
    assert authn.authenticate(MAYA_TOKEN) is None


def test_an_unreadable_principal_token_is_one_logged_line(
    fake_op: FakeOp, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    fake_op.set(MAYA_REF, MAYA_TOKEN)
    reg = registry(
        tmp_path,
        principals=[
            {"name": "maya", "token_ref": MAYA_REF},
            {"name": "jonas", "token_env": "KP_TEST_JONAS"},
        ],
    )
    authn = Authenticator(reg, env={"KP_TEST_JONAS": "jonas-token"}, vault=Vault(ttl=0.1))
    fake_op.fail("[ERROR] 2026/11/30 10:00:00 You are not currently signed in.")
    time.sleep(0.15)
    authn.authenticate("x")
    authn.tokens.wait(10)
    assert authn.authenticate(MAYA_TOKEN) is not None  # the last good token is kept
    (record,) = caplog.records
    assert record.getMessage() == (
        f"principal maya: bearer token: op read '{MAYA_REF}' failed (exit 1): You are not "
        "currently signed in.; maya cannot sign in until it is fixed (keeping the token read "
        "before)"
    )
    fresh = Authenticator(reg, env={"KP_TEST_JONAS": "jonas-token"}, vault=Vault())
    assert fresh.authenticate(MAYA_TOKEN) is None  # never read: maya cannot sign in
    assert fresh.authenticate("jonas-token") is not None  # the others still can
    assert MAYA_TOKEN not in caplog.text


def test_a_registry_reload_reads_only_new_principal_tokens(fake_op: FakeOp, tmp_path: Path) -> None:
    """The service rebuilds its authenticator when the registry changes; tokens whose source
    did not change are kept, not read from the vault again (an edit costs no `op` call per
    principal), and a removed principal's token is refused."""
    jonas_ref = "op://Compass/KP jonas/token"
    fake_op.set(MAYA_REF, MAYA_TOKEN)
    fake_op.set(jonas_ref, "jonas-token")
    maya = {"name": "maya", "token_ref": MAYA_REF}
    current = [registry(tmp_path, principals=[maya])]
    authn = LiveAuthenticator(lambda: current[0], env={}, vault=Vault(ttl=0.2))
    read = len(fake_op.calls)
    time.sleep(0.25)  # maya's value is past the vault's TTL: a rebuild reading it would call op
    current[0] = registry(tmp_path, principals=[maya, {"name": "jonas", "token_ref": jonas_ref}])
    authn.current()
    assert [call[-1] for call in fake_op.calls[read:]] == [jonas_ref]
    assert authn.authenticate("jonas-token").principal == "jonas"  # type: ignore[union-attr]
    assert authn.authenticate(MAYA_TOKEN).principal == "maya"  # type: ignore[union-attr]
    both = authn.current()
    current[0] = registry(tmp_path, principals=[maya])
    assert authn.authenticate("jonas-token") is None
    # Past the TTL, those sign-ins started background re-reads: they must not outlive this
    # test (a late `op read` would land in the next test's fake op).
    both.tokens.wait(10)
    authn.current().tokens.wait(10)


# -- OpenAI: embeddings and answers ----------------------------------------------------------


def test_the_openai_embedder_key_comes_from_a_reference(
    fake_op: FakeOp, openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_op.set(OPENAI_REF, OPENAI_KEY)
    reg = registry(
        tmp_path,
        embedding={"provider": "openai", "base_url": openai.base_url, "api_key_ref": OPENAI_REF},
    )
    runtime = Runtime(Settings.model_validate({"KP_HOME": str(tmp_path / "home")}), registry=reg)
    try:
        assert runtime.embedder.embed_query("weekly reindex").shape == (1536,)
    finally:
        runtime.close()
    (request,) = openai.requests("/v1/embeddings", "POST")
    assert request.status == 200 and fake_op.calls == [["read", OPENAI_REF]]


def test_a_missing_embedder_key_names_the_variable_and_the_ref_field(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.delenv("KP_TEST_NO_OPENAI", raising=False)
    reg = registry(tmp_path, embedding={"provider": "openai", "api_key_env": "KP_TEST_NO_OPENAI"})
    runtime = Runtime(Settings.model_validate({"KP_HOME": str(tmp_path / "home")}), registry=reg)
    with pytest.raises(ConfigError) as info:
        _ = runtime.embedder
    assert str(info.value) == (
        "embedding: environment variable KP_TEST_NO_OPENAI is not set; put the OpenAI API key "
        "there (or an op:// reference to it), or name a 1Password reference in api_key_ref"
    )


def test_the_answer_key_comes_from_a_reference(fake_op: FakeOp, openai: FakeOpenAI) -> None:
    fake_op.set(OPENAI_REF, OPENAI_KEY)
    openai.chat_answer = "It runs on Sunday at 02:00 [1]."
    config = AnswerConfig(api_key_ref=OPENAI_REF, base_url=openai.base_url)
    answer = answer_question(
        "When does the reindex run?",
        [HIT],
        scope="internal",
        config=config,
        embedder=HashEmbedder(),
    )
    assert answer.mode == "llm" and answer.citations[0].title == "Operations"
    assert len(openai.chat_requests) == 1


def test_an_unreadable_answer_key_falls_back_to_extractive_with_one_warning(
    fake_op: FakeOp, openai: FakeOpenAI
) -> None:
    fake_op.fail("[ERROR] 2026/11/30 10:00:00 account is not signed in")
    config = AnswerConfig(api_key_ref=OPENAI_REF, base_url=openai.base_url)
    answer = answer_question(
        "When does the reindex run?",
        [HIT],
        scope="internal",
        config=config,
        embedder=HashEmbedder(),
    )
    assert answer.mode == "extractive" and openai.chat_requests == []
    assert answer.warnings == [
        f"LLM synthesis is off: answer: OpenAI API key: op read '{OPENAI_REF}' failed (exit 1): "
        "account is not signed in"
    ]


def test_the_qdrant_url_may_come_from_a_reference_or_says_where_it_is_missing(
    fake_op: FakeOp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("QDRANT_URL", raising=False)
    settings = Settings.model_validate({"KP_HOME": str(tmp_path / "home")})
    runtime = Runtime(settings, registry=registry(tmp_path, store={"engine": "qdrant"}))
    with pytest.raises(
        ConfigError,
        match="store engine 'qdrant': environment variable "
        "QDRANT_URL is not set; put the server URL there",
    ):
        _ = runtime.store
    fake_op.set("op://Infra/Qdrant/url", "http://127.0.0.1:9")
    reg = registry(
        tmp_path,
        store={
            "engine": "qdrant",
            "url_ref": "op://Infra/Qdrant/url",
            "api_key_env": "KP_TEST_NO_QDRANT_KEY",
        },
    )
    runtime = Runtime(settings, registry=reg)
    assert type(runtime.store).__name__ == "QdrantServerStore"
    assert fake_op.calls == [["read", "op://Infra/Qdrant/url"]]
    runtime.close()


# -- Supabase: the service key through the Management API ------------------------------------

PROJECT = "abcdefghijklmnopqrst"
MGMT_TOKEN = "sbp_" + "c4" * 20
SERVICE_JWT = "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.CANARY"


@pytest.fixture
def management() -> Iterator[FakeSupabaseManagement]:
    keys = [
        legacy_key("anon", "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.anon"),
        legacy_key("service_role", SERVICE_JWT),
        new_key("default", "sb_secret_CANARYnewsecretkey00"),
        new_key("web", "sb_publishable_abc", kind="publishable"),
    ]
    with FakeSupabaseManagement(MGMT_TOKEN, {PROJECT: keys}) as server:
        yield server


def fetch(server: FakeSupabaseManagement, **kw: object) -> str:
    options: dict = {"base_url": server.url(), "sleep": lambda s: None, **kw}
    return fetch_service_key(
        options.pop("ref", PROJECT), options.pop("token", MGMT_TOKEN), **options
    )


def test_the_service_key_is_fetched_each_time(management: FakeSupabaseManagement) -> None:
    assert fetch(management) == SERVICE_JWT
    assert fetch(management, key_name="default") == "sb_secret_CANARYnewsecretkey00"
    management.set_key(PROJECT, "service_role", SERVICE_JWT + "2")  # rotated: next run sees it
    assert fetch(management) == SERVICE_JWT + "2"
    requests = management.requests(f"/v1/projects/{PROJECT}/api-keys")
    assert len(requests) == 3 and all(r.arg("reveal") == "true" for r in requests)
    assert requests[0].headers["Authorization"] == f"Bearer {MGMT_TOKEN}"


@pytest.mark.parametrize(
    ("kw", "says"),
    [
        (
            {"token": "sbp_" + "00" * 20},
            'HTTP 401: {"message": "Unauthorized"}; check the Supabase management token',
        ),
        ({"ref": "zyxwvutsrqponmlkjihg"}, "HTTP 404"),
        (
            {"key_name": "nope"},
            "has no API key named 'nope' (it has: anon (legacy), service_role "
            "(legacy), default (secret), web (publishable))",
        ),
        ({"key_name": "web"}, "is a public (publishable) key"),
        ({"key_name": "anon"}, "is a public (legacy) key"),
    ],
)
def test_management_api_failures_are_one_line_without_keys(
    management: FakeSupabaseManagement, kw: dict, says: str
) -> None:
    with pytest.raises(SourceError) as info:
        fetch(management, **kw)
    text = str(info.value)
    assert says in text and "\n" not in text
    assert "CANARY" not in text and MGMT_TOKEN not in text and "sbp_00" not in text


def test_a_masked_key_and_a_bad_ref_are_refused(management: FakeSupabaseManagement) -> None:
    masked = [new_key("default", "sb_secret_abcd" + "·" * 20)]
    management.inject("/api-keys", 200, json.dumps(masked))
    with pytest.raises(SourceError, match="came back masked"):
        fetch(management, key_name="default")
    with pytest.raises(ConfigError, match="is not a Supabase project ref"):
        fetch(management, ref="https://x.supabase.co")
    assert project_ref_from_url(f"https://{PROJECT}.supabase.co") == PROJECT
    assert project_ref_from_url("http://127.0.0.1:54321") is None


def test_the_supabase_connector_fetches_its_key_through_the_management_api_each_run(
    management: FakeSupabaseManagement, fake_op: FakeOp
) -> None:
    """The registry names only the management token's vault reference and the project ref;
    every pull fetches the current service key, so a rotated key needs no restart."""
    token_ref = "op://Compass/Supabase management/token"
    fake_op.set(token_ref, MGMT_TOKEN)
    with SupabaseFake(key=SERVICE_JWT) as rest:
        rest.create_table("memory")
        rest.insert(
            "memory",
            {
                "id": 1,
                "title": "Retainer",
                "body": "Pricing notes.",
                "updated_at": "2026-11-01T00:00:00+00:00",
            },
        )
        settings = SupabaseSettings(
            url=rest.url(),
            project_ref=PROJECT,
            management_token_ref=token_ref,
            management_url=management.url(),
            tables=[{"name": "memory", "shared": True}],
            max_retries=0,
        )
        connector = SupabaseConnector(settings, "internal")
        first = connector.pull(None)
        assert [d.source_id for d in first.documents] == ["memory:1"]
        management.set_key(PROJECT, "service_role", SERVICE_JWT + "2")
        rest.key = SERVICE_JWT + "2"  # the project rotated its key
        assert connector.pull(first.cursor).cursor
        assert len(management.requests(f"/v1/projects/{PROJECT}/api-keys")) == 2
        sent = {k.lower(): v for k, v in rest.requests("/rest/v1/memory")[-1].headers.items()}
    assert sent["apikey"] == SERVICE_JWT + "2"
