"""`kp clients add`: onboard a client by adding its entry to the registry. Under `kp up` the
registry sensor then adds the scope to each configured source's partitions and backfills it.

The entry is inserted as text at the end of the `clients:` block: every other line of the
file (comments, quoting, list indentation) stays byte-for-byte as it was. The whole file is
validated with the new entry, and every local folder it names must exist, before writing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from knowledge_platform.config.registry import Registry, parse_registry
from knowledge_platform.errors import ConfigError

_INDENT = 2


def parse_source_option(option: str) -> tuple[str, dict[str, Any]]:
    """`name` or `name:key=value,key=value` (values read as YAML scalars)."""
    name, _, rest = option.partition(":")
    settings: dict[str, Any] = {}
    for pair in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"--source {option!r}: expected name:key=value[,key=value]")
        settings[key.strip()] = yaml.safe_load(value)
    return name.strip(), settings


def add_client(
    config: Path, client_id: str, *, director: str, name: str | None, sources: list[str]
) -> None:
    """Validate the whole registry with the new client, then write it back atomically."""
    text = config.read_text(encoding="utf-8")
    before = _load(text, config)
    if client_id in (before.get("clients") or {}) or client_id == "internal":
        raise ConfigError(f"client {client_id!r} is already in {config}")
    entry: dict[str, Any] = {"name": name or client_id, "director": director, "sources": {}}
    for option in sources:
        source, settings = parse_source_option(option)
        entry["sources"][source] = settings
    updated = _insert_client(text, client_id, entry, config)
    after = _load(updated, config)
    if {**before, "clients": {**(before.get("clients") or {}), client_id: entry}} != after:
        raise ConfigError(
            f"could not add {client_id!r} to {config} without changing other "
            "entries; add it by hand"
        )
    registry = parse_registry(after, config.resolve().parent, origin=str(config))
    _check_folders(registry, client_id)
    tmp = config.with_name(f".{config.name}.tmp")
    tmp.write_text(updated, encoding="utf-8")
    tmp.replace(config)


def _load(text: str, config: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{config}: not valid YAML ({exc.__class__.__name__})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{config}: expected a mapping at the top level")
    return data


def _insert_client(text: str, client_id: str, entry: dict[str, Any], config: Path) -> str:
    """`text` with `client_id: entry` added as the last item of the `clients:` mapping."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    root = yaml.compose(text)
    found = [(k, v) for k, v in root.value if k.value == "clients"] if root else []
    if not found:
        return "".join([*lines, "clients:\n", *_block(client_id, entry, _INDENT)])
    key, value = found[0]
    if isinstance(value, yaml.MappingNode) and value.value and not value.flow_style:
        indent = value.value[0][0].start_mark.column
        last = value.end_mark.line - (1 if value.end_mark.column == 0 else 0)
        last = min(last, len(lines) - 1)
        while last > key.start_mark.line and lines[last].strip()[:1] in ("", "#"):
            last -= 1  # blank lines and comments before the next key stay where they are
        return "".join([*lines[: last + 1], *_block(client_id, entry, indent), *lines[last + 1 :]])
    empty = (isinstance(value, yaml.MappingNode) and not value.value) or (
        isinstance(value, yaml.ScalarNode) and value.tag.endswith(":null")
    )
    if not empty or value.start_mark.line != key.start_mark.line:
        raise ConfigError(
            f"{config}: write `clients:` as a block mapping (one client per "
            "indented key) to add clients with `kp clients add`"
        )
    row = key.start_mark.line  # `clients:`, `clients: {}` or `clients: null`: drop the value
    line = lines[row][: value.start_mark.column] + lines[row][value.end_mark.column :]
    lines[row] = line.rstrip() + "\n"
    return "".join([*lines[: row + 1], *_block(client_id, entry, _INDENT), *lines[row + 1 :]])


def _block(client_id: str, entry: dict[str, Any], indent: int) -> list[str]:
    dumped = yaml.safe_dump(
        {client_id: entry}, sort_keys=False, allow_unicode=True, default_flow_style=False
    )
    return [" " * indent + line + "\n" for line in dumped.splitlines()]


def _check_folders(registry: Registry, client_id: str) -> None:
    """Every local folder the client's sources name must exist (a typo would index nothing)."""
    for source in registry.sources_for(client_id):
        settings = registry.source_settings(source, client_id)
        for field in ("path", "repo"):  # local paths are absolute once resolved
            value = getattr(settings, field, None)
            if value is not None and Path(value).is_absolute() and not Path(value).is_dir():
                raise ConfigError(
                    f"--source {source}: folder {value} does not exist; create "
                    f"it first (relative paths start at {registry.base_dir})"
                )
