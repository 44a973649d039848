"""Answers that know time (issue #25): the dated evaluation, through the real assets and MCP.

bench/temporal_data.py generates a year (2026-01-05 .. 2026-11-20) of an invented agency's
knowledge from a seed: a daily log every weekday and standing files (memory_files, scope
`internal`; a few files in the client scope `quayside_ferries`), decision records and a
handbook in a git repository with dated commits (git_docs). This bench writes it to a
temporary folder, indexes every source x scope by a Dagster materialize of the source's asset
graph exactly as `kp index` runs it, then asks each question of one half (bench/data/temporal/
{tune,holdout}.yaml) through MCP (in-memory FastMCP client, admin principal, no chat model,
KP_NOW=2026-11-20T16:00, timezone America/New_York): `knowledge_ask(question, scope)` and
`knowledge_search(question, scope, limit=10)`.

    .venv/bin/python bench/temporal.py [--split holdout|tune|dev|<set>-{tune,check}]
        (<set>: fresh, studio, growth, harbour, atelier, orchard, kiln, beacon, lantern, reel,
        ledger, tern, pylon, sedge, wren, moss, quay, delta, cairn, sorrel, gantry, birch,
        mill, dune, spire, heron, quill, kestrel, loom, osprey, thistle, fathom, juniper,
        bramble, vesper, cobalt, marlin, alder, flint)
        [--seed 25] [--dump FILE]

Scoring (bench/temporal_world/score.py; "contains" = substring after lower-casing and
collapsing whitespace):
- answerable_recall: of the questions of every type but `unanswerable`, the share whose
  answer has mode != not_found and contains one of its expected strings.
- notfound_precision: of the answers with mode not_found, the share whose question is
  `unanswerable` (1.0 when no answer is not_found). notfound_recall: of the `unanswerable`
  questions, the share answered not_found.
- current: the answer contains the current value, and the old value is absent from it or
  shown as old: a conflicts claim carrying it whose conflict's `newer` is another citation,
  or every sentence of the answer carrying it cites a citation with `superseded_by` or says
  so ("superseded", "earlier", "was", "until", "previously", "no longer", "instead of",
  "replaces", "retired", "moved/raised/changed from", "handed ... over"; score.OLD_MARKERS).
- dated: the answer contains the in-window value, and every out-of-window value of the same
  subject is absent from it or shown as old by the same rule.
- conflict_flagged: a conflicts entry has a claim carrying each of the two values (in its
  `value` or `text`) and its `newer` is the citation number of a claim carrying the newer
  value (and of none carrying the older).
- named: a citation is the named record (doc_id or source_id ends with its path), the answer
  contains the record's expected text, and for a superseded record the answer or a warning
  says "supersed..." or that citation has `superseded_by`.
- mrr: mean over the answerable questions (every type but `unanswerable`) of 1/rank of the
  first `knowledge_search` hit (limit 10) whose doc_id or source_id ends with one of the
  question's documents (0 when none of the ten is).

Prints a table per type for the chosen half, writes it with every question's verdicts to
bench/results/temporal-<split>-<date>.md, and prints last:
`temporal: answerable_recall=<v> notfound_precision=<v> current=<v> dated=<v>
conflict_flagged=<v> named=<v> mrr=<v>` (one line), with notfound_recall on the line before.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from _common import (
    ROOT,
    index,
    load_average,
    markdown_table,
    model_cache,
    write_results,
)
from temporal_data import QUESTIONS, load_questions, stale_files
from temporal_world.clock import KP_NOW
from temporal_world.generate import DEFAULT_SEED, Layout, generate, write
from temporal_world.model import CLIENT_SCOPE, INTERNAL, TYPES, Question
from temporal_world.score import Asked, Searched, recalled, reciprocal_rank, type_score

#: The hand-written sets: split -> (its documents, the folder of the internal workspace they are
#: copied into beside the generated ones). `dev` is tuned on like the tune half; `fresh-tune` and
#: `fresh-check` share one set of documents (written by an author who had not seen the answer
#: code), under fresh/ so their daily logs do not replace the generated ones; `studio-*` and
#: `growth-*` are two more such sets by two more authors, each split by fact the same way;
#: `harbour-*`, `atelier-*` and `orchard-*` three more, written in round 8; `kiln-*` and
#: `beacon-*` in round 9; `lantern-*` (one log a week, a heading a day) in round 10; `reel-*`
#: (hurried timestamped lines, initials for people) and `ledger-*` (meeting notes with decisions
#: and actions) in round 14; `tern-*` (a chat channel's export, one file a month, a line a
#: message) and `pylon-*` (a weekly status email, US-style dates, forwarded older values) in
#: round 15; `sedge-*` (one account journal a client, newest entry first, wiki pages dated by a
#: footer, a decision register as a table) and `wren-*` (a task tracker's export: one file a
#: task, comments and activity lines in time order, RFC records) in round 16; `moss-*` and
#: `quay-*` in round 17; `delta-*` (an email archive, newest message first with the older ones
#: quoted below; client notes newest first; handbooks with a version table at the top; numbered
#: policy notices; monthly dashboards) and `cairn-*` (a chat channel's monthly export with
#: threaded replies, postmortems, runbooks dated by front matter, ops decision records, weekly
#: on-call notes) in round 23; `sorrel-*` (a vet group: a branch's handover notes a month with
#: British dates, "Rev." lines and change logs at the bottom of procedures, formulary notices,
#: a stock log with day-first dates) and `gantry-*` (a freight forwarder: a dispatch channel a
#: week, rate sheets adding an "Effective from" row per change, account pages with a changelog
#: at the bottom, numbered bulletins that cancel or amend others) in round 24.
HAND_WRITTEN = {
    "dev": (QUESTIONS / "dev", ""),
    **{
        f"{name}-{half}": (QUESTIONS / name, name)
        for name in (
            "fresh",
            "studio",
            "growth",
            "harbour",
            "atelier",
            "orchard",
            "kiln",
            "beacon",
            "lantern",
            "reel",
            "ledger",
            "tern",
            "pylon",
            "sedge",
            "wren",
            "moss",
            "quay",
            "delta",
            "cairn",
            "sorrel",
            "gantry",
            "birch",
            "mill",
            "dune",
            "spire",
            "heron",
            "quill",
            "kestrel",
            "loom",
            "osprey",
            "thistle",
            "fathom",
            "juniper",
            "bramble",
            "vesper",
            "cobalt",
            "marlin",
            "alder",
            "flint",
        )
        for half in ("tune", "check")
    },
}
SOURCES = (("memory_files", INTERNAL), ("git_docs", INTERNAL), ("memory_files", CLIENT_SCOPE))
TYPE_SCORE = {
    "answerable": "recall",
    "current": "current",
    "dated": "dated",
    "conflict": "conflict_flagged",
    "named": "named",
    "unanswerable": "notfound_recall",
}


@dataclass
class Outcome:
    q: Question
    asked: Asked
    searched: Searched
    seconds: float

    @property
    def rr(self) -> float:
        return reciprocal_rank(self.q, self.searched)


def code_version() -> str:
    """The commit measured, "+changes" when the work tree differs from it."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False
        ).stdout.strip()

    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/results")
    return git("rev-parse", "--short", "HEAD") + ("+changes" if changed else "")


