"""The crash bench's probe check: search as an agent does, and for a probe it misses, what
happened to it — a stale reader, a ranking miss, a chunk never published, a file never
pulled — each found by a lookup that does not rank."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from knowledge_platform.ingest.runtime import IngestRuntime

SOURCE, SCOPE = "memory_files", "internal"
#: How deep a probe search looks (an agent's default) and how deep a ranking miss is ranked.
TOP, DEPTH = 5, 50

#: What a missed probe's lookups found, in the order they are tried.
STALE = "stale reader"  # a freshly opened Runtime's search finds it: the kept one is behind
FILTERED = "filtered out"  # published, but not as a "stable" chunk search returns
RANKED = "ranked out"  # published and searchable, below the top 5 of its own words
UNPUBLISHED = "unpublished"  # in the raw snapshot, not in the published collection
UNPULLED = "unpulled"  # not even in the raw snapshot of the latest successful pull
KINDS = (STALE, FILTERED, RANKED, UNPUBLISHED, UNPULLED)


@dataclass(frozen=True)
class Miss:
    probe: tuple[str, str]
    kind: str
    #: Where a freshly opened Runtime ranks the probe's chunk (within DEPTH; 0: not there).
    rank: int = 0


def _has(text: str, probe: tuple[str, str]) -> bool:
    return probe[0] in text and probe[1] in text


def _runtime(home: Path, config: Path, models: Path) -> IngestRuntime:
    from knowledge_platform.ingest.runtime import IngestRuntime
    from knowledge_platform.settings import Settings

    return IngestRuntime(
        Settings.model_validate({"KP_HOME": home, "KP_CONFIG": config, "KP_MODEL_CACHE": models})
    )


def _rank(runtime: IngestRuntime, probe: tuple[str, str], depth: int) -> int:
    """1-based rank of the probe's chunk among `depth` hits for its words (0: not among)."""
    hits = runtime.retriever.search(SCOPE, " ".join(probe), limit=depth)
    return next((i for i, h in enumerate(hits, 1) if _has(h.chunk.text, probe)), 0)


def _diagnose(fresh: IngestRuntime, probe: tuple[str, str]) -> Miss:
    from knowledge_platform.store.base import SearchFilter

    rank = _rank(fresh, probe, DEPTH)
    if 0 < rank <= TOP:
        return Miss(probe, STALE, rank)
    published = [  # an exact lookup: every chunk of the source, whatever its lifecycle
        c
        for c in fresh.store.scroll(SCOPE, SearchFilter(sources=[SOURCE], lifecycles=None))
        if _has(c.text, probe)
    ]
    if published:
        stable = any(c.lifecycle == "stable" for c in published)
        return Miss(probe, RANKED if stable else FILTERED, rank)
    raw = fresh.snapshots.read_documents(SOURCE, SCOPE) or []
    pulled = any(_has(d.text, probe) for d in raw)
    return Miss(probe, UNPUBLISHED if pulled else UNPULLED, rank)


class Searcher:
    """Search as an agent does (hybrid, the configured model), kept open across runs; a miss
    is looked into with a Runtime opened for it."""

    def __init__(self, home: Path, config: Path, models: Path) -> None:
        self.where = (home, config, models)
        self.runtime = _runtime(home, config, models)

    def misses(self, probes: list[tuple[str, str]]) -> list[Miss]:
        missed = [p for p in probes if _rank(self.runtime, p, TOP) == 0]
        if not missed:
            return []
        fresh = _runtime(*self.where)
        try:
            return [_diagnose(fresh, p) for p in missed]
        finally:
            fresh.close()

    def close(self) -> None:
        self.runtime.close()
