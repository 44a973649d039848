"""What a process pays before it does any work: the wall time, CPU time and module count of
importing the code location (and building its Definitions, as every run worker does), the
`kp` CLI and the MCP service, each in a fresh interpreter.

    .venv/bin/python bench/import_cost.py [--repeat 3] [--tree PATH ...]

Each `--tree` is a checkout to measure (default: this one); they are measured in turns, so
a comparison (`git archive main | tar -x -C /tmp/main`, then `--tree /tmp/main --tree .`)
shares the machine's load. Prints the median per tree and target; the last line is the code
location's `import_s=<v> modules=<n>` for the last tree.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from _common import ROOT, load_average, markdown_table, write_results

#: What each target imports (and does), measured in its own interpreter.
TARGETS = {
    "code location": "import assets.definitions as d; d.build_definitions()",
    "kp CLI": "import kp.app",
    "MCP service": "import mcp_service.server",
}
PROBE = """
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
{code}
print(json.dumps({{"s": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                  "modules": len(sys.modules)}}))
"""


def measure(tree: Path, code: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(code=code)],
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "HOME": str(Path.home())},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {code!r} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tree", type=Path, action="append", default=None)
    args = parser.parse_args()
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    samples: dict[tuple[Path, str], list[dict[str, float]]] = {}
    for _ in range(args.repeat):
        for name, code in TARGETS.items():
            for tree in trees:  # in turns: both trees see the same load
                samples.setdefault((tree, name), []).append(measure(tree, code))
    rows = []
    for (tree, name), runs in samples.items():
        wall = statistics.median(r["s"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs)
        modules = int(statistics.median(r["modules"] for r in runs))
        rows.append([str(tree), name, f"{wall:.2f}", f"{cpu:.2f}", str(modules)])
    table = markdown_table(["tree", "target", "wall s", "cpu s", "modules"], rows)
    body = (
        f"{table}\n\n`.venv/bin/python bench/import_cost.py --repeat {args.repeat} "
        f"{' '.join(f'--tree {t}' for t in trees)}`; median of {args.repeat}; "
        f"{load_average()}.\n"
    )
    path = write_results("import_cost", "Import cost: code location, kp, MCP service", body)
    print(table)
    print(f"written to {path.relative_to(ROOT)}; {load_average()}")
    last = samples[(trees[-1], "code location")]
    print(
        f"import_s={statistics.median(r['s'] for r in last):.2f} "
        f"modules={int(statistics.median(r['modules'] for r in last))}"
    )


if __name__ == "__main__":
    main()
