"""A fake 1Password CLI: an executable `op` that tests put first on PATH.

`op read <reference>` prints the canned value of the reference (and a newline unless
`-n/--no-newline`), as the real one does. Following 1Password's documented rules, a reference
whose names hold characters other than letters, digits, spaces, `-`, `_` and `.` is refused
("use its ID instead"), and an unknown item fails with op's `[ERROR] <date> ...` line and
exit 1. Tests can make every call fail (`fail`) or hang (`hang`); every call's arguments are
recorded, one JSON line each. State lives in a JSON file beside the script, so the script
works the same from a test's own process and from a `kp` subprocess."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

SCRIPT = r"""
import datetime, json, re, sys, time
STATE, CALLS = {state!r}, {calls!r}
args = sys.argv[1:]
with open(CALLS, "a", encoding="utf-8") as fh:
    fh.write(json.dumps(args) + "\n")
with open(STATE, encoding="utf-8") as fh:
    state = json.load(fh)
stamp = datetime.datetime.now().strftime("%Y/%m/%d %H:%M:%S")
def die(message, code=1):
    sys.stderr.write(f"[ERROR] {{stamp}} {{message}}\n")
    sys.exit(code)
if state["hang"]:
    time.sleep(state["hang"])
if state["fail"]:
    sys.stdout.write(state["fail"]["stdout"])
    sys.stderr.write(state["fail"]["stderr"] + "\n")
    sys.exit(state["fail"]["code"])
flags = [a for a in args if a.startswith("-")]
words = [a for a in args if not a.startswith("-")]
if len(words) != 2 or words[0] != "read":
    die(f"unknown command {{' '.join(args)!r}} (this fake knows only: op read <reference>)")
ref = words[1]
if not ref.startswith("op://"):
    die(f"could not read secret {{ref!r}}: invalid secret reference: missing op:// prefix")
parts = ref[5:].split("?")[0].split("/")
if len(parts) not in (3, 4) or not all(parts):
    die(f"could not read secret {{ref!r}}: invalid secret reference format")
bad = [p for p in parts if not re.fullmatch(r"[A-Za-z0-9 ._-]+", p)]
if bad:
    die(f"could not read secret {{ref!r}}: invalid character in secret reference "
        f"{{bad[0]!r}}: use its ID instead")
if ref not in state["values"]:
    die(f"could not read secret {{ref!r}}: could not find item {{parts[1]}} in vault {{parts[0]}}")
value = state["values"][ref]
sys.stdout.write(value if ("-n" in flags or "--no-newline" in flags) else value + "\n")
"""


class FakeOp:
    def __init__(self, bin_dir: Path, values: dict[str, str] | None = None) -> None:
        bin_dir.mkdir(parents=True, exist_ok=True)
        self.bin_dir = bin_dir
        self.path = bin_dir / "op"
        self._state_file = bin_dir / "op-state.json"
        self._calls_file = bin_dir / "op-calls.jsonl"
        self._state: dict[str, Any] = {"values": dict(values or {}), "fail": None, "hang": 0}
        self._save()
        self._calls_file.write_text("")
        self.path.write_text(
            f"#!{sys.executable}\n"
            + SCRIPT.format(state=str(self._state_file), calls=str(self._calls_file))
        )
        self.path.chmod(self.path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)

    # -- controls ---------------------------------------------------------------------------
    def set(self, ref: str, value: str) -> None:
        self._state["values"][ref] = value
        self._save()

    def forget(self, ref: str) -> None:
        """The item is gone: reading `ref` fails as for an unknown item."""
        self._state["values"].pop(ref, None)
        self._save()

    def fail(self, stderr: str, *, code: int = 1, stdout: str = "") -> None:
        """Every call prints `stdout`/`stderr` and exits `code` (until `reset`)."""
        self._state["fail"] = {"stderr": stderr, "code": code, "stdout": stdout}
        self._save()

    def hang(self, seconds: float) -> None:
        self._state["hang"] = seconds
        self._save()

    def reset(self) -> None:
        self._state.update(fail=None, hang=0)
        self._save()

    # -- observations -----------------------------------------------------------------------
    @property
    def calls(self) -> list[list[str]]:
        """The arguments of every call so far (after `op`)."""
        lines = self._calls_file.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line]

    def path_env(self, rest: str | None = None) -> str:
        """A PATH with this fake first."""
        rest = os.environ.get("PATH", "") if rest is None else rest
        return f"{self.bin_dir}{os.pathsep}{rest}" if rest else str(self.bin_dir)

    def _save(self) -> None:
        self._state_file.write_text(json.dumps(self._state), encoding="utf-8")
