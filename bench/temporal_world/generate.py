"""Build the corpus and its questions from a seed, and write them to disk: two memory_files
workspaces and a git repository of the handbook whose commits carry the documents' dates."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo

from . import changes, conflicts, dated, facts, filler, records
from .builder import Builder
from .clock import TIMEZONE
from .model import CLIENT_SCOPE, INTERNAL, Corpus, split_questions

DEFAULT_SEED = 25


def generate(seed: int = DEFAULT_SEED) -> Corpus:
    b = Builder(seed)
    b.reserve(*(v for qs in (facts.FACTS,) for *_, expect in qs for v in expect))
    b.reserve(*(c[5] for c in changes.CHANGES), *(c[6] for c in changes.CHANGES))
    b.reserve(*(c[2] for c in conflicts.CONFLICTS), *(c[5] for c in conflicts.CONFLICTS))
    filler.build(b)
    facts.build(b)
    changes.build(b)
    conflicts.build(b)
    records.build(b)
    dated.build(b)
    corpus = b.corpus()
    corpus.questions = split_questions(corpus.questions)
    return corpus


@dataclass(frozen=True)
class Layout:
    workspaces: dict[str, Path]
    handbook: Path


def write(corpus: Corpus, root: Path) -> Layout:
    """Write the workspaces under root/<scope> and the handbook as root/handbook (a git
    repository, one commit per document revision, dated as the document)."""
    paths = {INTERNAL: root / "workspace", CLIENT_SCOPE: root / "quayside"}
    for scope, ws in corpus.workspaces.items():
        for rel, text in ws.files().items():
            _write(paths[scope] / rel, text)
    handbook = root / "handbook"
    handbook.mkdir(parents=True)
    _git(handbook, "init", "-q", "-b", "main")
    for commit in sorted(corpus.handbook, key=lambda c: (c.day, c.path)):
        _write(handbook / commit.path, commit.text)
        _git(handbook, "add", commit.path)
        _git(handbook, "commit", "-q", "-m", commit.message, when=commit.day)
    return Layout(paths, handbook)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _git(repo: Path, *args: str, when: dt.date | None = None) -> None:
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "Fernhill Handbook",
        "GIT_AUTHOR_EMAIL": "handbook@fernhill.test",
        "GIT_COMMITTER_NAME": "Fernhill Handbook",
        "GIT_COMMITTER_EMAIL": "handbook@fernhill.test",
    }
    if when is not None:
        stamp = dt.datetime.combine(when, dt.time(10), ZoneInfo(TIMEZONE)).isoformat()
        env |= {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)
