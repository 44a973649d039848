"""Queued events -> runs: every event of one source x scope drained at once becomes one run
(a burst of a thousand events for one task is one run), keyed by the queue ids it covers so a
restarted sensor asks for the same run again instead of a second one."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from knowledge_platform.connectors.base import Hint
from knowledge_platform.connectors.webhooks.events import MAX_HINT_IDS
from knowledge_platform.hooks.queue import QueuedEvent


@dataclass(frozen=True)
class PlannedRun:
    source: str
    scope: str
    first_id: int
    last_id: int
    events: int
    #: None: some event named nothing usable, or too much: an ordinary run.
    hint: Hint | None

    @property
    def run_key(self) -> str:
        """The queue ids the run covers: the same events give the same key (a restarted
        sensor asks for the same run, which Dagster launches once)."""
        return f"hooks:{self.source}:{self.scope}:{self.first_id}-{self.last_id}"


def last_covered(run_key: str | None) -> int:
    """The last queue id a run keyed `run_key` covers (0: not a hooks run key)."""
    if not run_key or not run_key.startswith("hooks:"):
        return 0
    last = run_key.rsplit("-", 1)[-1]
    return int(last) if last.isdigit() else 0


def _hint(texts: list[str | None]) -> Hint | None:
    ids: set[str] = set()
    deleted: set[str] = set()
    for text in texts:
        if text is None:
            return None
        try:
            data = json.loads(text)
            ids.update(map(str, data["ids"]))
            deleted.update(map(str, data.get("deleted", [])))
        except (ValueError, KeyError, TypeError):
            return None
    if (not ids and not deleted) or len(ids | deleted) > MAX_HINT_IDS:
        return None
    return Hint(ids=frozenset(ids), deleted=frozenset(deleted))


def plan_runs(rows: Iterable[QueuedEvent]) -> list[PlannedRun]:
    """One PlannedRun per source x scope among `rows`, in order of their first event."""
    groups: dict[tuple[str, str], list[QueuedEvent]] = {}
    for row in rows:
        groups.setdefault((row.source, row.scope), []).append(row)
    return [
        PlannedRun(
            source, scope, group[0].id, group[-1].id, len(group), _hint([r.hint for r in group])
        )
        for (source, scope), group in groups.items()
    ]
