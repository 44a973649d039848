"""What `kp hooks register` created, under KP_HOME/hooks/registrations.json: each webhook or
channel's id, endpoint, expiry and where its secret lives (`$VARIABLE` or an op://
reference) — never a secret's value."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import TypeAdapter

from knowledge_platform.connectors.webhooks.contract import Registration

_LIST = TypeAdapter(list[Registration])


def registrations_path(home: Path) -> Path:
    return home / "hooks" / "registrations.json"


def load(home: Path) -> list[Registration]:
    path = registrations_path(home)
    if not path.exists():
        return []
    return _LIST.validate_json(path.read_bytes())


def save(home: Path, registrations: list[Registration]) -> None:
    path = registrations_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    data = [
        r.model_dump(mode="json")
        for r in sorted(registrations, key=lambda r: (r.source, r.scope, r.location, r.created_at))
    ]
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