def registry(layout: Layout) -> dict[str, Any]:
    return {
        "embedding": {"provider": "local"},
        "store": {"engine": "edge"},
        "answer": {"api_key_env": "KP_BENCH_NO_CHAT_MODEL"},  # extractive answers only
        "internal": {
            "name": "Fernhill Digital",
            "sources": {
                "memory_files": {"path": str(layout.workspaces[INTERNAL])},
                "git_docs": {"repo": str(layout.handbook), "globs": ["**/*.md"]},
            },
        },
        "clients": {
            CLIENT_SCOPE: {
                "name": "Quayside Ferries",
                "director": "kwame",
                "sources": {"memory_files": {"path": str(layout.workspaces[CLIENT_SCOPE])}},
            }
        },
    }


async def ask_all(runtime: Any, questions: list[Question]) -> list[Outcome]:
    from fastmcp import Client
    from fastmcp.exceptions import ToolError

    from mcp_service.server import build_server

    out: list[Outcome] = []
    async with Client(build_server(runtime, default_principal="compass")) as client:
        for q in questions:
            started = time.perf_counter()
            try:
                result = await client.call_tool(
                    "knowledge_ask", {"question": q.question, "scope": q.scope}
                )
                asked = Asked.model_validate(result.structured_content or {})
            except ToolError as exc:
                asked = Asked(answer=f"error: {exc}")
            seconds = time.perf_counter() - started
            result = await client.call_tool(
                "knowledge_search", {"query": q.question, "scope": q.scope, "limit": 10}
            )
            out.append(
                Outcome(q, asked, Searched.model_validate(result.structured_content or {}), seconds)
            )
    return out


