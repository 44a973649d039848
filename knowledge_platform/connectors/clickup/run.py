"""What one ClickUp pull shares between its task and doc halves: the API, the scope and its
containers, what the index knows, the lookup budget, and what each half found."""

from __future__ import annotations

from dataclasses import dataclass, field

from knowledge_platform.connectors.base import Known, Skipped
from knowledge_platform.connectors.clickup.api import ClickUpApi
from knowledge_platform.connectors.clickup.containers import Containers
from knowledge_platform.models import Document


@dataclass
class Budget:
    """Lookups of vanished tasks and docs left this run."""

    left: int

    def take(self) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        return True


@dataclass(frozen=True)
class Run:
    api: ClickUpApi
    scope: str
    containers: Containers
    known: Known
    full: bool
    budget: Budget


@dataclass
class Outcome:
    documents: list[Document] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
