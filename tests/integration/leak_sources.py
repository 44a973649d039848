"""The fakes of the leak test, each holding canary credentials it accepts and nothing else:
ClickUp (a personal token), Supabase (the REST API accepts only the service key the fake
Management API hands out for the management token), Google (an OAuth client secret and
refresh token; a service account's key), OpenAI (the API key). `registry()` names every
credential by an `op://` reference the fake `op` resolves; the `break_*` methods make each
source fail the way an echoing server would, its error body repeating the secret it was sent."""

from __future__ import annotations

import json
from contextlib import ExitStack
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.conftest import REPO
from tests.fakes.clickup_server import ClickUpFake
from tests.fakes.fake_op import FakeOp
from tests.fakes.google_server import FakeGoogle
from tests.fakes.openai_server import FakeOpenAI, error_body
from tests.fakes.supabase_management import FakeSupabaseManagement, legacy_key
from tests.fakes.supabase_server import SupabaseFake
from tests.leaks import canary

PROJECT = "leakleakleakleakleak"
TEAM, SPACE, LIST = "9001", "s-int", "L-ops"
JWT_HEAD = "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0."
REFS = {
    "openai_key": "op://Compass/OpenAI platform/api key",
    "maya_token": "op://Compass/KP maya/token",
    "jonas_token": "op://Compass/KP jonas/token",
    "clickup_token": "op://Compass/ClickUp - automations/token",
    "supabase_management_token": "op://Compass/Supabase management/token",
    "google_client_id": "op://Compass/Google OAuth/client id",
    "google_client_secret": "op://Compass/Google OAuth/client secret",
    "google_refresh_token": "op://Compass/Google OAuth/refresh token",
    "google_service_account_key": "op://Compass/Google indexer/key.json",
}
#: Fast failure: one retry, tiny backoff.
QUICK = {"max_retries": 1, "backoff_seconds": 0.01, "max_wait_seconds": 5}