def figures(outcomes: list[Outcome]) -> dict[str, float]:
    def share(items: list[Outcome], test: Any) -> float:
        return sum(1 for o in items if test(o)) / len(items) if items else float("nan")

    of = {t: [o for o in outcomes if o.q.type == t] for t in TYPES}
    answerable = [o for o in outcomes if o.q.type != "unanswerable"]
    refused = [o for o in outcomes if o.asked.mode == "not_found"]
    return {
        "answerable_recall": share(answerable, lambda o: recalled(o.q, o.asked)),
        "notfound_precision": share(refused, lambda o: o.q.type == "unanswerable")
        if refused
        else 1.0,
        "notfound_recall": share(of["unanswerable"], lambda o: o.asked.mode == "not_found"),
        **{
            TYPE_SCORE[t]: share(of[t], lambda o: type_score(o.q, o.asked))
            for t in ("current", "dated", "conflict", "named")
        },
        "mrr": statistics.fmean(o.rr for o in answerable) if answerable else 0.0,
    }


def type_table(outcomes: list[Outcome]) -> str:
    rows = []
    for t in TYPES:
        items = [o for o in outcomes if o.q.type == t]
        n = len(items)
        if not n:
            continue
        rows.append(
            [
                t,
                str(n),
                str(sum(1 for o in items if o.asked.mode == "not_found")),
                f"{sum(recalled(o.q, o.asked) for o in items) / n:.3f}"
                if t != "unanswerable"
                else "",
                f"{TYPE_SCORE[t]} {sum(type_score(o.q, o.asked) for o in items) / n:.3f}",
                f"{statistics.fmean(o.rr for o in items):.3f}" if t != "unanswerable" else "",
            ]
        )
    return markdown_table(["type", "questions", "not_found", "recall", "type score", "MRR"], rows)


def verdicts(outcomes: list[Outcome]) -> str:
    return markdown_table(
        ["id", "mode", "recall", "type score", "RR", "question"],
        [
            [
                o.q.id,
                o.asked.mode,
                "yes" if recalled(o.q, o.asked) else "no",
                "yes" if type_score(o.q, o.asked) else "no",
                f"{o.rr:.2f}",
                o.q.question,
            ]
            for o in outcomes
        ],
    )


