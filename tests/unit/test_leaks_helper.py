"""The leak scanner finds a canary wherever the leak test needs it to: plain files, file
names, zstd-compressed Parquet, sqlite, gzip, captured texts; and a partial print of it."""

from __future__ import annotations

import gzip
import random
import sqlite3
from pathlib import Path

import polars as pl

from tests.leaks import canary, find_leaks


def test_every_planted_canary_is_found(tmp_path: Path) -> None:
    values = {name: canary("sk-proj-") for name in ("text", "parquet", "sqlite", "gzip",
                                                     "name", "said", "log", "cut")}
    home = tmp_path / "home"
    (home / "logs").mkdir(parents=True)
    (home / "logs" / "run.log").write_text(f"key={values['text']}\n")
    rng = random.Random(1)
    rows = ["".join(rng.choice("abcdefghij klmnop") for _ in range(60)) for _ in range(2000)]
    rows[1000] += values["parquet"]
    pl.DataFrame({"text": rows}).write_parquet(home / "raw.parquet")
    assert b"CANARY" not in (home / "raw.parquet").read_bytes()  # zstd + Huffman: hidden
    with sqlite3.connect(home / "events.db") as db:
        db.execute("create table e (body text)")
        db.execute("insert into e values (?)", (f'{{"tags": "{values["sqlite"]}"}}',))
    (home / "snap.gz").write_bytes(gzip.compress(values["gzip"].encode()))
    (home / f"cache-{values['name']}").write_text("x")
    log = tmp_path / "outside.log"
    log.write_text(values["log"])
    hits = find_leaks(values, roots=[home], files=[log],
                      texts={"kp search": f"error: {values['said']}",
                             "mcp": f"token {values['cut'][:24]}…"})  # a partial print
    assert {h.rsplit(": ", 1)[1] for h in hits} == set(values)
    assert find_leaks({"other": canary()}, roots=[home], files=[log]) == []
