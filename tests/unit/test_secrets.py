"""Secrets: `op://` references read through a fake `op` on PATH (or the SDK), the TTL cache,
one clear line for each way reading can fail, and a value that never reaches a message."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from knowledge_platform.connectors.clickup.settings import ClickUpSettings
from knowledge_platform.errors import (
    ConfigError,
    SecretError,
    SecretReferenceError,
    VaultReadError,
    VaultTimeoutError,
    VaultUnavailableError,
)
from knowledge_platform.secrets.refs import Reference, parse_reference
from knowledge_platform.secrets.resolve import SecretSource, resolve_optional, resolve_secret
from knowledge_platform.secrets.vault import TOKEN_ENV, Vault
from tests.fakes.fake_op import FakeOp

REF = "op://Compass/ClickUp - automations/token"
AT_REF = "op://Compass/ClickUp - automations@/token"
VALUE = "pk_4242_CANARYVALUEQ7X9"


def one_line(exc: pytest.ExceptionInfo[BaseException]) -> str:
    text = str(exc.value)
    assert text and "\n" not in text and "Traceback" not in text, text
    assert VALUE not in text and "CANARY" not in text, text
    return text


@pytest.mark.parametrize(
    ("ref", "parts"),
    [
        (REF, Reference("Compass", "ClickUp - automations", None, "token")),
        (AT_REF, Reference("Compass", "ClickUp - automations@", None, "token")),
        (
            "op://dev/Stripe/Admin/publishable-key",
            Reference("dev", "Stripe", "Admin", "publishable-key"),
        ),
        (
            "op://v/i/one-time password?attribute=otp",
            Reference("v", "i", None, "one-time password", "otp"),
        ),
    ],
)
def test_references_parse_with_spaces_sections_and_attributes(ref: str, parts: Reference) -> None:
    assert parse_reference(ref) == parts


@pytest.mark.parametrize(
    ("ref", "says"),
    [
        ("op://Compass/token", "needs a vault, an item and a field"),
        ("op://Compass//token", "needs a vault, an item and a field"),
        ("op://a/b/c/d/e", "needs a vault, an item and a field"),
        ("vault://a/b/c", "starts with op://"),
        ("op://a/b/c?reveal=true", "?attribute=<name>"),
        ("op://a/b\n/c", "control characters"),
    ],
)
def test_malformed_references_say_what_is_wrong(ref: str, says: str) -> None:
    with pytest.raises(SecretReferenceError, match=says.replace("?", r"\?")):
        parse_reference(ref)


def test_op_reads_a_reference_and_the_cache_holds_it_for_the_ttl(fake_op: FakeOp) -> None:
    fake_op.set(REF, VALUE)
    now = [100.0]
    vault = Vault(ttl=60, clock=lambda: now[0])
    assert vault.read(REF) == VALUE
    assert vault.read(REF) == VALUE
    assert fake_op.calls == [["read", REF]]  # one argument, spaces intact, no shell
    fake_op.set(REF, "rotated-value")
    now[0] += 59
    assert vault.read(REF) == VALUE
    now[0] += 2  # past the TTL: the next run's read sees the rotated secret
    assert vault.read(REF) == "rotated-value"
    assert len(fake_op.calls) == 2


def test_an_env_var_holding_a_reference_is_resolved(fake_op: FakeOp) -> None:
    fake_op.set(REF, VALUE)
    source = SecretSource(env="CU_TOKEN", field="token")
    assert (
        resolve_secret(source, owner="clickup", what="token", env={"CU_TOKEN": REF}, vault=Vault())
        == VALUE
    )
    assert (
        resolve_secret(
            source, owner="clickup", what="token", env={"CU_TOKEN": " plain "}, vault=Vault()
        )
        == "plain"
    )
    assert resolve_optional(source, owner="clickup", what="token", env={}) is None


def test_a_connector_secret_reads_through_the_vault(
    fake_op: FakeOp, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_op.set(REF, VALUE)
    monkeypatch.setenv("KP_TEST_CU", REF)
    settings = ClickUpSettings(token_env="KP_TEST_CU", space_ids=["s1"])
    assert settings.resolve_secret("token", owner="clickup", what="ClickUp API token") == VALUE
    assert (
        ClickUpSettings(token_ref=REF, space_ids=["s1"]).resolve_secret(
            "token", owner="clickup", what="ClickUp API token"
        )
        == VALUE
    )
    monkeypatch.delenv("KP_TEST_CU")
    with pytest.raises(ConfigError) as info:
        settings.resolve_secret("token", owner="clickup", what="ClickUp API token")
    assert one_line(info) == (
        "clickup: environment variable KP_TEST_CU is not set; put the "
        "ClickUp API token there (or an op:// reference to it), or name a "
        "1Password reference in token_ref"
    )


def test_missing_op_names_the_reference_and_both_ways(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no op here
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    with pytest.raises(VaultUnavailableError) as info:
        resolve_secret(
            SecretSource(ref=REF, field="token"),
            owner="clickup",
            what="ClickUp API token",
            vault=Vault(),
        )
    assert one_line(info) == (
        f"clickup: ClickUp API token: cannot read '{REF}': set {TOKEN_ENV} (a 1Password service "
        "account, read through the onepassword-sdk) or put the 1Password CLI `op` on PATH, "
        "signed in"
    )


def test_failing_op_is_summarised_without_the_value(fake_op: FakeOp) -> None:
    fake_op.fail(
        f"[ERROR] 2026/11/30 10:00:00 session expired while printing {VALUE}\n",
        stdout=VALUE,
        code=6,
    )
    with pytest.raises(VaultReadError) as info:
        Vault().read(REF)
    assert one_line(info) == (
        f"op read '{REF}' failed (exit 6): session expired while printing ***"
    )


def test_a_hanging_op_times_out_and_is_killed(fake_op: FakeOp) -> None:
    fake_op.hang(30)
    started = time.monotonic()
    with pytest.raises(VaultTimeoutError) as info:
        Vault(timeout=0.5).read(REF)
    assert time.monotonic() - started < 5
    assert one_line(info) == (
        f"op read '{REF}' did not answer within 0.5s; check that op is "
        f"signed in (op whoami) or set {TOKEN_ENV}"
    )


def test_wrong_references_are_one_line_each(fake_op: FakeOp) -> None:
    vault = Vault()
    with pytest.raises(SecretReferenceError) as info:
        vault.read("op://Compass/ClickUp")
    assert one_line(info) == (
        "reference 'op://Compass/ClickUp' needs a vault, an item and a "
        "field: op://<vault>/<item>/[<section>/]<field>"
    )
    with pytest.raises(VaultReadError) as info:
        vault.read("op://Compass/No such item/token")
    assert one_line(info) == (
        "op read 'op://Compass/No such item/token' failed (exit 1): could not read secret "
        "'op://Compass/No such item/token': could not find item No such item in vault Compass"
    )
    # 1Password allows only letters, digits, spaces, - _ . in names: the answer says to use IDs
    with pytest.raises(VaultReadError) as info:
        vault.read(AT_REF)
    assert one_line(info) == (
        f"op read '{AT_REF}' failed (exit 1): could not read secret '{AT_REF}': invalid "
        "character in secret reference 'ClickUp - automations@': use its ID instead; 1Password "
        "names in a reference may hold only letters, digits, spaces, -, _ and .: refer to that "
        "vault, item or field by its ID"
    )
    assert fake_op.calls[-1] == ["read", AT_REF]
    assert len(fake_op.calls) == 2  # the malformed one never reached op


def test_an_empty_value_is_an_error(fake_op: FakeOp) -> None:
    fake_op.set(REF, "")
    with pytest.raises(VaultReadError, match="resolved to an empty value"):
        Vault().read(REF)


def test_the_sdk_is_used_when_a_service_account_token_is_set(
    fake_op: FakeOp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TOKEN_ENV, "ops_CANARYSERVICEACCOUNTTOKEN")
    seen: list[tuple[str, str]] = []

    async def sdk(token: str, ref: str) -> str:
        seen.append((token, ref))
        return VALUE

    vault = Vault(sdk=sdk)
    assert vault.way() == "sdk"
    assert vault.read(REF) == VALUE
    assert seen == [("ops_CANARYSERVICEACCOUNTTOKEN", REF)] and fake_op.calls == []


def test_sdk_from_inside_a_running_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_ENV, "ops_token")

    async def sdk(token: str, ref: str) -> str:
        await asyncio.sleep(0)
        return VALUE

    async def caller() -> str:  # e.g. an MCP tool: the SDK runs on a loop of its own
        return Vault(sdk=sdk).read(REF)

    assert asyncio.run(caller()) == VALUE


def test_sdk_failures_and_hangs_are_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    token = "ops_CANARYSERVICEACCOUNTTOKEN"
    monkeypatch.setenv(TOKEN_ENV, token)

    async def refusing(tok: str, ref: str) -> str:
        raise RuntimeError(f"invalid service account token {tok}\nsecond line")

    async def hanging(tok: str, ref: str) -> str:
        await asyncio.sleep(30)
        return VALUE

    with pytest.raises(VaultReadError) as info:
        Vault(sdk=refusing).read(REF)
    text = one_line(info)
    assert token not in text and text.endswith("second line")
    with pytest.raises(VaultTimeoutError) as info:
        Vault(sdk=hanging, timeout=0.3).read(REF)
    assert "1Password SDK did not read" in one_line(info)


@pytest.mark.parametrize("token", ["CANARY-not-a-token", "ops_eyJzaWduSW5BZGRyZXNzIjoieCJ9"])
def test_the_real_sdk_refuses_a_malformed_token_in_one_line(
    token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The installed onepassword-sdk checks the token's shape before any network call."""
    monkeypatch.setenv(TOKEN_ENV, token)
    with pytest.raises(VaultReadError) as info:
        Vault(timeout=30).read(REF)
    text = one_line(info)
    assert text.startswith(f"1Password SDK could not read '{REF}':") and token not in text


def test_no_value_reaches_the_logs(fake_op: FakeOp, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    fake_op.set(REF, VALUE)
    assert Vault().read(REF) == VALUE
    fake_op.fail(f"boom {VALUE}", stdout=VALUE)
    with pytest.raises(SecretError):
        Vault().read(REF)
    assert VALUE not in caplog.text
