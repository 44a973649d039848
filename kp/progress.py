"""`kp index` progress: follows an in-process Dagster run through the instance's event log (a
thread polls it while `materialize` runs) and prints each step as it finishes, with what it
pulled, chunked, embedded or published and its wall time."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from knowledge_platform import run_tags

#: The figures each step records in its materialization metadata, as `kp index` shows them.
STEP_FIELDS = {
    "raw": ("documents", "skipped"),
    "chunks": ("chunks",),
    "embeddings": ("embedded", "cached"),
    "collection": ("added", "updated", "deleted", "unchanged"),
}
#: How a finished step reads, from its figures.
_SAYS = {
    "raw": "{documents} documents pulled, {skipped} skipped",
    "chunks": "{chunks} chunks",
    "embeddings": "{embedded} embedded, {cached} cached",
    "collection": "{added} added, {updated} updated, {deleted} deleted, {unchanged} unchanged",
}
TAG = run_tags.INDEX_RUN


def describe(step: str, figures: dict[str, Any]) -> str:
    """One line for a finished step (the figures it recorded)."""
    template = _SAYS.get(step)
    if template is None:
        return ""
    try:
        return template.format(**figures)
    except KeyError:
        return ", ".join(f"{figures[k]} {k}" for k in STEP_FIELDS[step] if k in figures)


class RunFollower:
    """Polls the event log of the run tagged `tags()[TAG]` and calls `on_step(step,
    seconds, figures)` when a step finishes and `on_start(step)` when one starts."""

    def __init__(
        self,
        instance: Any,
        on_start: Callable[[str], None],
        on_step: Callable[[str, float, dict[str, Any]], None],
        interval: float = 0.25,
    ) -> None:
        self.instance = instance
        self.on_start = on_start
        self.on_step = on_step
        self.interval = interval
        self.key = uuid.uuid4().hex
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, daemon=True)
        self._run_id: str | None = None
        self._cursor: str | None = None
        self._started: dict[str, float] = {}
        self._figures: dict[str, dict[str, Any]] = {}

    def tags(self) -> dict[str, str]:
        return {TAG: self.key}

    def __enter__(self) -> RunFollower:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._poll()  # whatever the last tick missed

    def _follow(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self._poll()
            except Exception:  # progress is a courtesy: a failed read never stops the run
                continue

    def _poll(self) -> None:
        from dagster import DagsterEventType, RunsFilter

        if self._run_id is None:
            ids = self.instance.get_run_ids(RunsFilter(tags=self.tags()), limit=1)
            if not ids:
                return
            self._run_id = ids[0]
        kinds = {
            DagsterEventType.STEP_START,
            DagsterEventType.ASSET_MATERIALIZATION,
            DagsterEventType.STEP_SUCCESS,
            DagsterEventType.STEP_FAILURE,
        }
        found = self.instance.get_records_for_run(self._run_id, self._cursor, of_type=kinds)
        self._cursor = found.cursor
        for record in found.records:
            self._handle(record.event_log_entry)

    def _handle(self, entry: Any) -> None:
        event = entry.dagster_event
        if event is None or not event.step_key:
            return
        step = event.step_key.split("__")[-1]
        if step not in STEP_FIELDS:  # asset checks: their outcome is in the summary table
            return
        kind = event.event_type_value
        if kind == "STEP_START":
            self._started[step] = entry.timestamp
            self.on_start(step)
        elif kind == "ASSET_MATERIALIZATION":
            mat = event.step_materialization_data.materialization
            self._figures[step] = {k: v.value for k, v in mat.metadata.items()}
        elif step in self._started:
            seconds = entry.timestamp - self._started.pop(step)
            self.on_step(step, seconds, self._figures.get(step, {}))


def elapsed(since: float) -> str:
    return f"{time.perf_counter() - since:.1f} s"
