"""Install footprint before and after a dependency change, measured the same way on both sides:
for each install, a fresh venv from its locks in a temp dir (`uv venv`, `uv pip sync`, the
project editable: what scripts/bootstrap runs), uv's cache warm (every install runs once
untimed first); the install's wall time (median of --repeat, the installs in turn), `du -sh`
of the venv, and the code location's import time (`python -c "import assets.definitions"`,
--imports times in turn, in the install's own tree). "before" is the tree at --before, with
its requirements.lock and its code; the others are this tree's locks. Also the size of each
package "before" has and the default install no longer does. Prints a table and writes it to
bench/results/install_footprint.md.

    .venv/bin/python bench/install_footprint.py [--before 2716bd5] [--repeat 3] [--imports 5]
        [--keep DIR]   (keep the venvs there: DIR/before/venv has polars for
                        bench/snapshot_formats.py)
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import RESULTS, load_average  # noqa: E402

#: Distribution name -> bytes of its installed files, run inside a venv.
SIZES = """
import importlib.metadata as md, json, os
out = {}
for d in md.distributions():
    paths = [f.locate() for f in d.files or []]
    out[d.metadata["Name"].lower()] = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
print(json.dumps(out))
"""


@dataclass
class Install:
    label: str
    tree: Path
    locks: list[str]
    work: Path
    seconds: list[float] = field(default_factory=list)
    imports: list[float] = field(default_factory=list)
    import_cpu: list[float] = field(default_factory=list)

    @property
    def venv(self) -> Path:
        return self.work / "venv"

    @property
    def python(self) -> str:
        return str(self.venv / "bin" / "python")

    def install(self) -> float:
        shutil.rmtree(self.venv, ignore_errors=True)
        start = time.perf_counter()
        run(["uv", "venv", "--quiet", "--python", "3.11", str(self.venv)])
        run(
            [
                "uv",
                "pip",
                "sync",
                "--quiet",
                "--python",
                self.python,
                *(str(self.tree / lock) for lock in self.locks),
            ]
        )
        run(
            [
                "uv",
                "pip",
                "install",
                "--quiet",
                "--python",
                self.python,
                "--no-deps",
                "-e",
                str(self.tree),
            ]
        )
        return time.perf_counter() - start

    def import_code_location(self, *flags: str) -> str:
        """Wall and CPU seconds (this process's children: user + sys) of one import, noted."""
        env = {"PATH": "/usr/bin:/bin", "HOME": str(self.work), "KP_HOME": str(self.work / "home")}
        cpu = _children_cpu()
        start = time.perf_counter()
        done = subprocess.run(
            [self.python, *flags, "-c", "import assets.definitions"],
            cwd=self.tree,
            env=env,
            capture_output=True,
            text=True,
        )
        self.imports.append(time.perf_counter() - start)
        self.import_cpu.append(_children_cpu() - cpu)
        if done.returncode != 0:
            raise SystemExit(f"{self.label}: import failed: {done.stderr.strip()[-500:]}")
        return done.stderr

    def du(self) -> str:
        return run(["du", "-sh", str(self.venv)]).split()[0]

    def sizes(self) -> dict[str, int]:
        return json.loads(run([self.python, "-c", SIZES]))


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


#: Each named distribution's modules (dotted names), run inside a venv.
MODULES = """
import importlib.metadata as md, json, sys
out = {}
for name in sys.argv[1:]:
    mods = set()
    for f in md.distribution(name).files or []:
        parts = str(f).split("/")
        if ".dist-info" in str(f) or not parts[-1].endswith((".py", ".so")):
            continue
        parts[-1] = parts[-1].split(".")[0]
        mods.add(".".join(parts).removesuffix(".__init__"))
    out[name] = sorted(mods)
print(json.dumps(out))
"""


def own_import_seconds(importtime: str, modules: dict[str, list[str]]) -> dict[str, float]:
    """Seconds each distribution's own modules took (`-X importtime` self times, summed)."""
    owner = {m: dist for dist, mods in modules.items() for m in mods}
    out = dict.fromkeys(modules, 0.0)
    for line in importtime.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[0].strip().isdigit() and parts[2].strip() in owner:
            out[owner[parts[2].strip()]] += int(parts[0]) / 1e6
    return out


def run(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.strip()[-500:]}")
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default="2716bd5", help="git ref of the 'before' tree")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--imports", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="keep the venvs under this directory")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="kp-footprint-"))
    before_tree = work / "before-tree"
    shutil.rmtree(before_tree, ignore_errors=True)
    before_tree.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", args.before], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(before_tree)], input=archive, check=True)
    installs = [
        Install(f"before ({args.before})", before_tree, ["requirements.lock"], work / "before"),
        Install(
            "after: default (scripts/bootstrap, scripts/up)",
            ROOT,
            ["requirements.lock"],
            work / "default",
        ),
        Install(
            "after: CI (KP_EXTRAS='dev production')",
            ROOT,
            ["requirements.lock", "requirements-production.lock"],
            work / "ci",
        ),
        Install(
            "after: image (runtime + production)",
            ROOT,
            ["requirements-production.lock"],
            work / "image",
        ),
    ]
    try:
        for inst in installs:  # warm uv's cache with everything any install needs
            inst.install()
        for _ in range(args.repeat):
            for inst in installs:
                inst.seconds.append(inst.install())
        for _ in range(args.imports):
            for inst in installs:
                inst.import_code_location()
        sizes = {inst.label: inst.sizes() for inst in installs}
        lines = [
            "## install_footprint",
            "",
            f"uv {run(['uv', '--version']).split()[1]}, warm cache; install = uv venv + "
            f"uv pip sync + editable project, median of {args.repeat}; import = `python -c "
            f'"import assets.definitions"`, median (min) of {args.imports}; '
            f"{load_average()}",
            "",
            "| install | locks | packages | `du -sh` venv | install s | import s | import CPU s |",
            "|---|---|---|---|---|---|---|",
        ]
        lines.extend(
            f"| {inst.label} | {' + '.join(inst.locks)} | {len(sizes[inst.label])} | "
            f"{inst.du()} | {statistics.median(inst.seconds):.1f} | "
            f"{statistics.median(inst.imports):.2f} ({min(inst.imports):.2f}) | "
            f"{statistics.median(inst.import_cpu):.2f} ({min(inst.import_cpu):.2f}) |"
            for inst in installs
        )
        before, default = sizes[installs[0].label], sizes[installs[1].label]
        ci = sizes[installs[2].label]
        gone = sorted(set(before) - set(default), key=lambda n: -before[n])
        lines += [
            "",
            "Packages the default install no longer has (installed size):",
            "",
            "| package | MB | where now |",
            "|---|---|---|",
        ]
        for name in gone:
            where = "production extra" if name in ci else "dropped"
            lines.append(f"| {name} | {before[name] / 1e6:.1f} | {where} |")
        modules = json.loads(run([installs[0].python, "-c", MODULES, *gone]))
        runs = [
            own_import_seconds(installs[0].import_code_location("-X", "importtime"), modules)
            for _ in range(3)
        ]
        del installs[0].imports[-3:], installs[0].import_cpu[-3:]
        own = {d: statistics.median(r[d] for r in runs) for d in gone}
        lines += [
            "",
            f"Their own modules' share of the code location's import at {args.before} "
            "(`python -X importtime` self times, summed per package, median of 3): "
            + ", ".join(f"{d} {own[d]:.2f} s" for d in gone if own[d] >= 0.005)
            + f"; {sum(own.values()):.2f} s in all.",
        ]
        table = "\n".join(lines) + "\n"
        print(table)
        (RESULTS / "install_footprint.md").write_text(table)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
