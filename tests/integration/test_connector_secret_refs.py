"""ClickUp and Google Drive read their credentials from 1Password references (a fake `op` on
PATH), and a server that repeats the credential it was sent in its error body (a 401 naming
the refused token, a token endpoint echoing its form) does not carry it into the error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from knowledge_platform.connectors.clickup.connector import ClickUpConnector, ClickUpSettings
from knowledge_platform.connectors.google_drive.connector import (
    GoogleDriveConnector,
    GoogleDriveSettings,
)
from knowledge_platform.connectors.http import HttpClient
from knowledge_platform.errors import ConfigError, SourceError
from knowledge_platform.secrets import vault as vault_module
from knowledge_platform.secrets.vault import TOKEN_ENV, Vault
from kp.app import app
from tests.conftest import write_registry
from tests.fakes.clickup_server import ClickUpFake
from tests.fakes.fake_op import FakeOp
from tests.fakes.google_server import FakeGoogle
from tests.fakes.http_fake import FakeServer, json_response
from tests.integration.leak_sources import service_account_key
from tests.leaks import canary

pytestmark = pytest.mark.integration

CLICKUP_REF = "op://Compass/ClickUp - automations/token"
REFRESH_REF = "op://Compass/Google OAuth/refresh token"
SECRET_REF = "op://Compass/Google OAuth/secret"
SA_REF = "op://Compass/Google indexer/key.json"
TOKEN, REFRESH, CLIENT_SECRET = canary("pk_4242_"), canary("1//"), canary("GOCSPX-")


@pytest.fixture
def clickup() -> Iterator[ClickUpFake]:
    with ClickUpFake(personal_token=TOKEN) as fake:
        fake.add_hierarchy("9001", "s-1", None, "L-1")
        fake.add_task("L-1", "Reindex runbook", description="Sunday at 02:00.")
        yield fake


def clickup_connector(fake: ClickUpFake, **settings: object) -> ClickUpConnector:
    cfg = ClickUpSettings(
        base_url=fake.url("/api/v2"),
        docs_base_url=fake.url("/api/v3"),
        space_ids=["s-1"],
        max_retries=0,
        **settings,
    )  # type: ignore[arg-type]
    return ClickUpConnector(cfg, "internal")


def test_clickup_reads_its_token_from_a_reference(
    clickup: ClickUpFake, fake_op: FakeOp, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_op.set(CLICKUP_REF, TOKEN)
    monkeypatch.setenv("CLICKUP_TOKEN", canary("pk_1_"))  # the reference wins over the default
    result = clickup_connector(clickup, token_ref=CLICKUP_REF).pull(None)
    assert [d.title for d in result.documents] == ["Reindex runbook"]
    monkeypatch.setenv("KP_TEST_CU", CLICKUP_REF)  # a variable holding the reference (op run)
    assert clickup_connector(clickup, token_env="KP_TEST_CU").pull(None).documents
    assert {r.headers["Authorization"] for r in clickup.log} == {TOKEN}
    assert fake_op.calls[0] == ["read", CLICKUP_REF]


def test_a_clickup_401_repeating_the_token_does_not_carry_it(
    clickup: ClickUpFake, fake_op: FakeOp
) -> None:
    fake_op.set(CLICKUP_REF, TOKEN)
    clickup.inject(
        "/api/", 401, {"err": f"Oauth token not found: {TOKEN}", "ECODE": "OAUTH_019"}, times=None
    )
    with pytest.raises(SourceError) as info:
        clickup_connector(clickup, token_ref=CLICKUP_REF).pull(None)
    assert str(info.value) == (
        "clickup: GET /api/v2/team failed with HTTP 401: Oauth token not found: *** "
        f"(OAUTH_019); check the ClickUp token in {CLICKUP_REF} (token_kind=auto)"
    )


class Echo(FakeServer):
    """Answers 401 repeating the credential headers it was sent (a debugging proxy's page)."""

    def handle(self, request):  # type: ignore[no-untyped-def]
        sent = {k: request.headers.get(k) for k in ("Authorization", "apikey")}
        return json_response({"message": f"refused {sent}"}, 401)


def test_an_http_error_never_repeats_the_credentials_the_request_carried() -> None:
    bearer = canary("ya29.")  # a token nobody resolved: only the request knew it
    echo = Echo()
    with (
        echo,
        HttpClient("demo", headers={"apikey": "sb_secret_" + canary()}, max_retries=0) as http,
        pytest.raises(SourceError) as info,
    ):
        http.get(echo.url("/x"), headers={"Authorization": f"Bearer {bearer}"})
    text = str(info.value)
    assert text == (
        'demo: GET /x failed with HTTP 401: {"message": "refused '
        "{'Authorization': 'Bearer ***', 'apikey': '***'}\"}"
    )


# -- Google Drive ---------------------------------------------------------------------------


@pytest.fixture
def google() -> Iterator[FakeGoogle]:
    with FakeGoogle(client_secret=CLIENT_SECRET, refresh_token=REFRESH) as fake:
        fake.add_doc("Playbook", fake.add_folder("Knowledge", file_id="root"), "# Kickoff\n")
        yield fake


def drive_connector(google: FakeGoogle, **settings: object) -> GoogleDriveConnector:
    cfg = GoogleDriveSettings.model_validate(
        {"folder_ids": ["root"], **google.endpoints(), "max_retries": 0, **settings}
    )
    return GoogleDriveConnector(cfg, "internal")


def test_google_oauth_reads_the_client_secret_and_refresh_token_from_references(
    google: FakeGoogle, fake_op: FakeOp
) -> None:
    fake_op.set(REFRESH_REF, REFRESH)
    fake_op.set(SECRET_REF, CLIENT_SECRET)
    fake_op.set("op://Compass/Google OAuth/client id", google.client_id)
    result = drive_connector(
        google,
        refresh_token_ref=REFRESH_REF,
        client_secret_ref=SECRET_REF,
        client_id_ref="op://Compass/Google OAuth/client id",
    ).pull(None)
    assert [d.title for d in result.documents] == ["Playbook"]
    assert google.token_grants == ["refresh_token"]


def test_a_service_account_key_from_a_reference(google: FakeGoogle, fake_op: FakeOp) -> None:
    key_json, _ = service_account_key()
    fake_op.set(SA_REF, key_json)
    result = drive_connector(google, auth="service_account", service_account_key_ref=SA_REF).pull(
        None
    )
    assert [d.title for d in result.documents] == ["Playbook"]
    assert google.token_grants == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]


