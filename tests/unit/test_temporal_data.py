"""The dated evaluation's generator (bench/temporal_world): deterministic, its labels true of
the corpus it writes, and both halves holding every type."""

import datetime as dt
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from bench import temporal_data
from bench.temporal_world.clock import EXPRESSIONS
from bench.temporal_world.generate import DEFAULT_SEED, generate, write
from bench.temporal_world.model import SPLITS, TYPES, Corpus
from bench.temporal_world.score import norm


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return generate(DEFAULT_SEED)


@pytest.fixture(scope="module")
def scopes(corpus: Corpus) -> dict[str, dict[str, str]]:
    """scope -> path -> normalised text."""
    out: dict[str, dict[str, str]] = {}
    for (scope, path), text in corpus.documents().items():
        out.setdefault(scope, {})[path] = norm(text)
    return out


def _holding(docs: dict[str, str], value: str) -> list[str]:
    return sorted(path for path, text in docs.items() if norm(value) in text)


def test_the_same_seed_gives_the_same_corpus_and_questions(corpus: Corpus):
    again = generate(DEFAULT_SEED)
    assert again.documents() == corpus.documents()
    assert again.questions == corpus.questions
    assert generate(DEFAULT_SEED + 1).documents() != corpus.documents()


def test_the_committed_questions_are_the_generators(corpus: Corpus):
    assert temporal_data.stale_files(corpus, DEFAULT_SEED) == []


def test_both_halves_hold_every_type_and_every_time_expression(corpus: Corpus):
    assert len(corpus.questions) >= 150
    counts = Counter((q.split, q.type) for q in corpus.questions)
    assert all(counts[(split, t)] >= 5 for split in SPLITS for t in TYPES), counts
    for split in SPLITS:
        asked = {
            q.template.split(" / ")[1]
            for q in corpus.questions
            if q.split == split and q.type == "dated"
        }
        assert asked >= {x.text for x in EXPRESSIONS}
    # both phrasings of one fact fall in the same half
    halves = {(q.instance, q.split) for q in corpus.questions}
    assert len(halves) == len({q.instance for q in corpus.questions})


def test_expected_values_are_in_the_documents_that_answer(corpus: Corpus, scopes):
    for q in corpus.questions:
        if q.type == "unanswerable":
            continue
        docs = scopes[q.scope]
        if q.type == "conflict":
            newer, older = q.newer, next(v for v in q.expect if v != q.newer)
            assert q.docs[0] in _holding(docs, newer) and q.docs[1] in _holding(docs, older), q
        else:
            assert any(set(_holding(docs, e)) & set(q.docs) for e in q.expect), q
        if q.type == "current":
            stale = [p for p in _holding(docs, q.old[0]) if p not in q.docs]
            assert stale, f"{q.id}: the old value is stated nowhere but in the change"


def test_a_dated_value_is_only_on_its_day_and_its_distractors_outside_the_window(
    corpus: Corpus, scopes
):
    by_text = {x.text: x for x in EXPRESSIONS}
    for q in (q for q in corpus.questions if q.type == "dated"):
        expr = by_text[q.template.split(" / ")[1]]
        docs = scopes[q.scope]
        assert _holding(docs, q.expect[0]) == list(q.docs), q.id
        assert expr.inside(_day(q.docs[0])), q.id
        assert len(q.old) == 3
        for value in q.old:
            (where,) = _holding(docs, value)
            assert not expr.inside(_day(where), wide=True), (q.id, value, where)


def test_unanswerable_questions_ask_what_the_corpus_never_says(corpus: Corpus):
    lines = [norm(line) for text in corpus.documents().values() for line in text.splitlines()]
    for q in (q for q in corpus.questions if q.type == "unanswerable"):
        about = [line for line in lines if any(s in line for s in q.subject)]
        if not q.absent:  # off-topic: the subject is nowhere
            assert about == [], q.question
            continue
        assert about, f"near miss without its subject: {q.question}"
        assert not [line for line in about if any(a in line for a in q.absent)], q.question


def test_the_handbook_is_a_git_repository_dated_by_its_documents(tmp_path: Path, corpus: Corpus):
    layout = write(corpus, tmp_path)
    log = subprocess.run(
        [
            "git",
            "-C",
            str(layout.handbook),
            "log",
            "--format=%ad",
            "--date=short",
            "--",
            "decisions/0003-timesheets-in-ledgerly.md",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert log == ["2026-04-13", "2026-01-15"]  # marked superseded on its successor's day
    written = {
        p.relative_to(layout.workspaces["internal"]).as_posix()
        for p in layout.workspaces["internal"].rglob("*.md")
    }
    assert written == {
        path
        for (scope, path) in corpus.documents()
        if scope == "internal" and (path.startswith("memory/") or "/" not in path)
    }


def _day(path: str) -> dt.date:
    return dt.date.fromisoformat(Path(path).stem)