def service_account_key() -> tuple[str, str]:
    """(the key JSON, one line of its PEM private key: what a leak of the key would show)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    info = {
        "type": "service_account",
        "client_email": "indexer@example.iam.gserviceaccount.com",
        "private_key": pem,
        "private_key_id": "k1",
        "token_uri": "https://oauth2.googleapis.com/token",
    }
    return json.dumps(info), pem.splitlines()[10]


class LeakSources:
    def __init__(self, op: FakeOp) -> None:
        sa_json, sa_line = service_account_key()
        #: name -> secret value; the canaries, plus a line of the service account's key.
        self.secrets = {
            "openai_key": canary("sk-proj-"),
            "maya_token": canary("kp-"),
            "jonas_token": canary("kp-"),
            "rita_token": canary("kp-"),
            "clickup_token": canary("pk_81234567_"),
            "supabase_management_token": canary("sbp_"),
            "supabase_service_key": JWT_HEAD + canary(),  # from the Management API, per run
            "google_client_secret": canary("GOCSPX-"),
            "google_refresh_token": canary("1//"),
            "google_service_account_key": sa_line,
            "clickup_env": canary("pk_81234567_"),
            "op_service_account": canary("ops_"),
        }
        s = self.secrets
        self.values = {
            **{name: s[name] for name in REFS if name in s},
            "google_client_id": "leak-test.apps.googleusercontent.com",
            "google_service_account_key": sa_json,
        }
        for name, ref in REFS.items():
            op.set(ref, self.values[name])
        self.openai = FakeOpenAI(api_key=s["openai_key"])
        self.clickup = ClickUpFake(personal_token=s["clickup_token"])
        self.rest = SupabaseFake(key=s["supabase_service_key"])
        self.management = FakeSupabaseManagement(
            s["supabase_management_token"],
            {PROJECT: [legacy_key("service_role", s["supabase_service_key"])]},
        )
        self.google = FakeGoogle(
            client_id=self.values["google_client_id"],
            client_secret=s["google_client_secret"],
            refresh_token=s["google_refresh_token"],
        )
        self._stack = ExitStack()

    def __enter__(self) -> LeakSources:
        for server in (self.openai, self.clickup, self.rest, self.management, self.google):
            self._stack.enter_context(server)
        self._content()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def _content(self) -> None:
        self.clickup.add_hierarchy(TEAM, SPACE, None, LIST)
        self.clickup.add_task(
            LIST,
            "Reindex runbook",
            description="The weekly reindex runs on "
            "Sunday at 02:00; check the freshness board afterwards.",
        )
        self.rest.create_table("memory")
        self.rest.insert(
            "memory",
            {
                "id": 1,
                "title": "Retainer pricing",
                "body": "Retainers are billed monthly in advance.",
            },
        )
        g = self.google
        self.internal_folder = g.add_folder("Knowledge", file_id="folder-knowledge")
        self.client_folder = g.add_folder("Shade Store", file_id="folder-shade")
        g.add_doc(
            "Onboarding playbook",
            self.internal_folder,
            "# Onboarding\n\nKickoff agenda and the first week's checklist.\n",
        )
        g.add_doc(
            "Shade Store brief",
            self.client_folder,
            "# Brief\n\nThe swatch test launches on Monday.\n",
        )

    def registry(self) -> dict[str, Any]:
        google = {**self.google.endpoints(), **QUICK}
        return {
            "embedding": {
                "provider": "openai",
                "base_url": self.openai.base_url,
                "api_key_ref": REFS["openai_key"],
                "max_retries": 0,
            },
            "answer": {"api_key_env": "KP_LEAK_ANSWER_KEY", "base_url": self.openai.base_url},
            "store": {"engine": "edge"},
            "internal": {
                "name": "Surefoot",
                "sources": {
                    "memory_files": {"path": str(REPO / "demo" / "workspace")},
                    "clickup": {
                        "base_url": self.clickup.url("/api/v2"),
                        "docs_base_url": self.clickup.url("/api/v3"),
                        "team_id": TEAM,
                        "space_ids": [SPACE],
                        "token_ref": REFS["clickup_token"],
                        **QUICK,
                    },
                    "supabase": {
                        "url": self.rest.url(),
                        "project_ref": PROJECT,
                        "management_url": self.management.url(),
                        "management_token_ref": REFS["supabase_management_token"],
                        "tables": [
                            {
                                "name": "memory",
                                "title_template": "{title}",
                                "text_template": "{body}",
                                "shared": True,
                            }
                        ],
                        **QUICK,
                    },
                    "google_drive": {
                        "folder_ids": [self.internal_folder],
                        **google,
                        "client_id_ref": REFS["google_client_id"],
                        "client_secret_ref": REFS["google_client_secret"],
                        "refresh_token_ref": REFS["google_refresh_token"],
                    },
                },
            },
            "clients": {
                "shade_store": {
                    "name": "The Shade Store",
                    "director": "maya",
                    "sources": {
                        "google_drive": {
                            "folder_ids": [self.client_folder],
                            **google,
                            "auth": "service_account",
                            "service_account_key_ref": REFS["google_service_account_key"],
                        }
                    },
                }
            },
            "principals": [
                {"name": "maya", "token_ref": REFS["maya_token"]},
                {"name": "jonas", "token_env": "KP_LEAK_JONAS"},
                {"name": "rita", "token_env": "KP_LEAK_RITA", "role": "restricted"},
            ],
        }

    def env(self) -> dict[str, str]:
        """Variables: two holding references (`op run` style), one holding a token itself, and
        unrelated canaries nobody should read."""
        s = self.secrets
        return {
            "KP_LEAK_ANSWER_KEY": REFS["openai_key"],
            "KP_LEAK_JONAS": REFS["jonas_token"],
            "KP_LEAK_RITA": s["rita_token"],
            "CLICKUP_TOKEN": s["clickup_env"],
            "KP_LEAK_UNUSED_OP_TOKEN": s["op_service_account"],
        }

    # -- failures, each error body repeating what the client sent --------------------------
    def break_clickup(self) -> None:
        """401 saying which token it refused (an echo of the Authorization header)."""
        self.clickup.inject(
            "/api/",
            401,
            {
                "err": f"Oauth token not found: {self.secrets['clickup_token']}",
                "ECODE": "OAUTH_019",
            },
            times=None,
        )

    def break_supabase_management(self) -> None:
        self.management.inject(
            "/api-keys",
            401,
            {"message": f"Unauthorized: Bearer {self.secrets['supabase_management_token']}"},
            times=None,
        )

    def break_supabase_rest(self) -> None:
        """A 500 on every read (retried, then given up), repeating the apikey header."""
        self.management.clear_injections()
        self.rest.inject(
            "/rest/v1/",
            500,
            {
                "code": "XX000",
                "message": f"internal error for apikey {self.secrets['supabase_service_key']}",
                "details": None,
                "hint": None,
            },
            times=None,
        )

    def break_google_token(self) -> None:
        """The token endpoint refuses the client, repeating the form it was sent."""
        s = self.secrets
        self.google.fail_next(
            10,
            401,
            f"invalid_client client_secret={s['google_client_secret']}"
            f"&refresh_token={s['google_refresh_token']}",
            "/token",
        )

    def break_openai(self) -> None:
        """A 500 on embeddings whose message repeats the key (a query then fails)."""
        self.openai.inject(
            "/v1/embeddings",
            500,
            error_body(f"upstream error for key {self.secrets['openai_key']}", "server_error"),
            times=None,
        )

    def mend_openai(self) -> None:
        self.openai.clear_injections()

    def issued_tokens(self) -> dict[str, str]:
        """The Google access tokens the fake issued: secrets the platform held too."""
        return {f"google_access_token_{t}": t for t in sorted(self.google.tokens)}
