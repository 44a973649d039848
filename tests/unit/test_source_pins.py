"""`kp index --at`: pinning a pull to one version is a capability a source's spec declares
(`SourceSpec.pin`), so the generic step and CLI name no source."""

from __future__ import annotations

import pytest
from rich.console import Console

from knowledge_platform.config.registry import load_registry
from knowledge_platform.connectors.catalog import pinnable, pinned
from knowledge_platform.errors import ConfigError
from knowledge_platform.ingest.snapshots import SnapshotStore
from knowledge_platform.ingest.steps import PullOptions, pull_step
from knowledge_platform.settings import DEMO_CONFIG, Settings
from kp.indexing import run_index

SHA = "0123456789abcdef0123456789abcdef01234567"


def test_a_source_pins_through_the_field_its_spec_names() -> None:
    registry = load_registry(DEMO_CONFIG)
    assert pinnable() == ("git_docs",)
    settings = pinned("git_docs", registry.source_settings("git_docs", "internal"), SHA)
    assert settings.at_sha == SHA


def test_a_version_the_source_does_not_accept_is_a_one_line_config_error() -> None:
    registry = load_registry(DEMO_CONFIG)
    with pytest.raises(ConfigError, match=r"^git_docs: '--output=/tmp/x' is not a commit sha"):
        pinned("git_docs", registry.source_settings("git_docs", "internal"), "--output=/tmp/x")


def test_a_source_without_a_pin_refuses_one_instead_of_pulling_its_head(tmp_path) -> None:
    snaps = SnapshotStore(tmp_path)
    with pytest.raises(ConfigError, match=r"memory_files cannot be pinned.*can: git_docs"):
        pull_step(
            load_registry(DEMO_CONFIG), snaps, "memory_files", "internal", PullOptions(at=SHA)
        )
    assert snaps.read_documents("memory_files", "internal") is None  # nothing was pulled


def test_kp_index_at_names_the_sources_that_can_be_pinned(tmp_path) -> None:
    settings = Settings.model_validate({"KP_HOME": str(tmp_path), "KP_CONFIG": str(DEMO_CONFIG)})
    with pytest.raises(ConfigError, match=r"use it with --source git_docs$"):
        run_index(
            settings,
            source="memory_files",
            scope=None,
            full=False,
            full_reconcile=False,
            at=SHA,
            console=Console(),
        )