def test_a_reference_holding_no_key_json_is_not_printed_as_a_file_name(
    google: FakeGoogle, fake_op: FakeOp
) -> None:
    """A reference's value is the key itself; something else there (a lone PEM key, a token)
    must not be shown as if it were a path."""
    fake_op.set(SA_REF, "-----BEGIN PRIVATE KEY-----\nMIIE" + canary() + "\n")
    with pytest.raises(ConfigError) as info:
        drive_connector(google, auth="service_account", service_account_key_ref=SA_REF).pull(None)
    assert "CANARY" not in str(info.value) and "MIIE" not in str(info.value)
    assert str(info.value) == (
        f"cannot load the service account key from {SA_REF}: not the JSON key file's content"
    )


def test_a_token_endpoint_repeating_its_form_does_not_carry_the_secrets(
    google: FakeGoogle, fake_op: FakeOp
) -> None:
    fake_op.set(REFRESH_REF, REFRESH)
    fake_op.set(SECRET_REF, CLIENT_SECRET)
    fake_op.set("op://Compass/Google OAuth/client id", google.client_id)
    form = str(httpx.QueryParams({"client_secret": CLIENT_SECRET, "refresh_token": REFRESH}))
    google.fail_next(5, 401, f"invalid_client {form}", "/token")  # URL-encoded, as it was sent
    with pytest.raises(SourceError) as info:
        drive_connector(
            google,
            refresh_token_ref=REFRESH_REF,
            client_secret_ref=SECRET_REF,
            client_id_ref="op://Compass/Google OAuth/client id",
        ).pull(None)
    text = str(info.value)
    assert "google_drive: Google refused the credentials" in text and "CANARY" not in text
    assert "client_secret=***&refresh_token=***" in text


