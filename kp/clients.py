"""`kp clients add`: onboard a client by editing the registry (comments kept). Under `kp up`
the registry sensor then adds the scope partition and backfills every configured source."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from ruamel.yaml import YAML

from knowledge_platform.errors import ConfigError
from knowledge_platform.registry import parse_registry


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


def add_client(config: Path, client_id: str, *, director: str, name: str | None,
               sources: list[str]) -> None:
    """Validate the whole registry with the new client, then write it back atomically."""
    rt = YAML()
    rt.preserve_quotes = True
    data = rt.load(config.read_text(encoding="utf-8"))
    clients = data.setdefault("clients", {})
    if client_id in clients or client_id == "internal":
        raise ConfigError(f"client {client_id!r} is already in {config}")
    entry: dict[str, Any] = {"name": name or client_id, "director": director, "sources": {}}
    for option in sources:
        source, settings = parse_source_option(option)
        entry["sources"][source] = settings
    clients[client_id] = entry
    # Round-trip through the validator first: a bad entry never reaches the file.
    plain = yaml.safe_load(_dump(rt, data))
    parse_registry(plain, config.resolve().parent, origin=str(config))
    tmp = config.with_name(f".{config.name}.tmp")
    tmp.write_text(_dump(rt, data), encoding="utf-8")
    tmp.replace(config)


def _dump(rt: YAML, data: Any) -> str:
    from io import StringIO

    buf = StringIO()
    rt.dump(data, buf)
    return buf.getvalue()
