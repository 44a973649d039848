"""Hostile deliveries to /hooks/<source>: unsigned, wrongly signed, replayed, stale, over
1 MB, malformed, or too many. Each gets its status and a one-line reason, queues nothing
(so the hooks sensor has nothing to turn into a run) and is counted for `kp hooks status`."""

from __future__ import annotations

import email.utils
import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.hooks_service import HookService, base_registry, hook_service

pytestmark = pytest.mark.integration
SECRETS = {
    "KP_TEST_CLICKUP_HOOK": "clickup-secret-4a1f9e",
    "KP_TEST_DRIVE_HOOK": "drive-token-77c2",
    "KP_TEST_GIT_HOOK": "git-secret-0d3b",
}
CHANNEL = "kp-internal-" + "ab" * 16


def registry(rate_limit: str = "1000/minute") -> dict[str, Any]:
    data = base_registry()
    data["service"]["hooks"]["rate_limit"] = rate_limit
    data["internal"]["sources"] = {
        "clickup": {
            "team_id": "9001",
            "space_ids": ["s1"],
            "webhook_secret_env": "KP_TEST_CLICKUP_HOOK",
        },
        "google_drive": {"folder_ids": ["root"], "webhook_secret_env": "KP_TEST_DRIVE_HOOK"},
        "git_docs": {
            "repo": "https://github.com/acme/handbook.git",
            "branch": "main",
            "webhook_secret_env": "KP_TEST_GIT_HOOK",
        },
    }
    return data


@pytest.fixture
def svc(tmp_path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HookService]:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    with hook_service(tmp_path, registry(), monkeypatch) as service:
        yield service


def clickup_body(task: str = "t1", age: float = 0.0) -> bytes:
    item = {
        "id": f"h-{task}-{age}",
        "date": str(int((time.time() - age) * 1000)),
        "field": "content",
    }
    return json.dumps(
        {"event": "taskUpdated", "history_items": [item], "task_id": task, "webhook_id": "w-1"}
    ).encode()


def sign(body: bytes, secret: str = SECRETS["KP_TEST_CLICKUP_HOOK"]) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def drive_headers(
    number: int, token: str = SECRETS["KP_TEST_DRIVE_HOOK"], expires: float | None = None
) -> dict[str, str]:
    return {
        "X-Goog-Channel-ID": CHANNEL,
        "X-Goog-Channel-Token": token,
        "X-Goog-Resource-State": "change",
        "X-Goog-Message-Number": str(number),
        "X-Goog-Channel-Expiration": email.utils.formatdate(
            expires or time.time() + 3600, usegmt=True
        ),
    }


def github(body: bytes, delivery: str, secret: str = SECRETS["KP_TEST_GIT_HOOK"]) -> dict:
    return {
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": delivery,
        "X-Hub-Signature-256": "sha256=" + sign(body, secret),
    }


PUSH = json.dumps(
    {"ref": "refs/heads/main", "repository": {"clone_url": "https://github.com/acme/handbook.git"}}
).encode()


def refused(response: httpx.Response, status: int, words: str) -> None:
    assert response.status_code == status, response.text
    assert words in response.text and response.text.count("\n") == 1  # one line


def test_unsigned_and_wrongly_signed_deliveries_get_401(svc: HookService) -> None:
    body = clickup_body()
    refused(svc.post("/hooks/clickup", body), 401, "no X-Signature")
    refused(
        svc.post("/hooks/clickup", body, {"X-Signature": sign(body, "guess")}),
        401,
        "does not match",
    )
    refused(
        svc.post("/hooks/clickup", body, {"X-Signature": sign(body + b" ")}), 401, "does not match"
    )
    refused(
        httpx.post(
            svc.url + "/hooks/clickup",
            content=body,
            timeout=10,
            headers={"X-Signature": "\u00e9\u00ff".encode("latin-1")},
        ),
        401,
        "does not match",
    )
    refused(svc.post("/hooks/google-drive", b"", {"X-Goog-Channel-ID": CHANNEL}), 401, "unsigned")
    refused(
        svc.post("/hooks/google-drive", b"", drive_headers(2, token="guess")),
        401,
        "X-Goog-Channel-Token does not match",
    )
    other = drive_headers(2) | {"X-Goog-Channel-ID": "kp-acme-" + "cd" * 16}
    refused(svc.post("/hooks/google-drive", b"", other), 401, "unknown channel")
    refused(svc.post("/hooks/git", PUSH, {"X-GitHub-Event": "push"}), 401, "unsigned")
    refused(svc.post("/hooks/git", PUSH, github(PUSH, "d1", "guess")), 401, "does not match")
    refused(
        svc.post("/hooks/git", PUSH, {"X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": "guess"}),
        401,
        "does not match",
    )
    assert svc.queue.count() == 0
    counted = {(r["source"], r["code"]): r["count"] for r in svc.queue.rejects()}
    assert counted == {
        ("clickup", "unsigned"): 1,
        ("clickup", "signature"): 3,
        ("google_drive", "unsigned"): 1,
        ("google_drive", "signature"): 1,
        ("google_drive", "channel"): 1,
        ("git_docs", "unsigned"): 1,
        ("git_docs", "signature"): 2,
    }