def test_a_token_with_a_line_break_is_not_shown_by_the_header_error(
    clickup: ClickUpFake, fake_op: FakeOp
) -> None:
    """httpx refuses a header holding a line break and quotes it, escaped, in its error."""
    fake_op.set(CLICKUP_REF, f"{TOKEN}\nsecond line of the field")
    with pytest.raises(SourceError) as info:
        clickup_connector(clickup, token_ref=CLICKUP_REF).pull(None)
    assert str(info.value) == "clickup: GET /api/v2/team failed: Illegal header value b'***'"
    assert clickup.log == []


# -- kp index: each way reading the vault fails is one line -------------------------------


@pytest.fixture
def kp_home(tmp_path: Path, clickup: ClickUpFake, monkeypatch: pytest.MonkeyPatch) -> Path:
    registry = {
        "embedding": {"provider": "hash"},
        "store": {"engine": "edge"},
        "internal": {
            "sources": {
                "clickup": {
                    "base_url": clickup.url("/api/v2"),
                    "docs_base_url": clickup.url("/api/v3"),
                    "space_ids": ["s-1"],
                    "token_ref": CLICKUP_REF,
                    "max_retries": 0,
                }
            }
        },
    }
    monkeypatch.setenv("KP_CONFIG", str(write_registry(tmp_path / "registry.yaml", registry)))
    monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    return tmp_path / "home"


OP_SAYS = "[ERROR] 2026/11/30 10:00:00 You are not currently signed in. Please run `op signin`"
STEP = "clickup__raw: clickup: ClickUp API token: "


#: How each failure reads, after "clickup/internal failed: " and STEP.
SAYS = {
    "missing op": f"cannot read '{CLICKUP_REF}': set {TOKEN_ENV} (a 1Password service account, "
    "read through the onepassword-sdk) or put the 1Password CLI `op` on PATH, "
    "signed in",
    "failing op": f"op read '{CLICKUP_REF}' failed (exit 1): You are not currently signed in. "
    "Please run `op signin`",
    "hanging op": f"op read '{CLICKUP_REF}' did not answer within 0.5s; check that op is "
    f"signed in (op whoami) or set {TOKEN_ENV}",
    "wrong reference": f"op read '{CLICKUP_REF}' failed (exit 1): could not read secret "
    f"'{CLICKUP_REF}': could not find item ClickUp - automations in vault "
    "Compass",
}


def test_kp_index_says_in_one_line_why_a_reference_could_not_be_read(
    kp_home: Path, fake_op: FakeOp, monkeypatch: pytest.MonkeyPatch
) -> None:
    def index() -> list[str]:
        # kp runs in-process: its vault, with a fresh cache for each run and a short timeout
        monkeypatch.setattr(vault_module, "_default", Vault(timeout=0.5))
        result = CliRunner().invoke(app, ["index"])
        assert result.exit_code == (0 if case == "working" else 1), result.output
        return [ln for ln in result.output.splitlines() if ln.startswith("clickup/internal")]

    case = "working"
    fake_op.set(CLICKUP_REF, TOKEN)
    assert index() == []
    with monkeypatch.context() as patch:
        case = "missing op"
        patch.setenv("PATH", str(kp_home.parent))
        said = {case: index()}
    case = "failing op"
    fake_op.fail(OP_SAYS)
    said[case] = index()
    case = "hanging op"
    fake_op.reset()
    fake_op.hang(30)
    said[case] = index()
    case = "wrong reference"
    fake_op.reset()
    fake_op.forget(CLICKUP_REF)
    said[case] = index()
    assert said == {c: [f"clickup/internal failed: {STEP}{line}"] for c, line in SAYS.items()}
