"""Shared fixtures: a temporary KP_HOME, registries written to disk, the deterministic
embedder for fast unit tests."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
os.environ.setdefault("KP_MODEL_CACHE", str(REPO / ".kp-models"))


def write_registry(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "workspace"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "2026-11-20.md").write_text(
        "# Ops sync\n\n## Decisions\nDecision: launch the swatch test on Monday.\n\n"
        "## Notes\nThe analytics audit for Plant Therapy starts next week.\n"
    )
    (ws / "rules.md").write_text(
        "---\ntitle: Standing rules\n---\n# Standing rules\n\n## Testing\nEvery experiment "
        "runs at least fourteen days and needs a written hypothesis.\n\n## Data\nClient data "
        "never leaves its own scope.\n"
    )
    return ws


@pytest.fixture
def registry_data(workspace: Path) -> dict[str, Any]:
    return {
        "embedding": {"provider": "hash"},
        "store": {"engine": "edge"},
        "internal": {
            "sources": {"memory_files": {"path": str(workspace)}},
            "golden_questions": [
                {"question": "how long does every experiment run", "expect_title": "Standing rules"}
            ],
        },
        "clients": {"acme": {"name": "Acme", "director": "maya", "sources": {}}},
        "principals": [{"name": "maya", "token_env": "KP_TEST_TOKEN_MAYA"}],
    }


@pytest.fixture
def kp_env(tmp_path: Path, registry_data: dict[str, Any], monkeypatch: pytest.MonkeyPatch):
    """KP_HOME and KP_CONFIG pointing at a fresh home and the registry above."""
    config = write_registry(tmp_path / "registry.yaml", registry_data)
    home = tmp_path / "home"
    monkeypatch.setenv("KP_HOME", str(home))
    monkeypatch.setenv("KP_CONFIG", str(config))
    from knowledge_platform.settings import Settings

    return Settings()


@pytest.fixture(autouse=True)
def _fresh_vault_cache():
    """Values read from the (fake) vault are cached per process: no test sees another's."""
    yield
    from knowledge_platform.secrets.vault import default_vault

    default_vault().forget()


@pytest.fixture
def fake_op(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A fake `op` first on PATH, and no service account token (so the CLI path is used)."""
    from tests.fakes.fake_op import FakeOp

    op = FakeOp(tmp_path / "op-bin")
    monkeypatch.setenv("PATH", op.path_env())
    monkeypatch.delenv("OP_SERVICE_ACCOUNT_TOKEN", raising=False)
    return op
