"""What the generator builds: workspaces of markdown files, a handbook of dated commits, and
the labelled questions, with the fixed rule that splits them into a tune and a held-out half."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

QType = Literal["answerable", "current", "dated", "conflict", "named", "unanswerable"]
TYPES: tuple[QType, ...] = ("answerable", "current", "dated", "conflict", "named", "unanswerable")
Split = Literal["tune", "holdout"]
SPLITS: tuple[Split, ...] = ("tune", "holdout")
INTERNAL = "internal"
CLIENT_SCOPE = "quayside_ferries"


@dataclass(frozen=True)
class Question:
    """One labelled question. `expect`: any one of these strings answers it (for a conflict,
    both values; `newer` names the newer one). `old`: a current question's old value, a dated
    question's out-of-window values of the same subject. `docs`: path suffixes of the
    documents that answer it (a conflict's newer one first; a named record's path).
    `subject`/`absent`: an unanswerable question's subject, and the attribute the corpus never
    states about it."""

    id: str
    type: QType
    template: str
    instance: str
    question: str
    split: Split = "tune"
    scope: str = INTERNAL
    expect: tuple[str, ...] = ()
    old: tuple[str, ...] = ()
    newer: str = ""
    docs: tuple[str, ...] = ()
    superseded: bool = False
    window: str = ""
    subject: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()

    def as_yaml(self) -> dict[str, Any]:
        """Only the fields that say something, tuples as lists."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value in ((), "", False) and f.name not in ("expect",):
                continue
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_yaml(cls, row: dict[str, Any]) -> Question:
        known = {f.name for f in fields(cls)}
        unknown = set(row) - known
        if unknown:
            raise ValueError(f"question {row.get('id')}: unknown fields {sorted(unknown)}")
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in row.items()}
        return cls(**values)


@dataclass
class Page:
    """A markdown file built up section by section: a standing file, a log, a record."""

    title: str
    meta: dict[str, Any] = field(default_factory=dict)
    sections: dict[str, list[str]] = field(default_factory=dict)
    intro: list[str] = field(default_factory=list)

    def add(self, section: str, line: str) -> None:
        self.sections.setdefault(section, []).append(line)

    def render(self, *, bullets: bool = False) -> str:
        out: list[str] = []
        if self.meta:
            out += ["---", *(f"{k}: {_yaml_value(v)}" for k, v in self.meta.items()), "---"]
        out += [f"# {self.title}", ""]
        if self.intro:
            out += [*self.intro, ""]
        for heading, lines in self.sections.items():
            if not lines:
                continue
            out += [f"## {heading}", *((f"- {x}" for x in lines) if bullets else lines), ""]
        return "\n".join(out).rstrip() + "\n"


def _yaml_value(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, str) and (":" in value or value[:1] in "'\"[{&*#"):
        return '"' + value.replace('"', '\\"') + '"'
    return str(value)


@dataclass
class Workspace:
    """A memory_files folder: standing files at its root, daily logs under memory/."""

    standing: dict[str, Page] = field(default_factory=dict)
    logs: dict[dt.date, Page] = field(default_factory=dict)

    def log(self, day: dt.date) -> Page:
        if day not in self.logs:
            self.logs[day] = Page(f"{day.isoformat()} daily log")
        return self.logs[day]

    def files(self) -> dict[str, str]:
        out = {path: page.render() for path, page in self.standing.items()}
        out |= {
            f"memory/{day.isoformat()}.md": page.render(bullets=True)
            for day, page in sorted(self.logs.items())
        }
        return out


@dataclass(frozen=True)
class Commit:
    day: dt.date
    path: str
    text: str
    message: str


@dataclass
class Corpus:
    workspaces: dict[str, Workspace]
    handbook: list[Commit] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    def handbook_files(self) -> dict[str, str]:
        """Each handbook path's text at the last commit."""
        out: dict[str, str] = {}
        for commit in sorted(self.handbook, key=lambda c: c.day):
            out[commit.path] = commit.text
        return out

    def documents(self) -> dict[tuple[str, str], str]:
        """(scope, path) -> text of every document the bench indexes."""
        out = {
            (scope, path): text
            for scope, ws in self.workspaces.items()
            for path, text in ws.files().items()
        }
        out |= {(INTERNAL, path): text for path, text in self.handbook_files().items()}
        return out


def split_questions(questions: list[Question]) -> list[Question]:
    """The fixed rule: within each type, instances (a fact and all its phrasings) alternate
    tune, holdout, tune, ... in generation order; ids are `<type>-<instance no><letter>`."""
    out: list[Question] = []
    for qtype in TYPES:
        of_type = [q for q in questions if q.type == qtype]
        order = list(dict.fromkeys(q.instance for q in of_type))
        for q in of_type:
            n = order.index(q.instance)
            letter = "abcdefgh"[
                [x.question for x in of_type if x.instance == q.instance].index(q.question)
            ]
            out.append(replace(q, id=f"{qtype}-{n + 1:02d}{letter}", split=SPLITS[n % 2]))
    return out
