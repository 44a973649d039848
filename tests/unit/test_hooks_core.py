"""The webhook core without a server: the registry's service settings, coalescing queued
events into runs, and how git repository addresses are compared."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from knowledge_platform.config.registry import parse_registry
from knowledge_platform.connectors.git_docs.push import normal_repo
from knowledge_platform.connectors.webhooks.events import (
    MAX_HINT_IDS,
    HookEvent,
    Rejected,
    decode_hint,
)
from knowledge_platform.errors import ConfigError
from knowledge_platform.hooks.coalesce import plan_runs
from knowledge_platform.hooks.queue import PG_ENV, HookQueue, QueuedEvent, queue_url


def service(**values: Any) -> Any:
    return parse_registry({"service": values}, base_dir=Path(".")).service


def test_public_url_must_be_https_except_on_loopback_and_plain() -> None:
    assert service(public_url="https://kb.example.com/").public_url == "https://kb.example.com"
    assert (
        service(public_url="http://127.0.0.1:8001").hook_url("/hooks/google-drive")
        == "http://127.0.0.1:8001/hooks/google-drive"
    )
    for bad, why in [
        ("http://kb.example.com", "https only"),
        ("kb.example.com", "absolute"),
        ("https://kb.example.com/?x=1", "no query"),
        ("https://user:pw@kb.example.com", "credentials"),
    ]:
        with pytest.raises(ConfigError, match=why):
            service(public_url=bad)
    with pytest.raises(ConfigError, match="600/minute"):
        service(hooks={"rate_limit": "lots"})


def row(
    i: int, source: str, scope: str, ids: list[str] | None, deleted: list[str] | None = None
) -> QueuedEvent:
    hint = None if ids is None else json.dumps({"ids": ids, "deleted": deleted or []})
    return QueuedEvent(i, f"e{i}", source, scope, hint, 0.0)


def test_events_of_one_source_and_scope_become_one_run_with_their_ids() -> None:
    plans = plan_runs(
        [
            row(1, "clickup", "internal", ["a"]),
            row(2, "git_docs", "acme", None),
            row(3, "clickup", "internal", ["b"], ["b"]),
            row(4, "clickup", "internal", ["a"]),
        ]
    )
    assert [(p.source, p.scope, p.run_key, p.events) for p in plans] == [
        ("clickup", "internal", "hooks:clickup:internal:1-4", 3),
        ("git_docs", "acme", "hooks:git_docs:acme:2-2", 1),
    ]
    assert plans[0].hint is not None and plans[0].hint.ids == {"a", "b"}
    assert plans[0].hint.deleted == {"b"} and plans[1].hint is None


def test_too_many_ids_or_one_event_without_ids_means_an_ordinary_run() -> None:
    many = [row(i, "clickup", "internal", [f"t{i}"]) for i in range(MAX_HINT_IDS + 1)]
    assert plan_runs(many)[0].hint is None
    mixed = [row(1, "clickup", "internal", ["a"]), row(2, "clickup", "internal", None)]
    assert plan_runs(mixed)[0].hint is None
    assert decode_hint("not json") is None and decode_hint(None) is None


def test_one_repository_in_its_https_ssh_and_scp_forms() -> None:
    forms = [
        "https://github.com/Acme/Handbook.git",
        "git@github.com:acme/handbook.git",
        "ssh://git@github.com/acme/handbook",
        "https://github.com/acme/handbook/",
    ]
    assert {normal_repo(f) for f in forms} == {"github.com/acme/handbook"}
    assert normal_repo("ssh://git@host:2222/acme/h.git") != normal_repo("git@host:acme/h.git")


def test_the_sqlite_queue_refuses_a_replay_whole_and_forgets_only_drained_old_rows(
    tmp_path: Path,
) -> None:
    queue = HookQueue(queue_url(tmp_path, {}))
    old, now = time.time() - 9 * 86400, time.time()
    queue.put([HookEvent("a@internal", "git_docs", "internal")], received_at=old)
    queue.put([HookEvent("b@internal", "git_docs", "internal")], received_at=old)
    with pytest.raises(Rejected, match="replayed"):  # one of the two was seen: neither queued
        queue.put(
            [
                HookEvent("c@internal", "git_docs", "internal"),
                HookEvent("b@internal", "git_docs", "internal"),
            ],
            received_at=now,
        )
    assert [r.event_id for r in queue.pending(0)] == ["a@internal", "b@internal"]
    assert queue.prune(1, now - 7 * 86400) == 1  # b is old but not drained yet
    assert queue.prune(2, now - 7 * 86400) == 1  # drained now: the queue is empty
    queue.put([HookEvent("d@internal", "git_docs", "internal")], received_at=now - 5)
    (d,) = queue.pending(2)
    assert d.id == 3  # an id is never handed out twice, even after the table emptied
    assert (tmp_path / "hooks" / "queue.sqlite3").exists()
    queue.close()


def test_the_postgres_queue_without_the_production_extra_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg2", None)  # as the embedded default installs it
    env = {name: "5432" if name.endswith("PORT") else "kp" for name in PG_ENV}
    with pytest.raises(ConfigError) as missing:
        HookQueue(queue_url(tmp_path, env))
    assert "needs psycopg2, which the production extra installs" in str(missing.value)
    assert "\n" not in str(missing.value)
