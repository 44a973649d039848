"""Webhooks from each source with its real signature scheme, through the MCP service's HTTP
app: `kp hooks register` creates them through the ClickUp and Drive fakes' APIs, the fakes
deliver signed events to /hooks/<source>, the events land on the queue for exactly the
source x scope they concern; `kp hooks status` reports their health. Git hosts have no fake:
the tests sign push events the way GitHub, Gitea and GitLab document."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from knowledge_platform.config.registry import load_registry
from knowledge_platform.hooks import registrations as store
from knowledge_platform.hooks.register import register
from kp.app import app
from tests.fakes.clickup_server import ClickUpFake
from tests.fakes.google_server import FakeGoogle
from tests.integration.clickup_workspace import workspace
from tests.integration.hooks_service import (
    HookService,
    base_registry,
    clickup_registry,
    hook_service,
)

pytestmark = pytest.mark.integration
GIT_SECRET = "git-push-secret-2f6d0c1e9a"
DRIVE_TOKEN = "drive-channel-token-7b1e44c0d2"
LATER = time.time() + 3600  # "received before": everything queued so far


@pytest.fixture
def clickup(monkeypatch: pytest.MonkeyPatch) -> Iterator[ClickUpFake]:
    yield from workspace(monkeypatch)


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def queued(svc: HookService) -> list[tuple[str, str, Any]]:
    return [
        (r.source, r.scope, json.loads(r.hint) if r.hint else None)
        for r in svc.queue.pending(0, settled_before=LATER)
    ]


def test_clickup_webhook_registered_signed_delivered_and_healthy(
    clickup: ClickUpFake, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with hook_service(tmp_path, clickup_registry(clickup), monkeypatch) as svc:
        output = cli("hooks", "register")
        (hook,) = clickup.webhooks.values()
        assert hook["endpoint"] == f"{svc.url}/hooks/clickup" and hook["list_id"] == "L1"
        assert f"signing secret (shown once): {hook['secret']}" in output
        assert "$KP_TEST_CLICKUP_HOOK" in output
        monkeypatch.setenv("KP_TEST_CLICKUP_HOOK", hook["secret"])

        clickup.update_task("plain", description="## Goal\nLaunch on the 12th.")
        clickup.delete_task("closed")
        clickup.wait_deliveries()

        assert [a.status for a in clickup.deliverer.attempts] == [200, 200]
        assert queued(svc) == [
            ("clickup", "internal", {"ids": ["plain"], "deleted": []}),
            ("clickup", "internal", {"ids": ["closed"], "deleted": ["closed"]}),
        ]
        again = cli("hooks", "register")
        assert again.startswith("kept:") and "shown once" not in again
        report = json.loads(cli("hooks", "status", "--json"))
        (row,) = report["hooks"]
        assert (row["health"], row["id"], row["secret"]) == (
            "ok",
            hook["id"],
            "$KP_TEST_CLICKUP_HOOK",
        )
        assert row["last_delivery"] is not None and report["queue"] == "sqlite"
        assert hook["secret"] not in store.registrations_path(svc.settings.home_dir).read_text()

        hook["health"] = {"status": "suspended", "fail_count": 100}
        assert json.loads(cli("hooks", "status", "--json"))["hooks"][0]["health"] == "suspended"
        assert cli("hooks", "register").startswith("reactivated:")
        assert hook["health"]["status"] == "active"


def test_clickup_delivery_signed_with_another_secret_is_refused_and_counted(
    clickup: ClickUpFake, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with hook_service(tmp_path, clickup_registry(clickup), monkeypatch) as svc:
        cli("hooks", "register")
        monkeypatch.setenv("KP_TEST_CLICKUP_HOOK", "not-the-webhooks-secret")
        clickup.webhook_attempts = 1
        clickup.update_task("plain", description="Edited.")
        clickup.wait_deliveries()
        assert [a.status for a in clickup.deliverer.attempts] == [401]
        assert queued(svc) == []
        (hook,) = clickup.webhooks.values()
        assert hook["health"] == {"status": "failing", "fail_count": 1}
        (refused,) = json.loads(cli("hooks", "status", "--json"))["rejects"]
        assert (refused["source"], refused["code"], refused["count"]) == ("clickup", "signature", 1)


def test_drive_channel_opens_with_sync_queues_changes_and_is_renewed(
    google: FakeGoogle, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = google.add_folder("Acme")
    doc = google.add_doc("Brief", root, "# Brief\n\nThe launch is in May.")
    data = base_registry()
    data["clients"]["acme"] = {
        "name": "Acme",
        "director": "maya",
        "sources": {
            "google_drive": {
                "folder_ids": [root],
                **google.endpoints(),
                "backoff_seconds": 0.001,
                "webhook_secret_env": "KP_TEST_DRIVE_HOOK",
            }
        },
    }
    monkeypatch.setenv("KP_TEST_DRIVE_HOOK", DRIVE_TOKEN)
    with hook_service(tmp_path, data, monkeypatch) as svc:
        assert cli("hooks", "register", "--source", "google_drive").startswith("created:")
        google.wait_deliveries()
        (channel,) = google.channels.values()
        assert channel["id"].startswith("kp-acme-") and channel["token"] == DRIVE_TOKEN
        assert [a.headers["X-Goog-Resource-State"] for a in google.deliverer.attempts] == ["sync"]
        assert google.deliverer.attempts[0].status == 200 and queued(svc) == []

        google.modify(doc, markdown="# Brief\n\nThe launch moved to June.")
        google.wait_deliveries()
        assert [a.status for a in google.deliverer.attempts] == [200, 200]
        assert queued(svc) == [("google_drive", "acme", None)]

        (reg,) = store.load(svc.settings.home_dir)
        store.save(svc.settings.home_dir, [reg.model_copy(update={"expires_at": time.time()})])
        outcomes = register(
            load_registry(svc.settings.config), svc.settings.home_dir, renew_only=True
        )
        assert [o.action for o in outcomes] == ["renewed"]
        assert list(google.channels) == [store.load(svc.settings.home_dir)[0].id] != [reg.id]


def _github(body: bytes, secret: str = GIT_SECRET) -> dict[str, str]:
    sig = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return {
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "X-Hub-Signature-256": f"sha256={sig}",
        "Content-Type": "application/json",
    }


def push(ref: str, repo: str = "https://github.com/acme/handbook.git") -> bytes:
    return json.dumps(
        {
            "ref": ref,
            "before": "a" * 40,
            "after": "b" * 40,
            "commits": [],
            "repository": {"clone_url": repo, "default_branch": "main"},
        }
    ).encode()


def test_git_pushes_from_github_gitea_and_gitlab_queue_the_branch_they_follow(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = base_registry()
    data["internal"]["sources"]["git_docs"] = {
        "repo": "https://github.com/acme/handbook.git",
        "branch": "main",
        "webhook_secret_env": "KP_TEST_GIT_HOOK",
    }
    monkeypatch.setenv("KP_TEST_GIT_HOOK", GIT_SECRET)
    with hook_service(tmp_path, data, monkeypatch) as svc:
        main = push("refs/heads/main")
        assert svc.post("/hooks/git", main, _github(main)).status_code == 200
        other = push("refs/heads/feature")
        answer = svc.post("/hooks/git", other, _github(other))
        assert answer.status_code == 200 and "nothing queued" in answer.text
        fork = push("refs/heads/main", "https://github.com/someone/fork.git")
        assert "nothing queued" in svc.post("/hooks/git", fork, _github(fork)).text
        gitea_sig = hmac.new(GIT_SECRET.encode(), main, hashlib.sha256).hexdigest()
        gitea = {"X-Gitea-Event": "push", "X-Gitea-Delivery": "d-1", "X-Gitea-Signature": gitea_sig}
        assert svc.post("/hooks/git", main, gitea).status_code == 200
        lab = json.dumps(
            {
                "object_kind": "push",
                "ref": "refs/heads/main",
                "checkout_sha": "c" * 40,
                "project": {
                    "git_http_url": "https://github.com/acme/handbook.git",
                    "default_branch": "main",
                },
            }
        ).encode()
        gitlab = {
            "X-Gitlab-Event": "Push Hook",
            "X-Gitlab-Token": GIT_SECRET,
            "X-Gitlab-Event-UUID": "u-1",
        }
        assert svc.post("/hooks/git", lab, gitlab).status_code == 200
        assert queued(svc) == [("git_docs", "internal", None)] * 3
        output = cli("hooks", "register", "--source", "git_docs")
        assert output.startswith("instructions:") and f"{svc.url}/hooks/git" in output
        assert "$KP_TEST_GIT_HOOK" in output and GIT_SECRET not in output
