"""What the SciFact benchmarks share: a throwaway KP_HOME with a registry naming the `beir`
source, the source's four assets (and their checks) materialized by Dagster exactly as
`kp index` runs them (bench/temporal.py runs its own sources through the same `index`), and
the results file."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from knowledge_platform.settings import Settings  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "scifact"
RESULTS = ROOT / "bench" / "results"
SOURCE = "beir"
SCOPE = "internal"


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cpus"


def model_cache() -> Path:
    """Built ONNX files are shared across homes (as the tests do): built once per clone."""
    return Path(os.environ.get("KP_MODEL_CACHE", ROOT / ".kp-models")).expanduser().resolve()


@dataclass
class BenchHome:
    settings: Settings
    corpus_dir: Path

    @property
    def home(self) -> Path:
        return self.settings.home_dir

    def env(self) -> dict[str, str]:
        """Environment for a subprocess (`kp mcp`) that should see this home."""
        return {
            **os.environ,
            "KP_HOME": str(self.home),
            "KP_CONFIG": str(self.settings.config),
            "KP_MODEL_CACHE": str(self.settings.models_dir),
        }


@contextmanager
def bench_home(
    data: Path,
    *,
    provider: str = "local",
    model: str | None = None,
    base_url: str | None = None,
    home: Path | None = None,
    max_documents: int | None = None,
    cache: Path | None = None,
    clients: tuple[str, ...] = (),
) -> Iterator[BenchHome]:
    """A KP_HOME (temporary unless `home` is given, then kept) whose registry indexes the BEIR
    dataset at `data` into the `internal` scope with the given embedding provider. `cache`: a
    directory for the embedding cache that outlives the home. `clients`: extra (empty) scopes."""
    keep = home is not None
    root = Path(home) if home is not None else Path(tempfile.mkdtemp(prefix="kp-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    embedding: dict[str, Any] = {"provider": provider}
    if model:
        embedding["model"] = model
    if base_url:
        embedding["base_url"] = base_url
    source: dict[str, Any] = {"path": str(Path(data).resolve())}
    if max_documents:
        source["max_documents"] = max_documents
    config = root / "registry.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "embedding": embedding,
                "store": {"engine": "edge"},
                "internal": {"name": "Benchmark", "sources": {SOURCE: source}},
                "clients": {c: {"name": c, "director": "bench", "sources": {}} for c in clients},
            },
            sort_keys=False,
        )
    )
    settings = Settings.model_validate(
        {
            "KP_HOME": str(root / "home"),
            "KP_CONFIG": str(config),
            "KP_MODEL_CACHE": str(model_cache()),
        }
    )
    if cache is not None and not settings.cache_dir.exists():
        cache = Path(cache).expanduser().resolve()
        cache.mkdir(parents=True, exist_ok=True)
        settings.cache_dir.parent.mkdir(parents=True, exist_ok=True)
        settings.cache_dir.symlink_to(cache, target_is_directory=True)
    try:
        yield BenchHome(settings, Path(data))
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)


@dataclass
class IndexRun:
    seconds: float
    success: bool
    metadata: dict[str, dict[str, Any]]  # step -> materialization metadata
    step_seconds: dict[str, float]  # step -> wall time between STEP_START and its end
    checks: dict[str, bool]


def index(
    settings: Settings, instance: Any = None, *, source: str = SOURCE, scope: str = SCOPE
) -> IndexRun:
    """Materialize <source>/raw -> chunks -> embeddings -> collection (+ collection checks) for
    one scope in-process, like `kp index` does; `instance` defaults to an ephemeral one."""
    from dagster import DagsterInstance, materialize

    from assets.checks import build_collection_checks
    from assets.factory import build_source_assets
    from assets.partitions import ensure_scopes
    from kp.indexing import QUIET
    from resources.platform import platform_resources

    instance = instance or DagsterInstance.ephemeral()
    ensure_scopes(instance, source, [scope])
    started = time.perf_counter()
    result = materialize(
        [*build_source_assets(source), *build_collection_checks(source)],
        partition_key=scope,
        instance=instance,
        resources=platform_resources(settings),
        tags={"kp/trigger": "bench"},
        raise_on_error=False,
        run_config=QUIET,
    )
    seconds = time.perf_counter() - started
    metadata: dict[str, dict[str, Any]] = {}
    for event in result.get_asset_materialization_events():
        mat = event.step_materialization_data.materialization
        metadata[mat.asset_key.path[-1]] = {k: v.value for k, v in mat.metadata.items()}
    starts: dict[str, float] = {}
    step_seconds: dict[str, float] = {}
    for entry in instance.all_logs(result.run_id):
        event = entry.dagster_event
        if event is None or not event.step_key:
            continue
        step = event.step_key.split("__")[-1]
        if event.event_type_value == "STEP_START":
            starts[step] = entry.timestamp
        elif event.event_type_value in ("STEP_SUCCESS", "STEP_FAILURE") and step in starts:
            step_seconds[step] = entry.timestamp - starts[step]
    checks = {c.check_name: c.passed for c in result.get_asset_check_evaluations()}
    if not result.success:
        raise SystemExit(f"indexing failed: {_failure(result)}")
    return IndexRun(seconds, result.success, metadata, step_seconds, checks)


def _failure(result: Any) -> str:
    from kp.indexing import _failure as describe

    return describe(result)


def platform_runtime(settings: Settings) -> Any:
    """The core's Runtime over an indexed home: store, embedder and retriever for queries,
    and the snapshots the run left."""
    from knowledge_platform.ingest.runtime import IngestRuntime

    return IngestRuntime(settings)


def write_results(name: str, title: str, body: str) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}-{dt.datetime.now(dt.UTC).date().isoformat()}.md"
    path.write_text(f"# {title}\n\n{body.rstrip()}\n", encoding="utf-8")
    return path


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
