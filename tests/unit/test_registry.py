from pathlib import Path

import pytest

from knowledge_platform.errors import ConfigError
from knowledge_platform.registry import load_registry, parse_registry
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
