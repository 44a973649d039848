"""The crash bench's workload: a memory-files workspace under a throwaway KP_HOME, edited
before every run, with one new probe document per run that search must find from then on."""

from __future__ import annotations

import itertools
import os
import random
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

#: Probe words: whole words to the model's tokenizer and the BM25 stemmer (made-up strings
#: split into word pieces other documents share). A probe holds two, a pair no other has.
WORDS = (
    "volcano",
    "saxophone",
    "glacier",
    "pineapple",
    "lighthouse",
    "cathedral",
    "penguin",
    "tornado",
    "violin",
    "cactus",
    "harbor",
    "meteor",
    "orchard",
    "canyon",
    "falcon",
    "lantern",
    "submarine",
    "tulip",
    "walrus",
    "compass",
    "dolphin",
    "pyramid",
    "blizzard",
    "cinnamon",
    "kangaroo",
    "galaxy",
    "trumpet",
    "waterfall",
    "avalanche",
    "mosquito",
    "bamboo",
    "hurricane",
    "octopus",
    "telescope",
    "vineyard",
    "giraffe",
)
TOPICS = (
    "campaign reporting",
    "checkout analytics",
    "client onboarding",
    "weekly review",
    "experiment design",
    "tracking plan",
    "budget pacing",
    "creative testing",
)


@dataclass
class Workspace:
    root: Path
    docs: int
    edits: int
    rng: random.Random
    probes: list[tuple[str, str]] = field(default_factory=list)
    _pairs: Any = None

    def create(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self._pairs = iter(self.rng.sample(list(itertools.combinations(WORDS, 2)), 600))
        for i in range(self.docs):
            self._write(i, 0)

    def _write(self, i: int, version: int) -> None:
        topic = TOPICS[i % len(TOPICS)]
        body = "\n\n".join(
            f"## Part {p}\nNotes on {topic} for account {i}, revision {version}: the team "
            f"agreed the next steps, owners and dates for item {i}-{p}."
            for p in range(1, 4)
        )
        (self.root / f"note-{i:04d}.md").write_text(f"# Note {i}: {topic}\n\n{body}\n")

    def edit(self, version: int) -> tuple[str, str]:
        """Edit `edits` documents and add a probe; returns the probe's two words."""
        for i in self.rng.sample(range(self.docs), self.edits):
            self._write(i, version)
        pair = next(self._pairs)
        n = len(self.probes)
        (self.root / f"probe-{n:04d}.md").write_text(
            f"# Probe {n}\n\nThe probe words of run {version} are {pair[0]} and {pair[1]}.\n"
        )
        self.probes.append(pair)
        return pair


def registry(home: Path, workspace: Path, embedder: str) -> Path:
    path = home.parent / f"{home.name}-registry.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "embedding": {"provider": embedder},
                "store": {"engine": "edge"},
                "internal": {"sources": {"memory_files": {"path": str(workspace)}}},
            }
        )
    )
    return path


def env(home: Path, config: Path, models: Path) -> dict[str, str]:
    return {
        **os.environ,
        "KP_HOME": str(home),
        "KP_CONFIG": str(config),
        "KP_MODEL_CACHE": str(models),
    }


class Searcher:
    """Search as an agent does (hybrid, the configured model), kept open across runs."""

    def __init__(self, home: Path, config: Path, models: Path) -> None:
        from knowledge_platform.runtime import Runtime
        from knowledge_platform.settings import Settings

        self.runtime = Runtime(
            Settings.model_validate(
                {"KP_HOME": home, "KP_CONFIG": config, "KP_MODEL_CACHE": models}
            )
        )

    def missing(self, probes: list[tuple[str, str]]) -> list[tuple[str, str]]:
        out = []
        for a, b in probes:
            hits = self.runtime.retriever.search("internal", f"{a} {b}", limit=5)
            if not any(a in h.chunk.text and b in h.chunk.text for h in hits):
                out.append((a, b))
        return out

    def close(self) -> None:
        self.runtime.close()


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0
