"""Secret values the process resolved are masked out of every core error message, as they
are, URL-encoded or escaped; credential headers a request sent are masked too."""

from __future__ import annotations

import json
from urllib.parse import quote

import httpx
import openai

from knowledge_platform import openai_api
from knowledge_platform.errors import ConfigError, EmbeddingError, SourceError
from knowledge_platform.redact import redact, remember, remember_headers
from knowledge_platform.secrets.resolve import SecretSource, resolve_secret
from knowledge_platform.secrets.vault import Vault
from tests.fakes.fake_op import FakeOp
from tests.leaks import canary

REF = "op://Compass/Bot/token"


def test_a_remembered_value_is_masked_in_every_form() -> None:
    value = remember(canary("1//") + "+x y\n\"'\\")
    texts = [
        f"got {value}",
        f"form: token={quote(value, safe='')}",
        f"repr: {value!r}",
        f"bytes: {value.encode()!r}",
        f"json: {json.dumps(value)}",
    ]
    for text in texts:
        assert "CANARY" not in redact(text) and "***" in redact(text), text
    assert redact("nothing secret here") == "nothing secret here"


def test_short_values_are_not_remembered() -> None:
    remember("1234567")
    assert redact("call 1234567 now") == "call 1234567 now"


def test_core_errors_mask_remembered_values_in_their_message() -> None:
    value = remember(canary("pk_1_"))
    assert str(SourceError(f"clickup: 401: Oauth token not found: {value}")) == (
        "clickup: 401: Oauth token not found: ***"
    )
    assert str(EmbeddingError(f"HTTP 500: bad key {value}")) == "HTTP 500: bad key ***"
    assert SourceError(f"x {value}", 3).args == ("x ***", 3)


def test_credential_headers_are_remembered_without_their_scheme() -> None:
    bearer, apikey, other = canary("ya29."), canary("sb_secret_"), canary("not-a-secret-")
    remember_headers({"Authorization": f"Bearer {bearer}", "apikey": apikey, "Accept": other})
    assert redact(f"{bearer} {apikey} {other}") == f"*** *** {other}"


def test_resolved_secrets_are_remembered(fake_op: FakeOp) -> None:
    from_vault, from_env = canary("sk-"), canary("kp-")
    fake_op.set(REF, from_vault)
    resolve_secret(SecretSource(ref=REF), owner="x", what="token", vault=Vault())
    resolve_secret(SecretSource(env="KP_T"), owner="x", what="token", env={"KP_T": from_env})
    message = str(ConfigError(f"refused {from_vault} and {from_env}"))
    assert message == "refused *** and ***"


def test_an_openai_error_message_is_masked_before_it_is_cut() -> None:
    """A secret straddling the 200-character cut would otherwise show in part."""
    value = remember(canary("sk-proj-"))
    response = httpx.Response(
        500,
        json={"error": {"message": "x" * 190 + " " + value}},
        request=httpx.Request("POST", "http://127.0.0.1/v1/embeddings"),
    )
    exc = openai.InternalServerError("boom", response=response, body=response.json())
    said = openai_api.failure(exc)
    assert said.startswith("HTTP 500 after 1 attempt: xxx") and said.endswith(" ***")
    assert "CANARY" not in said
