"""A push-capable source added the way the README says: its own package
(tests/example_source: settings, connector, spec, push) and one catalog line. Nothing generic
changes: the MCP HTTP app serves its endpoint, the receiver queues its signed deliveries and
refuses the rest, `kp hooks register` and `kp hooks status` reach it through the catalog."""

from __future__ import annotations

import json

import pytest

from knowledge_platform.config.registry import load_registry
from knowledge_platform.connectors import catalog
from knowledge_platform.errors import ConfigError
from knowledge_platform.hooks.register import register
from knowledge_platform.hooks.status import hooks_status
from tests.integration.hooks_service import base_registry, hook_service

SECRET = "notes-secret-0123456789"


def test_a_new_push_source_is_its_package_and_one_catalog_line(tmp_path, monkeypatch):
    monkeypatch.setitem(catalog.SPEC_MODULES, "notes_push", "tests.example_source.spec")
    monkeypatch.setenv("KP_TEST_NOTES_HOOK", SECRET)
    notes = tmp_path / "notes"
    notes.mkdir()
    registry = base_registry()
    registry["internal"]["sources"]["notes_push"] = {
        "path": str(notes),
        "webhook_secret_env": "KP_TEST_NOTES_HOOK",
    }
    with hook_service(tmp_path, registry, monkeypatch) as svc:
        body = json.dumps({"paths": ["plan.md"]}).encode()
        ok = svc.post("/hooks/notes", body, {"X-Notes-Token": SECRET})
        assert ok.status_code == 200 and "1 queued for internal" in ok.text
        forged = svc.post("/hooks/notes", body, {"X-Notes-Token": "guess"})
        assert forged.status_code == 401 and "matches no scope" in forged.text
        unknown = svc.post("/hooks/nowhere", body)
        assert unknown.status_code == 404 and "/hooks/notes" in unknown.text
        pending = svc.queue.pending(0, settled_before=float("inf"))
        assert [(e.source, e.scope) for e in pending] == [("notes_push", "internal")]
        assert "plan.md" in (pending[0].hint or "")

        reg = load_registry(svc.settings.config)
        outcomes = register(reg, svc.settings.home_dir, source="notes_push")
        assert [(o.action, o.message) for o in outcomes] == [
            ("instructions", f"point the editor's save hook at {svc.url}/hooks/notes")
        ]
        status = hooks_status(reg, svc.settings.home_dir, svc.queue)
        (hook,) = status.hooks
        assert (hook.source, hook.kind, hook.health) == ("notes_push", "notes_hook", "ok")
        assert hook.last_delivery is not None


def test_a_pull_only_source_has_no_webhooks():
    with pytest.raises(ConfigError, match="no webhooks for 'memory_files'"):
        catalog.push_source("memory_files")