def test_replays_get_409_and_are_queued_once(svc: HookService) -> None:
    body = clickup_body()
    assert svc.post("/hooks/clickup", body, {"X-Signature": sign(body)}).status_code == 200
    refused(svc.post("/hooks/clickup", body, {"X-Signature": sign(body)}), 409, "replayed")
    assert svc.post("/hooks/google-drive", b"", drive_headers(7)).status_code == 200
    refused(svc.post("/hooks/google-drive", b"", drive_headers(7)), 409, "replayed")
    assert svc.post("/hooks/git", PUSH, github(PUSH, "d-42")).status_code == 200
    refused(svc.post("/hooks/git", PUSH, github(PUSH, "d-42")), 409, "replayed")
    assert svc.queue.count() == 3


def test_stale_events_get_409(svc: HookService) -> None:
    old = clickup_body(age=2 * 3600)
    refused(svc.post("/hooks/clickup", old, {"X-Signature": sign(old)}), 409, "stale")
    expired = drive_headers(3, expires=time.time() - 60)
    refused(svc.post("/hooks/google-drive", b"", expired), 409, "stale: channel")
    assert svc.queue.count() == 0


def test_bodies_over_one_megabyte_get_413_before_they_are_read(svc: HookService) -> None:
    big = b"x" * (1024 * 1024 + 1)
    refused(svc.post("/hooks/clickup", big, {"X-Signature": sign(big)}), 413, "too large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: refused once the bytes pass 1 MB
        for _ in range(64):
            yield b"y" * 65536

    streamed = httpx.post(
        svc.url + "/hooks/git", content=chunks(), timeout=10, headers={"X-GitHub-Event": "push"}
    )
    refused(streamed, 413, "not read further")
    assert svc.queue.count() == 0


def test_malformed_deliveries_get_400(svc: HookService) -> None:
    not_json = b"event=taskUpdated"
    refused(svc.post("/hooks/clickup", not_json, {"X-Signature": sign(not_json)}), 400, "not JSON")
    deep = b"[" * 200_000  # signed, under 1 MB, too deep for the JSON parser
    refused(svc.post("/hooks/clickup", deep, {"X-Signature": sign(deep)}), 400, "not JSON")
    nameless = b'{"task_id": "t1"}'
    refused(
        svc.post("/hooks/clickup", nameless, {"X-Signature": sign(nameless)}), 400, "no 'event'"
    )
    no_number = drive_headers(1) | {"X-Goog-Message-Number": "one"}
    refused(svc.post("/hooks/google-drive", b"", no_number), 400, "Message-Number")
    refused(svc.post("/hooks/git", PUSH), 400, "not a GitHub, Gitea or GitLab event")
    no_ref = b'{"repository": {}}'
    refused(svc.post("/hooks/git", no_ref, github(no_ref, "d-9")), 400, "without a 'ref'")
    assert svc.post("/hooks/nowhere", b"").status_code == 404
    assert svc.queue.count() == 0


def test_each_source_is_rate_limited_with_retry_after(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    with hook_service(tmp_path, registry("3/minute"), monkeypatch) as svc:
        answers = [svc.post("/hooks/clickup", b"{}", {"X-Signature": "0"}) for _ in range(4)]
        assert [a.status_code for a in answers] == [401, 401, 401, 429]
        assert 1 <= int(answers[-1].headers["Retry-After"]) <= 60
        refused(answers[-1], 429, "rate limited")
        body = clickup_body()
        assert svc.post("/hooks/clickup", body, {"X-Signature": sign(body)}).status_code == 429
        assert svc.post("/hooks/git", PUSH, github(PUSH, "d-1")).status_code == 200
        assert [r.source for r in svc.queue.pending(0, settled_before=time.time() + 9)] == [
            "git_docs"
        ]
