"""The crash bench's workload: a memory-files workspace under a throwaway KP_HOME, edited
before every run, with one new probe document per run that search must find from then on."""

from __future__ import annotations

import os
import random
import statistics
from dataclasses import dataclass, field
from pathlib import Path

import yaml

#: Probe words: whole words to the model's tokenizer (one WordPiece token each), each its own
#: stem to the BM25 stemmer, none a stem of the notes' words nor a substring of another. A probe
#: holds two, and no other probe holds either: with words shared among probes (36 words, two
#: per probe), a probe's exact pair fell below the top 5 of its own two words with no kill at
#: all (the probes are near-identical one-line documents), and the bench called it lost.
_WORDS = """
    volcano saxophone glacier lighthouse cathedral penguin tornado violin cactus harbor
    meteor orchard canyon falcon lantern submarine compass dolphin pyramid blizzard cinnamon
    kangaroo galaxy trumpet waterfall avalanche mosquito bamboo hurricane octopus telescope
    vineyard elephant tiger lion zebra monkey rabbit turtle eagle parrot spider beetle
    butterfly shark whale salmon lobster crab oyster squirrel wolf bear deer camel donkey
    horse pony sheep goat chicken duck goose swan pigeon raven hawk frog snake lizard dragon
    unicorn piano guitar drum flute harp cello organ banjo accordion apple banana cherry
    grape lemon lime mango orange peach plum strawberry coconut potato tomato carrot onion
    garlic pepper cabbage pumpkin mushroom olive bread cheese honey sugar salt chocolate
    coffee wine beer milk soup pizza pasta castle palace temple church tower bridge tunnel
    fountain garden forest jungle desert island mountain river lake ocean beach cliff valley
    meadow swamp cave rainbow thunder lightning snow storm cloud sunset sunrise moon star
    planet comet rocket airplane helicopter bicycle motorcycle train tractor truck taxi ship
    boat canoe yacht hammer drill shovel ladder rope chain anchor kite balloon umbrella
    candle mirror clock bell whistle trombone clarinet tuba harmonica magnet crystal diamond
    emerald ruby pearl gold silver copper iron marble granite clay feather leather silk
    cotton wool velvet linen denim blanket pillow carpet curtain wizard knight pirate sailor
    soldier farmer doctor nurse pilot chef painter poet cookie sandwich burger rose lily
    daisy orchid lavender fern moss pine maple willow cedar birch elbow knee shoulder ankle
    wrist thumb finger tooth tongue eyebrow skeleton jaguar leopard panther gorilla panda
    rhino buffalo bison moose peacock vulture sparrow robin canary squid shrimp snail slug
    worm wasp hornet moth cricket scorpion cobra python viper crocodile alligator tent cabin
    barn cottage mansion windmill chimney staircase balcony needle thread button zipper
    pocket scarf glove boot helmet crown sword shield spear cannon pistol dagger trident
    basket bucket barrel bottle bowl plate spoon fork knife kettle oven wagon carriage
    chariot ferry raft zeppelin glider parachute typhoon monsoon drought earthquake tsunami
    eclipse aurora nebula asteroid saturn jupiter mars venus mercury neptune pluto chess
    domino puzzle carousel museum library theater stadium circus aquarium bakery pharmacy
    laundry
"""
WORDS = tuple(_WORDS.split())
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


class ProbeWordsExhausted(RuntimeError):
    """More probes than WORDS can make with no word used twice."""


@dataclass
class Workspace:
    root: Path
    docs: int
    edits: int
    rng: random.Random
    probes: list[tuple[str, str]] = field(default_factory=list)
    _words: list[str] = field(default_factory=list)

    def create(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self._words = self.rng.sample(WORDS, len(WORDS))  # two per probe, each used once
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
        n = len(self.probes)
        if len(self._words) < 2 * (n + 1):
            raise ProbeWordsExhausted(
                f"{len(WORDS)} probe words make {len(WORDS) // 2} probes; probe {n + 1} has none"
            )
        pair = (self._words[2 * n], self._words[2 * n + 1])
        (self.root / f"probe-{n:04d}.md").write_text(
            f"# Probe {n}\n\n{pair[0]} {pair[1]}\n"  # the words alone: nothing to dilute them
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


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0
