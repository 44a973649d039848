"""`kp index`: one in-process Dagster run per source x scope, recorded in the same instance
the UI shows, with the figures each step recorded."""

from __future__ import annotations

import re
import signal
import time
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from knowledge_platform import run_tags
from knowledge_platform.config.registry import load_registry
from knowledge_platform.connectors.catalog import pinnable
from knowledge_platform.errors import ConfigError
from knowledge_platform.settings import REPO_ROOT, Settings
from kp.progress import STEP_FIELDS, RunFollower, describe, elapsed
from kp.stopping import SignalLog, stop_runs, stop_signals

#: `knowledge_platform.errors.SourceError: ` before a message (Dagster's error info).
_TYPE_PREFIX = re.compile(r"^knowledge_platform\.[\w.]+: ")
#: Keep the terminal for the progress bar and the summary; the run's full log is in Dagster.
QUIET = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
#: Dagster's run tag saying why a run failed.
FAILURE_REASON_TAG = "dagster/failure_reason"


def ensure_dagster_home(settings: Settings) -> None:
    """The embedded instance's dagster.yaml: the repository's, copied (and refreshed when the
    repository's changed) unless DAGSTER_HOME names a deployment's own instance."""
    home = settings.dagster_home
    home.mkdir(parents=True, exist_ok=True)
    target = home / "dagster.yaml"
    template = (REPO_ROOT / "dagster.yaml").read_text(encoding="utf-8")
    if not target.exists() or (
        settings.dagster_home_env is None and target.read_text(encoding="utf-8") != template
    ):
        target.write_text(template, encoding="utf-8")


def plan(settings: Settings, source: str | None, scope: str | None) -> list[tuple[str, str]]:
    registry = load_registry(settings.config)
    if scope is not None and scope not in registry.scopes:
        raise ConfigError(f"unknown scope {scope!r}; known: {', '.join(registry.scopes)}")
    pairs = [
        (src, sc)
        for sc in registry.scopes
        for src in registry.sources_for(sc)
        if (scope is None or sc == scope) and (source is None or src == source)
    ]
    if not pairs:
        raise ConfigError(
            f"nothing to index: source {source or 'any'} is not configured for "
            f"scope {scope or 'any'} in {settings.config}"
        )
    return pairs


def run_index(
    settings: Settings,
    *,
    source: str | None,
    scope: str | None,
    full: bool,
    full_reconcile: bool,
    at: str | None,
    console: Console,
) -> list[dict[str, Any]]:
    started = time.perf_counter()
    if at is not None and source not in pinnable():
        raise ConfigError(
            "--at pins one source to a version: use it with --source "
            + " or --source ".join(pinnable())
        )
    pairs = plan(settings, source, scope)  # bad input fails before Dagster is imported
    console.print(f"indexing {len(pairs)} source x scope pair(s); loading Dagster …")

    from dagster import DagsterInstance

    from assets.checks import build_collection_checks
    from assets.factory import AT_TAG, FULL_PULL_TAG, FULL_RECONCILE_TAG, build_source_assets
    from assets.partitions import ensure_scopes
    from assets.reaper import process_tags, reap
    from resources.platform import platform_resources

    ensure_dagster_home(settings)
    instance = DagsterInstance.from_config(str(settings.dagster_home))
    for reaped in reap(instance):  # runs a killed `kp index` or run worker left behind
        console.print(f"[yellow]{escape(reaped.line())}[/yellow]")
    for src in {src for src, _ in pairs}:  # the registry sensor's work, when kp up is not on
        ensure_scopes(instance, src, [sc for s, sc in pairs if s == src])
    resources = platform_resources(settings)
    tags = {run_tags.TRIGGER: "kp index", **process_tags()}
    if full or at:
        tags[FULL_PULL_TAG] = "true"
    if full_reconcile or at:
        tags[FULL_RECONCILE_TAG] = "true"
    if at:
        tags[AT_TAG] = at
    rows: list[dict[str, Any]] = []
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
    )
    with stop_signals() as signals, Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("indexing", total=len(pairs))
        for src, sc in pairs:
            where = f"{src} / {sc}"
            progress.update(task, description=f"{where}: starting")

            def on_start(step: str, where: str = where) -> None:
                progress.update(task, description=f"{where}: {step}")

            def on_step(
                step: str, seconds: float, figures: dict[str, Any], where: str = where
            ) -> None:
                progress.console.print(
                    f"{where}  {step:<10}  {describe(step, figures)}  ({seconds:.1f} s)"
                )

            pair_started = time.perf_counter()
            defs = [*build_source_assets(src), *build_collection_checks(src)]
            with RunFollower(instance, on_start, on_step) as follower:
                result = _materialize(
                    instance,
                    follower,
                    signals,
                    where,
                    defs,
                    partition_key=sc,
                    resources=resources,
                    tags={**tags, **follower.tags()},
                )
            row: dict[str, Any] = {
                "source": src,
                "scope": sc,
                "seconds": f"{time.perf_counter() - pair_started:.1f}",
            }
            for event in result.get_asset_materialization_events():
                mat = event.step_materialization_data.materialization
                step = mat.asset_key.path[-1]
                for name in STEP_FIELDS.get(step, ()):
                    if name in mat.metadata:
                        row[name] = mat.metadata[name].value
                if step == "raw" and "problems" in mat.metadata:
                    row["problems"] = problem_lines(str(mat.metadata["problems"].value))
            failing = [c.check_name for c in result.get_asset_check_evaluations() if not c.passed]
            row["checks"] = ", ".join(failing) or "ok"
            if not result.success:
                row["error"] = _failure(result)
            rows.append(row)
            progress.advance(task)
    console.print(f"done in {elapsed(started)} wall, Dagster and model start-up included")
    return rows


def _materialize(
    instance: Any,
    follower: RunFollower,
    signals: SignalLog,
    where: str,
    defs: list[Any],
    **kwargs: Any,
) -> Any:
    """One in-process run. IndexStopped if SIGTERM or Ctrl-C stopped it, once the run has
    ended (failed) and its slots are freed."""
    from dagster import RunsFilter, materialize

    try:
        result = materialize(
            defs, instance=instance, raise_on_error=False, run_config=QUIET, **kwargs
        )
    except KeyboardInterrupt:  # kp's own handler, just before or after the run
        result = None
    stopped = signals.stopped_by()
    if result is not None and stopped is None:
        run = instance.get_run_by_id(result.run_id)
        if run is not None and run.tags.get(FAILURE_REASON_TAG) == "UNEXPECTED_TERMINATION":
            stopped = signal.SIGINT  # interrupted, by a signal the log missed
    if result is None or stopped is not None:
        ids = instance.get_run_ids(RunsFilter(tags=follower.tags()))
        raise stop_runs(instance, ids, where, stopped or signal.SIGINT)
    return result


def problem_lines(markdown: str) -> list[str]:
    """The raw step's `problems` metadata (`- what: why -> kept/removed/...` lines)."""
    return [line[2:] for line in markdown.splitlines() if line.startswith("- ")]


def _failure(result: Any) -> str:
    for event in result.all_events:
        if event.is_step_failure and event.step_failure_data:
            err = event.step_failure_data.error
            if err is not None:
                user = err.cause or err
                line = user.message.strip().splitlines()[-1]
                if user.cls_name and user.cls_name.endswith("Error"):  # the core's own errors
                    line = _TYPE_PREFIX.sub("", line, count=1)  # say what, not which class
                return f"{event.step_key}: {line}"
    return "run failed (see the Dagster UI for the run's logs)"
