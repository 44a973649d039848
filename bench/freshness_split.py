"""Where a webhook edit's freshness goes, read from Dagster's own event log after the fact:
each edit is matched to the first hooks_sensor run created after it whose `kp/hint` names
the edited task (an event that arrives while the group's last run waits is held for the next
one), and its time from the edit to the first search hit is cut at that run's events.

| phase | from → to |
|---|---|
| sensor | the edit → the run created (webhook delivery, queue, hooks_sensor tick) |
| queue | created → launching (the asset planning events, the daemon's run queue) |
| launch+import | launching → run started (run worker process, code location import) |
| steps | run started → the collection step started (resources, raw, chunks, embeddings) |
| publish | the collection step: started → succeeded (write, flush, pointer move) |
| visible | publish done → the first search hit (the MCP service swaps the shard; the bench's
  watcher asks every 0.5 s) |

An edit the hooks sensor applied in its own tick (its hot path, no run: a runless
materialization of the collection whose `hint_ids` name the task) is cut at the times that
materialization records: sensor (the edit → the hot path started in the tick), hot path
(pull by id, chunk, embed, publish), visible (as above).

The run's own end (checks, run success) is off the edit's path and not shown.

    .venv/bin/python bench/freshness_split.py <KP_HOME of a webhook run of freshness.py>

prints the table again from that home's event log and the edits freshness.py saved there.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

PHASES = ("sensor", "queue", "launch+import", "steps", "publish", "hot path", "visible")
RUN_PHASES = tuple(p for p in PHASES if p != "hot path")
HOT_PHASES = ("sensor", "hot path", "visible")


@dataclass(frozen=True)
class Edit:
    """Wall-clock (epoch seconds) times of one edit and of its first search hit."""

    at: float
    found: float
    task: str = ""


@dataclass(frozen=True)
class _Run:
    ids: frozenset[str]
    created: float
    launching: float
    started: float
    publish_start: float
    publish_end: float


def _runs(dagster_home: Path) -> list[_Run]:
    from dagster import DagsterEventType, DagsterInstance, RunsFilter

    from assets.factory import HINT_TAG
    from assets.hooks import TRIGGER_TAG

    instance = DagsterInstance.from_config(str(dagster_home))
    out = []
    try:
        for record in instance.get_run_records(RunsFilter(tags={TRIGGER_TAG: "hooks_sensor"})):
            first: dict[str, float] = {}
            for entry in instance.all_logs(record.dagster_run.run_id):
                event = entry.dagster_event
                if event is None:
                    continue
                step = event.event_type in (
                    DagsterEventType.STEP_START,
                    DagsterEventType.STEP_SUCCESS,
                )
                if step and not (event.step_key or "").endswith("collection"):
                    continue
                first.setdefault(event.event_type_value, entry.timestamp)
            names = [
                DagsterEventType.RUN_STARTING,
                DagsterEventType.RUN_START,
                DagsterEventType.STEP_START,
                DagsterEventType.STEP_SUCCESS,
            ]
            if all(n.value in first for n in names):
                launching, started, p0, p1 = (first[n.value] for n in names)
                hint = json.loads(record.dagster_run.tags.get(HINT_TAG, "{}"))
                out.append(
                    _Run(
                        frozenset(hint.get("ids", [])),
                        record.create_timestamp.timestamp(),
                        launching,
                        started,
                        p0,
                        p1,
                    )
                )
    finally:
        instance.dispose()
    return sorted(out, key=lambda r: r.created)


@dataclass(frozen=True)
class _Hot:
    ids: frozenset[str]
    started: float
    published: float


def _hot(dagster_home: Path) -> list[_Hot]:
    """The collection materializations hooks_sensor recorded from its hot path."""
    from dagster import AssetKey, DagsterInstance

    instance = DagsterInstance.from_config(str(dagster_home))
    out = []
    try:
        for key in instance.get_asset_keys():
            if key.path[-1] != "collection":
                continue
            for record in instance.fetch_materializations(AssetKey(key.path), limit=1000).records:
                meta = record.asset_materialization.metadata if record.asset_materialization else {}
                if "hot_path_started" not in meta:
                    continue
                started = float(meta["hot_path_started"].value)  # type: ignore[arg-type]
                seconds = float(meta["hot_path_seconds"].value)  # type: ignore[arg-type]
                ids: list[str] = meta["hint_ids"].value or []  # type: ignore[assignment]
                out.append(_Hot(frozenset(ids), started, started + seconds))
    finally:
        instance.dispose()
    return sorted(out, key=lambda h: h.started)


def split(dagster_home: Path, edits: list[Edit]) -> dict[str, list[float]]:
    """Per phase, the seconds of every edit a hooks_sensor run or its hot path published."""
    runs, hot = _runs(dagster_home), _hot(dagster_home)
    phases: dict[str, list[float]] = {p: [] for p in PHASES}
    for edit in edits:
        run = next((r for r in runs if r.created >= edit.at and edit.task in r.ids), None)
        tick = next((h for h in hot if h.started >= edit.at and edit.task in h.ids), None)
        if tick is not None and (run is None or tick.started < run.created):
            names, marks = HOT_PHASES, (edit.at, tick.started, tick.published, edit.found)
        elif run is not None:
            names = RUN_PHASES
            marks = (
                edit.at,
                run.created,
                run.launching,
                run.started,
                run.publish_start,
                run.publish_end,
                edit.found,
            )
        else:
            continue
        for phase, a, b in zip(names, marks, marks[1:], strict=False):
            phases[phase].append(b - a)
    return phases


def save(home: Path, edits: list[Edit]) -> None:
    (home / "edits.json").write_text(json.dumps([asdict(e) for e in edits]))


def load(home: Path) -> list[Edit]:
    return [Edit(**e) for e in json.loads((home / "edits.json").read_text())]


def table_rows(phases: dict[str, list[float]]) -> list[list[str]]:
    return [
        [phase, str(len(v)), f"{np.percentile(v, 50):.2f}", f"{np.percentile(v, 95):.2f}"]
        for phase, v in phases.items()
        if v
    ]


if __name__ == "__main__":
    from _common import markdown_table

    home = Path(sys.argv[1])
    print(
        markdown_table(
            ["phase", "edits", "p50 s", "p95 s"], table_rows(split(home / "dagster", load(home)))
        )
    )
