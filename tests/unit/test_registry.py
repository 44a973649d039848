import logging
from pathlib import Path

import pytest

from knowledge_platform.config.registry import load_registry, parse_registry
from knowledge_platform.config.registry_watch import RegistryWatch
from knowledge_platform.errors import ConfigError
from knowledge_platform.settings import DEMO_CONFIG


def test_demo_registry_loads_and_resolves_paths():
    reg = load_registry(DEMO_CONFIG)
    assert reg.scopes[0] == "internal"
    settings = reg.source_settings("memory_files", "internal")
    assert Path(settings.path).is_dir()  # type: ignore[attr-defined]
    assert reg.scopes_of_director("maya") == ["internal", "shade_store"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"embedding": {"provider": "bert"}}, "embedding.provider"),
        ({"clients": {"Bad-Id": {"director": "x"}}}, "invalid scope 'Bad-Id'"),
        ({"clients": {"acme": {"name": "Acme"}}}, "needs an account director"),
        ({"clients": {"internal": {"director": "x"}}}, "'internal' is a scope of its own"),
        ({"internal": {"sources": {"nosuch": {}}}}, "unknown source 'nosuch'"),
        ({"internal": {"sources": {"memory_files": {}}}}, "internal.sources.memory_files.path"),
        ({"internal": {"sources": {"memory_files": {"path": "x", "colour": 1}}}}, "colour"),
        ({"deletion_guard": 2}, "deletion_guard"),
        ({"principals": [{"name": "p"}]}, "give token_sha256, token_env or token_ref"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_bad_registry_names_the_field_and_reason(data, message, tmp_path):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        parse_registry(data, tmp_path)


def test_not_yaml_and_missing_file(tmp_path):
    bad = tmp_path / "r.yaml"
    bad.write_text("a: [unclosed")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_registry(bad)
    with pytest.raises(ConfigError, match="cannot read registry"):
        load_registry(tmp_path / "missing.yaml")


def test_unknown_scope_lists_known_ones(tmp_path):
    reg = parse_registry({}, tmp_path)
    with pytest.raises(ConfigError, match="known: internal"):
        reg.scope("nobody")


def test_a_watched_registry_keeps_the_last_good_version(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="knowledge_platform.config.registry_watch")
    path = tmp_path / "r.yaml"
    path.write_text("clients: {acme: {director: maya}}\n")
    watch = RegistryWatch(path)
    first = watch.current()
    assert watch.current() is first  # unchanged file: the same object, no re-read
    path.unlink()  # an editor's save that replaces the file, seen half-way
    assert watch.current() is first and "cannot read registry" in (watch.refused or "")
    path.write_text(
        "clients: {acme: {director: maya}, hot: {director: jonas}}\nembedding: {provider: hash}\n"
    )
    assert watch.current().scopes == ["internal", "acme", "hot"] and watch.refused is None
    assert watch.warnings() == [
        "registry embedding settings changed; the MCP service applies them on restart"
    ]
    assert [r.getMessage().split(": ", 1)[1] for r in caplog.records] == [
        f"cannot read registry {path}: No such file or directory",
        "scopes +hot; principals unchanged; embedding settings apply on restart",
    ]
