"""Delete-to-gone per source: every conformance harness (the fakes of tests/conformance) gets
ten items, a first full run, then one item deleted and one moved to the client scope; the
ordinary run that follows is timed and search is asked whether the deleted item is gone and
the moved one left `internal`. The deadline a user sees is the source's schedule or probe
interval (its SourceSpec) plus that run.

    uv run python bench/sync_deadlines.py [--sources clickup,website]
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import RESULTS, load_average  # noqa: E402
from knowledge_platform.connectors.catalog import spec  # noqa: E402
from tests.conformance.conftest import HARNESSES  # noqa: E402
from tests.conformance.harness import World  # noqa: E402


def interval(source: str) -> str:
    found = spec(source.removesuffix("_docs") if source == "clickup_docs" else source)
    if found.probe_seconds:
        return f"probe every {found.probe_seconds} s"
    return f"schedule every {found.poll_minutes} min" if found.poll_minutes else "weekly"


def measure(name: str, repeats: int) -> tuple[list[float], bool]:
    module, _, cls = HARNESSES[name].partition(":")
    harness_cls = getattr(importlib.import_module(module), cls)
    times, ok = [], True
    for round_ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
            harness = harness_cls(Path(tmp), mp)
            harness.start()
            try:
                world = World(harness, Path(tmp), mp)
                for i in range(10):
                    harness.create(f"i{i}", f"Note {i}", f"Item {i} of the godwit ledger.")
                harness.create("gone", "Doomed", f"The bittern memo {round_}.")
                harness.create("moved", "Traveller", f"The sandpiper brief {round_}.")
                world.run("internal")
                world.run("acme")
                harness.delete("gone")
                harness.move_scope("moved", "acme")
                started = time.perf_counter()
                world.run("internal")
                times.append(time.perf_counter() - started)
                ok &= not world.docs_with(f"bittern memo {round_}")
                ok &= not world.docs_with(f"sandpiper brief {round_}")
            finally:
                harness.stop()
    return times, ok


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sources", default=",".join(sorted(HARNESSES)))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = [
        "| source | ordinary run (median of runs) | gone from search | deadline |",
        "|---|---|---|---|",
    ]
    for name in args.sources.split(","):
        times, ok = measure(name, args.repeats)
        median = statistics.median(times)
        line = (
            f"| {name} | {median:.2f} s ({', '.join(f'{t:.2f}' for t in times)}) | "
            f"{'yes' if ok else 'NO'} | {interval(name)} + {median:.1f} s |"
        )
        rows.append(line)
        print(line, flush=True)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
    text = (
        f"# Delete-to-gone per source ({stamp}, {load_average()})\n\n"
        "`uv run python bench/sync_deadlines.py`: ten items, a full run, one delete and "
        "one move to the client scope, then the timed ordinary run (hash embedder, fakes "
        "on loopback).\n\n" + "\n".join(rows) + "\n"
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"sync_deadlines-{stamp}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
