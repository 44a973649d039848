"""The README's registry section and deploy/registry.example.yaml show the `op://` form of
every secret the registry names, the connectors' included: a new secret field fails this
until it is documented."""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel

from knowledge_platform.config.registry import AnswerConfig, EmbeddingConfig, Principal, StoreConfig
from knowledge_platform.connectors.catalog import SOURCE_NAMES, connector_class
from knowledge_platform.secrets.fields import secret_names
from tests.conftest import REPO


def secret_models() -> dict[str, type[BaseModel]]:
    models: dict[str, type[BaseModel]] = {
        "embedding": EmbeddingConfig,
        "store": StoreConfig,
        "answer": AnswerConfig,
        "principals": Principal,
    }
    for source in SOURCE_NAMES:
        model = getattr(connector_class(source), "settings_model", None)
        if model is not None and secret_names(model):
            models[source] = model
    return models


def registry_section() -> str:
    readme = (REPO / "README.md").read_text()
    start = readme.index("## The registry")
    return readme[start : readme.index("\n## ", readme.index("## Supabase") + 1)]


_COMMENTED_KEY = re.compile(r"^(\s*)# (?=\s*(- )?[\w-]+:)")


def blocks(text: str, key: str) -> list[str]:
    """Every YAML block under `key:` (commented-out examples included): its line and the
    lines indented deeper than it (and comments), up to the next line that is neither."""
    lines = [_COMMENTED_KEY.sub(lambda m: m.group(1) + "  ", ln) for ln in text.splitlines()]
    found = []
    for i, line in enumerate(lines):
        head = re.match(rf"^(\s*)(- )?{key}:", line)
        if head is None:
            continue
        indent, end = len(head.group(1)), i + 1
        while end < len(lines) and (
            lines[end].strip()[:1] in ("", "#")
            or len(lines[end]) - len(lines[end].lstrip()) > indent
        ):
            end += 1
        found.append("\n".join(lines[i:end]))
    return found


@pytest.mark.parametrize("where", ["README.md", "deploy/registry.example.yaml"])
def test_every_secret_field_is_shown_with_a_reference(where: str) -> None:
    text = registry_section() if where == "README.md" else (REPO / where).read_text()
    missing = [
        f"{owner}.{stem}_ref"
        for owner, model in secret_models().items()
        for stem in secret_names(model)
        if not any(f'{stem}_ref: "op://' in b for b in blocks(text, owner))
    ]
    assert missing == [], f"{where} shows no op:// reference for {missing}"
