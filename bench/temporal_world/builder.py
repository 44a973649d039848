"""The generator's workbench: scenario modules put lines into places (a standing file's
section, a handbook page, a day's log, a decision record) and record the questions those
lines answer, so every label is written by the same code that writes its fact."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from typing import Any

from .clock import d
from .model import CLIENT_SCOPE, INTERNAL, Commit, Corpus, Page, Question, Workspace
from .world import CLIENT_STANDING, HANDBOOK, STANDING


class Builder:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.workspaces = {
            INTERNAL: _workspace(STANDING),
            CLIENT_SCOPE: _workspace(CLIENT_STANDING),
        }
        self.pages = {
            path: Page(title, meta={"title": title, "updated": day})
            for path, (title, day) in HANDBOOK.items()
        }
        self.records: list[Commit] = []
        self.questions: list[Question] = []
        self._values: set[str] = set()

    # -- places -------------------------------------------------------------------------
    def put(self, place: str, line: str, *, scope: str = INTERNAL) -> str:
        """Write `line` at `place` ("path#Section" of a standing file or handbook page, or
        "log:YYYY-MM-DD"); returns the document's path."""
        if place.startswith("log:"):
            return self.note(d(place[4:]), line, scope=scope)
        path, _, section = place.partition("#")
        page = self.pages.get(path) if scope == INTERNAL else None
        if page is None:
            page = self.workspaces[scope].standing[path]
        page.add(section, line)
        return path

    def note(self, day: dt.date, line: str, *, scope: str = INTERNAL) -> str:
        self.workspaces[scope].log(day).add("Notes", line)
        return log_path(day)

    def date_of(self, path: str, *, scope: str = INTERNAL) -> dt.date:
        page = self.pages.get(path) if scope == INTERNAL else None
        page = page or self.workspaces[scope].standing[path]
        meta = page.meta
        return d(str(meta.get("updated") or meta.get("reviewed")))

    # -- labels -------------------------------------------------------------------------
    def ask(
        self, qtype: Any, template: str, instance: str, questions: tuple[str, ...], **labels: Any
    ) -> None:
        for text in questions:
            self.questions.append(
                Question(
                    id="", type=qtype, template=template, instance=instance, question=text, **labels
                )
            )

    def value(self, make: Callable[[random.Random], str]) -> str:
        """A fresh value no other value contains or is contained in."""
        for _ in range(1000):
            v = make(self.rng)
            if not any(v in u or u in v for u in self._values):
                self._values.add(v)
                return v
        raise RuntimeError("no fresh value after 1000 draws")

    def reserve(self, *values: str) -> None:
        self._values.update(values)

    # -- the result ---------------------------------------------------------------------
    def corpus(self) -> Corpus:
        pages = [
            Commit(d(str(page.meta["updated"])), path, page.render(), f"{page.title}: as reviewed")
            for path, page in self.pages.items()
        ]
        return Corpus(self.workspaces, handbook=pages + self.records, questions=self.questions)


def log_path(day: dt.date) -> str:
    return f"memory/{day.isoformat()}.md"


def _workspace(standing: dict[str, tuple[str, str, str]]) -> Workspace:
    return Workspace(
        standing={
            path: Page(title, meta={key: day}) for path, (title, key, day) in standing.items()
        }
    )
