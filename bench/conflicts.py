"""Precision/recall of the conflict detector on labelled pairs of passages.

Each pair (bench/data/conflict_pairs*.yaml) is two passages from different documents that both
answer a question, labelled `conflict: true` when they give different values for the same
thing and `false` when they say the same in other words or speak of different things.

- rule-based (always): knowledge_platform.serve.answers.conflicts.disagreement, the detector
  knowledge_ask runs without a language model;
- `--model`: the chat model as knowledge_ask's LLM mode asks it (the answer prompt, whose
  `CONFLICT: [a] vs [b]` lines become conflicts), with the key in $OPENAI_API_KEY and
  `--base-url` for a compatible server.

conflict_pairs.yaml is the set the rules were written against (rows printed as `tune`);
conflict_pairs_holdout.yaml was written after them and is the held-out figure.

    uv run python bench/conflicts.py [--model gpt-4o-mini] [--base-url URL]

The last line printed is the rule-based detector on the held-out pairs.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from _common import ROOT, markdown_table, write_results

from knowledge_platform.config.registry import AnswerConfig
from knowledge_platform.models import Chunk, Hit
from knowledge_platform.serve.answers.conflicts import Statement, disagreement
from knowledge_platform.serve.answers.llm import build_messages, chat, model_conflicts
from knowledge_platform.serve.answers.sources import Sources
from knowledge_platform.serve.question import Question

DATA = ROOT / "bench" / "data"


@dataclass
class Pair:
    question: str
    a: Statement
    b: Statement
    conflict: bool


def load(path: Path) -> list[Pair]:
    rows: list[dict[str, Any]] = yaml.safe_load(path.read_text(encoding="utf-8"))["pairs"]
    return [
        Pair(
            r["question"],
            Statement(r["a"], r.get("a_context", "")),
            Statement(r["b"], r.get("b_context", "")),
            bool(r["conflict"]),
        )
        for r in rows
    ]


def rule_based(pair: Pair) -> bool:
    return disagreement(pair.question, pair.a, pair.b) is not None


def _hit(n: int, statement: Statement) -> Hit:
    headers = statement.context.split(" > ") if statement.context else []
    chunk = Chunk(
        id=f"c{n}",
        doc_id=f"bench:{n}",
        source="bench",
        source_id=str(n),
        scope="internal",
        title=headers[0] if headers else f"Document {n}",
        text=statement.text,
        headers=headers,
        ordinal=0,
        kind="doc",
        date=dt.date(2026, 1, n),
    )
    return Hit(chunk=chunk, score=1.0)


def by_model(config: AnswerConfig, api_key: str) -> Callable[[Pair], bool]:
    def judge(pair: Pair) -> bool:
        sources = Sources([_hit(1, pair.a), _hit(2, pair.b)])
        text = chat(build_messages(Question.plain(pair.question), sources), config, api_key)
        return bool(model_conflicts(text, {1, 2})[1])

    return judge


def figures(pairs: list[Pair], detect: Any) -> tuple[dict[str, float], list[str]]:
    tp = fp = fn = 0
    errors = []
    for pair in pairs:
        found = detect(pair)
        tp += found and pair.conflict
        fp += found and not pair.conflict
        fn += pair.conflict and not found
        if found != pair.conflict:
            kind = "missed" if pair.conflict else "false alarm"
            errors.append(f"- {kind}: {pair.a.text} | {pair.b.text}")
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return {
        "precision": precision,
        "recall": recall,
        "conflicts": sum(p.conflict for p in pairs),
        "pairs": len(pairs),
    }, errors


def main() -> None:
    parser = argparse.ArgumentParser(description="Precision/recall of the conflict detector.")
    parser.add_argument("--model", help="also judge with this chat model ($OPENAI_API_KEY)")
    parser.add_argument("--base-url", help="an OpenAI-compatible server")
    args = parser.parse_args()
    sets = {
        "tune (conflict_pairs)": load(DATA / "conflict_pairs.yaml"),
        "held-out (conflict_pairs_holdout)": load(DATA / "conflict_pairs_holdout.yaml"),
    }
    detectors: dict[str, Any] = {"rule-based": rule_based}
    if args.model:
        key = os.environ.get("OPENAI_API_KEY")
        if not key:
            raise SystemExit("--model needs the API key in OPENAI_API_KEY")
        config = AnswerConfig(model=args.model, base_url=args.base_url)
        detectors[f"model {args.model}"] = by_model(config, key)
    rows, notes = [], []
    for detector, detect in detectors.items():
        for name, pairs in sets.items():
            f, errors = figures(pairs, detect)
            rows.append(
                [
                    detector,
                    name,
                    f"{f['pairs']:.0f} ({f['conflicts']:.0f} conflicts)",
                    f"{f['precision']:.3f}",
                    f"{f['recall']:.3f}",
                ]
            )
            notes += [f"{detector}, {name}:", *errors, ""]
    table = markdown_table(["detector", "set", "pairs", "precision", "recall"], rows)
    path = write_results(
        "conflicts",
        "Conflict detector precision/recall",
        f"{table}\n\nErrors:\n\n" + "\n".join(notes),
    )
    print(table)
    print("\n".join(notes))
    print(f"written to {path.relative_to(ROOT)}")
    f, _ = figures(sets["held-out (conflict_pairs_holdout)"], rule_based)
    print(
        f"conflicts precision={f['precision']:.3f} recall={f['recall']:.3f} "
        f"(rule-based, held-out, {f['pairs']:.0f} pairs)"
    )


if __name__ == "__main__":
    main()
