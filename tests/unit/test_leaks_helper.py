"""The leak scanner finds a canary wherever the leak test needs it to: plain files, file
names, sqlite, gzip, captured texts; a partial print of it; and its base64, URL-encoded and
JSON-escaped forms."""

from __future__ import annotations

import base64
import gzip
import json
import sqlite3
from pathlib import Path
from urllib.parse import urlencode

from tests.leaks import canary, data_of, find_leaks


def test_every_planted_canary_is_found(tmp_path: Path) -> None:
    values = {
        name: canary("sk-proj-")
        for name in ("text", "sqlite", "gzip", "name", "said", "log", "cut")
    }
    home = tmp_path / "home"
    (home / "logs").mkdir(parents=True)
    (home / "logs" / "run.log").write_text(f"key={values['text']}\n")
    with sqlite3.connect(home / "events.db") as db:
        db.execute("create table e (body text)")
        db.execute("insert into e values (?)", (f'{{"tags": "{values["sqlite"]}"}}',))
    (home / "snap.gz").write_bytes(gzip.compress(values["gzip"].encode()))
    (home / f"cache-{values['name']}").write_text("x")
    log = tmp_path / "outside.log"
    log.write_text(values["log"])
    hits = find_leaks(
        values,
        roots=[home],
        files=[log],
        texts={"kp search": f"error: {values['said']}", "mcp": f"token {values['cut'][:24]}…"},
    )  # a partial print
    assert {h.rsplit(": ", 1)[1] for h in hits} == set(values)
    assert find_leaks({"other": canary()}, roots=[home], files=[log]) == []


def test_encoded_canaries_are_found_at_any_offset() -> None:
    values = {f"b64-{n}": canary("1//") for n in range(3)}
    # no CANARY marker in these two: only their encoded forms can find them
    values |= {
        "urlsafe": canary("GOCSPX-"),
        "form": "1//0gAbC+dEf=gh ij",
        "json": '-----BEGIN KEY-----\nMIIEv"Q/x',
    }
    texts = {
        f"b64-{n}": "Authorization: Basic "
        + base64.b64encode(("u" * n + ":" + values[f"b64-{n}"] + "!").encode()).decode()
        for n in range(3)
    }
    texts["urlsafe"] = base64.urlsafe_b64encode(f'{{"k": "{values["urlsafe"]}"}}'.encode()).decode()
    texts["form"] = urlencode({"refresh_token": values["form"], "grant_type": "x"})
    texts["json"] = json.dumps({"secret": values["json"]})
    hits = find_leaks(values, texts=texts)
    assert sorted(hits) == sorted(f"{name}: {name}" for name in values)
    assert values["form"] not in texts["form"] and values["json"] not in texts["json"]


def test_a_canary_in_a_sparse_file_is_found_past_its_holes(tmp_path: Path) -> None:
    """Shard files are sparse (32 MB, a few KB written): only the data is read, all of it."""
    value = canary("pk_1_")
    path = tmp_path / "page_0.dat"
    with path.open("wb") as fh:
        fh.truncate(32 * 1024 * 1024)
        fh.seek(20 * 1024 * 1024 + 5)
        fh.write(f"payload {value} payload".encode())
    assert find_leaks({"sparse": value}, files=[path]) == [f"{path}: sparse"]
    assert len(data_of(path)) < 1024 * 1024  # the holes were not read
