"""Does `knowledge_ask` know when the knowledge base cannot answer? Precision/recall of
"answerable" on labelled questions over the demo.

The demo registry's `internal` scope (demo/workspace memory files + demo/handbook from git)
is indexed with the local model into a temporary KP_HOME; every question goes through the
`knowledge_ask` MCP tool (in-memory client, admin principal, no chat model) with the
threshold at 0, so each answer carries its best sentence score as `confidence`. A question
counts as answered when that score reaches the threshold; "correct" means the answer also
quotes one of the labelled texts.

- bench/data/demo_questions.yaml: the threshold is calibrated (best F1) on its even rows
  and checked on its odd rows;
- bench/data/demo_questions_holdout.yaml: written after the scoring rules, never tuned on.

    uv run python bench/answerable.py

The last line printed is the held-out figure at the committed threshold (MIN_SCORE).
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from _common import ROOT, load_average, markdown_table, model_cache, write_results
from fastmcp import Client

from knowledge_platform.config.registry import AnswerConfig
from knowledge_platform.ingest.indexing import index_scope
from knowledge_platform.ingest.runtime import IngestRuntime
from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.answers.relevance import MIN_SCORE
from knowledge_platform.settings import Settings
from mcp_service.server import build_server

DATA = ROOT / "bench" / "data"


@dataclass
class Case:
    question: str
    answerable: bool
    expect: list[str]
    score: float = 0.0
    answer: str = ""
    seconds: float = 0.0

    def correct(self) -> bool:
        return self.answerable and any(e in self.answer for e in self.expect)


def load(path: Path) -> list[Case]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [Case(d["question"], True, list(d["expect"])) for d in data["answerable"]] + [
        Case(q, False, []) for q in data["not_answerable"]
    ]


async def ask_all(runtime: Runtime, cases: list[Case]) -> None:
    async with Client(build_server(runtime, default_principal="compass")) as client:
        for case in cases:
            started = time.perf_counter()
            result = await client.call_tool("knowledge_ask", {"question": case.question})
            case.seconds = time.perf_counter() - started
            answer: dict[str, Any] = result.structured_content or {}
            case.score = float(answer["confidence"])
            case.answer = answer["answer"]


def figures(cases: list[Case], threshold: float) -> dict[str, float]:
    answered = [c for c in cases if c.score >= threshold]
    tp = sum(1 for c in answered if c.answerable)
    positives = sum(1 for c in cases if c.answerable)
    precision = tp / len(answered) if answered else 1.0
    recall = tp / positives if positives else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    correct = sum(1 for c in answered if c.correct())
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "correct": correct / positives if positives else 0.0,
    }


def calibrate(cases: list[Case]) -> float:
    """The threshold with the best F1 (ties: the higher, for precision), placed midway
    between that score and the next lower one (every threshold between them scores alike)."""
    scores = sorted({round(c.score, 4) for c in cases} | {0.0})
    best = max(scores, key=lambda t: (round(figures(cases, t)["f1"], 6), t))
    lower = max((s for s in scores if s < best), default=0.0)
    return round((best + lower) / 2, 3)


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="kp-answerable-"))
    settings = Settings.model_validate(
        {
            "KP_HOME": str(root / "home"),
            "KP_CONFIG": str(ROOT / "demo" / "registry.yaml"),
            "KP_MODEL_CACHE": str(model_cache()),
        }
    )
    main_set = load(DATA / "demo_questions.yaml")
    holdout = load(DATA / "demo_questions_holdout.yaml")
    runtime = IngestRuntime(settings, embed_threads=1)
    # no chat model, and every answer's best score reported (the threshold applied here)
    runtime.registry = runtime.registry.model_copy(
        update={"answer": AnswerConfig(api_key_env="KP_BENCH_NO_CHAT_MODEL", min_score=0.0)}
    )
    try:
        index_scope(runtime, "internal")
        asyncio.run(ask_all(runtime, main_set + holdout))
    finally:
        runtime.close()
        shutil.rmtree(root, ignore_errors=True)
    calibration = [
        c for group in (True, False) for c in [x for x in main_set if x.answerable == group][::2]
    ]
    check = [c for c in main_set if c not in calibration]
    calibrated = calibrate(calibration)
    rows = []
    for name, cases in (
        ("calibration (demo_questions even rows)", calibration),
        ("check (demo_questions odd rows)", check),
        ("held-out (demo_questions_holdout)", holdout),
    ):
        for label, t in (("calibrated", calibrated), ("committed MIN_SCORE", MIN_SCORE)):
            f = figures(cases, t)
            rows.append(
                [
                    name,
                    str(len(cases)),
                    f"{label} {t:.3f}",
                    f"{f['precision']:.3f}",
                    f"{f['recall']:.3f}",
                    f"{f['f1']:.3f}",
                    f"{f['correct']:.3f}",
                ]
            )
    table = markdown_table(
        ["set", "questions", "threshold", "precision", "recall", "F1", "answered correctly"], rows
    )
    misses = [
        f"- {'answerable' if c.answerable else 'not answerable'}, score {c.score:.3f}: {c.question}"
        for c in main_set + holdout
        if (c.score >= MIN_SCORE) != c.answerable
    ]
    wrong = [
        f"- answered with none of the expected texts, score {c.score:.3f}: {c.question}"
        for c in main_set + holdout
        if c.answerable and c.score >= MIN_SCORE and not c.correct()
    ]
    every = markdown_table(
        ["set", "label", "score", "quotes an expected text", "question"],
        [
            [
                name,
                "answerable" if c.answerable else "not",
                f"{c.score:.3f}",
                ("yes" if c.correct() else "no") if c.answerable else "",
                c.question,
            ]
            for name, cases in (
                ("calibration", calibration),
                ("check", check),
                ("held-out", holdout),
            )
            for c in cases
        ],
    )
    took = sorted(c.seconds * 1000 for c in main_set + holdout)
    latency = (
        f"knowledge_ask in-process p50 {statistics.median(took):.0f} ms, "
        f"p95 {took[int(0.95 * (len(took) - 1))]:.0f} ms"
    )
    body = (
        f"{load_average()}; local all-MiniLM-L6-v2 int8; `knowledge_ask` over the MCP "
        f"in-memory client; {latency}.\n\n{table}\n\nMisjudged at MIN_SCORE {MIN_SCORE}:\n\n"
        + "\n".join(misses or ["- none"])
        + "\n\n"
        + "\n".join(wrong)
        + f"\n\nEvery question:\n\n{every}\n"
    )
    path = write_results("answerable", "Answerable-question precision/recall (demo)", body)
    print(table)
    print("\n".join(misses + wrong))
    print(latency)
    print(f"written to {path.relative_to(ROOT)}")
    if abs(calibrated - MIN_SCORE) > 0.005:
        print(f"note: the calibration half suggests {calibrated:.3f}; committed {MIN_SCORE}")
    f = figures(holdout, MIN_SCORE)
    print(
        f"answerable precision={f['precision']:.3f} recall={f['recall']:.3f} "
        f"threshold={MIN_SCORE} (held-out, {len(holdout)} questions)"
    )


if __name__ == "__main__":
    main()
