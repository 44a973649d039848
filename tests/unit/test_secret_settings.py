"""Settings that name secrets: `<name>_env` or `<name>_ref`, declared once (SecretFields), and
a credential pasted where a name or reference belongs refused with where it should go."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from knowledge_platform.config.registry import AnswerConfig, EmbeddingConfig, Principal, StoreConfig
from knowledge_platform.config.registry import parse_registry as parse
from knowledge_platform.errors import ConfigError
from knowledge_platform.secrets.fields import EnvName, SecretFields, VaultRef, secret_names
from knowledge_platform.secrets.resolve import SecretSource
from tests.fakes.fake_op import FakeOp

PASTED = {
    "clickup": "pk_81234567_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.c2lnbmF0dXJl",
    "openai": "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789",
    "supabase": "sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz",
}
PRINCIPAL = {"name": "maya"}


def refused(data: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as info:
        parse(data, Path("."))
    message = str(info.value)
    assert "\n" not in message
    assert not any(v in message or v[:12] in message for v in PASTED.values()), message
    return message


@pytest.mark.parametrize("kind", sorted(PASTED))
@pytest.mark.parametrize(
    ("data", "where"),
    [
        (lambda v: {"principals": [{**PRINCIPAL, "token_env": v}]}, "principals.0.token_env"),
        (lambda v: {"principals": [{**PRINCIPAL, "token_ref": v}]}, "principals.0.token_ref"),
        (
            lambda v: {"embedding": {"provider": "openai", "api_key_env": v}},
            "embedding.api_key_env",
        ),
        (lambda v: {"answer": {"api_key_ref": v}}, "answer.api_key_ref"),
        (lambda v: {"store": {"engine": "qdrant", "api_key_env": v}}, "store.api_key_env"),
        (
            lambda v: {"internal": {"sources": {"clickup": {"token_env": v}}}},
            "internal.sources.clickup.token_env",
        ),
        (
            lambda v: {
                "internal": {
                    "sources": {"supabase": {"url": "https://x.supabase.co", "key_env": v}}
                }
            },
            "internal.sources.supabase.key_env",
        ),
    ],
)
def test_a_pasted_secret_is_refused_with_where_it_belongs(data, where: str, kind: str) -> None:
    message = refused(data(PASTED[kind]))
    assert f"registry: {where}: " in message
    field = where.rsplit(".", 1)[1]
    stem = field.rsplit("_", 1)[0]
    assert f"{field} holds " in message
    assert f'store it in 1Password and write {stem}_ref: "op://' in message
    assert message.endswith(
        f"or export it as an environment variable and write its name in {stem}_env"
    )


def test_a_reference_in_an_env_field_points_to_the_ref_field() -> None:
    message = refused({"principals": [{**PRINCIPAL, "token_env": "op://Compass/maya/token"}]})
    assert message.endswith("write the 1Password reference as token_ref: 'op://Compass/maya/token'")


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (
            {
                "principals": [
                    {**PRINCIPAL, "token_env": "KP_MAYA", "token_ref": "op://v/maya/token"}
                ]
            },
            "give token_env or token_ref, not both",
        ),
        ({"principals": [{**PRINCIPAL, "token_ref": "KP_MAYA"}]}, "must be a 1Password reference"),
        (
            {"principals": [{**PRINCIPAL, "token_ref": "op://v/maya"}]},
            "needs a vault, an item and a field",
        ),
        (
            {"principals": [{**PRINCIPAL, "token_env": "my token"}]},
            "must name an environment variable",
        ),
        (
            {"principals": [{**PRINCIPAL, "token_sha256": "hunter2-the-token-itself"}]},
            "the token itself goes in token_env or token_ref",
        ),
    ],
)
def test_bad_secret_settings_name_the_field(data: dict[str, Any], says: str) -> None:
    assert says in refused(data)


def test_the_brief_reference_form_is_accepted() -> None:
    registry = parse(
        {
            "principals": [{**PRINCIPAL, "token_ref": "op://Compass/ClickUp - automations@/token"}],
            "embedding": {"provider": "openai", "api_key_ref": "op://Compass/OpenAI/api key"},
        },
        Path("."),
    )
    assert registry.principals[0].secret("token") == SecretSource(
        ref="op://Compass/ClickUp - automations@/token", field="token"
    )
    # a reference replaces the default variable; without one the variable is used
    assert registry.embedding.secret("api_key").env is None
    assert AnswerConfig().secret("api_key") == SecretSource(env="OPENAI_API_KEY", field="api_key")


def test_secret_names_come_from_the_field_types_not_the_names() -> None:
    class SupabaseLike(SecretFields):
        project_ref: str = "abcdefghijklmnopqrst"  # a Supabase project ref, not a vault one
        management_token_env: EnvName | None = None
        management_token_ref: VaultRef | None = None

    assert secret_names(SupabaseLike) == ["management_token"]
    assert secret_names(Principal) == ["token"]
    assert secret_names(EmbeddingConfig) == ["api_key"]
    assert secret_names(StoreConfig) == ["url", "api_key"]
    with pytest.raises(ValidationError, match="management_token_ref must be a 1Password"):
        SupabaseLike(management_token_ref="sbp-not-a-reference")


def test_a_settings_model_resolves_its_secret(fake_op: FakeOp) -> None:
    class Settings(SecretFields):
        token_env: EnvName | None = "KP_TEST_UNSET_TOKEN"
        token_ref: VaultRef | None = None

    fake_op.set("op://Compass/bot/token", "the-value")
    settings = Settings(token_ref="op://Compass/bot/token")
    assert settings.resolve_secret("token", owner="demo", what="bot token") == "the-value"
    with pytest.raises(ConfigError, match=r"KP_TEST_UNSET_TOKEN is not set.*in token_ref$"):
        Settings().resolve_secret("token", owner="demo", what="bot token", env={})
    assert Settings().resolve_optional_secret("token", owner="demo", what="x", env={}) is None