def dump(path: Path, outcomes: list[Outcome]) -> None:
    rows = [
        {
            "id": o.q.id,
            "type": o.q.type,
            "question": o.q.question,
            "scope": o.q.scope,
            "expect": list(o.q.expect),
            "old": list(o.q.old),
            "docs": list(o.q.docs),
            "window": o.q.window,
            "recall": recalled(o.q, o.asked),
            "type_score": type_score(o.q, o.asked),
            "rr": round(o.rr, 3),
            "answer": o.asked.model_dump(),
            "hits": [h.model_dump() for h in o.searched.hits],
            "search_interpreted_dates": o.searched.interpreted_dates,
        }
        for o in outcomes
    ]
    path.write_text(
        yaml.safe_dump(rows, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8"
    )


def run(split: str, seed: int, keep: Path | None) -> tuple[list[Outcome], str]:
    from knowledge_platform.runtime import Runtime
    from knowledge_platform.settings import Settings

    corpus = generate(seed)
    stale = stale_files(corpus, seed) if seed == DEFAULT_SEED else []
    if stale:
        raise SystemExit(
            f"bench/data/temporal/{', '.join(stale)} differ from the "
            "generator: run .venv/bin/python bench/temporal_data.py "
            "--write-questions"
        )
    if seed == DEFAULT_SEED or split in HAND_WRITTEN:
        questions = load_questions(split)
    else:
        questions = [q for q in corpus.questions if q.split == split]
    root = keep or Path(tempfile.mkdtemp(prefix="kp-temporal-"))
    try:
        layout = write(corpus, root / "corpus")
        if split in HAND_WRITTEN:  # a hand-written set's own documents, beside the generated
            documents, folder = HAND_WRITTEN[split]
            shutil.copytree(documents, layout.workspaces[INTERNAL] / folder, dirs_exist_ok=True)
        config = root / "registry.yaml"
        config.write_text(yaml.safe_dump(registry(layout), sort_keys=False), encoding="utf-8")
        settings = Settings.model_validate(
            {
                "KP_HOME": str(root / "home"),
                "KP_CONFIG": str(config),
                "KP_MODEL_CACHE": str(model_cache()),
            }
        )
        from dagster import DagsterInstance

        instance = DagsterInstance.ephemeral()
        runs = [
            (source, scope, index(settings, instance, source=source, scope=scope))
            for source, scope in SOURCES
        ]
        indexed = ", ".join(f"{source}/{scope} {r.seconds:.1f} s" for source, scope, r in runs)
        runtime = Runtime(settings, embed_threads=1)
        try:
            outcomes = asyncio.run(ask_all(runtime, questions))
        finally:
            runtime.close()
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return outcomes, (f"{len(corpus.documents())} documents; indexed {indexed}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--split", choices=("tune", "holdout", *HAND_WRITTEN), default="holdout")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--dump", type=Path, help="write every question with its answer here")
    parser.add_argument("--keep", type=Path, help="build in this (new) folder and keep it")
    args = parser.parse_args()
    os.environ["KP_NOW"] = KP_NOW  # before the service reads its clock
    started = time.perf_counter()
    outcomes, indexed = run(args.split, args.seed, args.keep)
    f = figures(outcomes)
    table = type_table(outcomes)
    took = sorted(o.seconds * 1000 for o in outcomes)
    summary = (
        f"{args.split} half, {len(outcomes)} questions, seed {args.seed}, KP_NOW={KP_NOW}, "
        f"code {code_version()}; "
        f"{indexed}; knowledge_ask p50 {statistics.median(took):.0f} ms, "
        f"p95 {took[int(0.95 * (len(took) - 1))]:.0f} ms; "
        f"{time.perf_counter() - started:.0f} s in all; {load_average()}"
    )
    last = "temporal: " + " ".join(
        f"{k}={f[k]:.3f}"
        for k in (
            "answerable_recall",
            "notfound_precision",
            "current",
            "dated",
            "conflict_flagged",
            "named",
            "mrr",
        )
    )
    body = (
        f"`.venv/bin/python bench/temporal.py --split {args.split} --seed {args.seed}`\n\n"
        f"{summary}\n\n{table}\n\nnotfound_recall={f['notfound_recall']:.3f}\n\n`{last}`\n\n"
        f"Every question:\n\n{verdicts(outcomes)}\n"
    )
    path = write_results(
        f"temporal-{args.split}", "Answers that know time (dated evaluation)", body
    )
    if args.dump:
        dump(args.dump, outcomes)
    print(summary)
    print(table)
    print(f"written to {path.relative_to(ROOT)}" + (f"; dump: {args.dump}" if args.dump else ""))
    print(f"notfound_recall={f['notfound_recall']:.3f}")
    print(last)


if __name__ == "__main__":
    main()
