"""The containers one scope reads, resolved from the registry selection on every run (so a new
list or folder is found the run after it appears): the selected spaces, their folders and
lists, selected folders and their lists, selected lists. They say which tasks and docs are
in the scope — a task or doc whose home is elsewhere has moved out of it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from knowledge_platform.connectors.clickup.api import PARENT_TYPES, ClickUpApi


@dataclass(frozen=True)
class Containers:
    workspaces: tuple[str, ...]
    spaces: tuple[str, ...]
    folders: tuple[str, ...]
    lists: tuple[str, ...]

    def doc_parents(self) -> list[tuple[str, str]]:
        """(parent_id, parent_type) of every container whose docs belong to the scope."""
        return ([(s, "SPACE") for s in self.spaces] + [(f, "FOLDER") for f in self.folders]
                + [(lst, "LIST") for lst in self.lists])  # fmt: skip

    def holds_doc(self, doc: dict[str, Any]) -> bool:
        parent = doc.get("parent") or {}
        kind = PARENT_TYPES.get(_int(parent.get("type")), str(parent.get("type")).upper())
        ids = {"SPACE": self.spaces, "FOLDER": self.folders, "LIST": self.lists}.get(kind, ())
        return str(parent.get("id")) in ids

    def holds_task(self, task: dict[str, Any]) -> bool:
        """Its home list, or another list it also lives in (`locations`), is in the scope."""
        homes = [task.get("list") or {}, *(task.get("locations") or [])]
        return any(isinstance(h, dict) and str(h.get("id")) in self.lists for h in homes)


def resolve(api: ClickUpApi) -> Containers:
    """The scope's containers: what it names, and what its spaces and folders hold, less the
    folders and lists another scope names (`elsewhere`: the most specific claim wins)."""
    cfg = api.cfg
    skip = cfg.elsewhere

    def ids(items: list[Any]) -> list[str]:
        return [str(i["id"]) for i in items if isinstance(i, dict) and str(i["id"]) not in skip]

    lists = list(cfg.list_ids)
    folders = list(cfg.folder_ids)
    for folder in cfg.folder_ids:
        lists += ids(api.children(f"/folder/{folder}/list", "lists"))
    spaces = list(cfg.space_ids)
    teams = [cfg.team_id] if cfg.team_id else api.teams()
    for space in spaces:
        for folder in api.children(f"/space/{space}/folder", "folders"):
            if str(folder["id"]) in skip:
                continue
            folders.append(folder["id"])
            lists += ids(folder.get("lists") or [])
        lists += ids(api.children(f"/space/{space}/list", "lists"))

    def unique(found: list[Any]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(str(x) for x in found))

    return Containers(unique(teams), unique(spaces), unique(folders), unique(lists))


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1
