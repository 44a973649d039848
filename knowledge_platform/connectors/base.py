"""The connector interface: a source pulls documents for one scope, fully or incrementally."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Self, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializeAsAny,
    ValidationInfo,
    model_validator,
)

from knowledge_platform.connectors.cursor import BaseCursor, C, load_cursor
from knowledge_platform.models import Confidentiality, Document
from knowledge_platform.secrets.fields import SecretFields


class Skipped(BaseModel):
    """A sub-resource the pull could not read — a task, a file, a page, a table, a whole
    ClickUp doc — and why. Its documents (`source_id` and `covers`) keep their last good
    version, marked stale, and are fetched again by the next pull. With `gone=True` the
    source itself said the sub-resource no longer exists (404, `deleted: true`, trashed):
    its documents are removed, as confirmed deletions. With `unsupported=True` the source
    holds it but the platform does not index its type (an image upload, a Google Form, a
    linked file): it is listed as "not indexed" in the run that finds it (or a new version of
    it), is not a failure of the pull and is not fetched again; a document it gave before (a
    type since dropped from the settings) is removed.

    With `vanished=True` a *container* (a table, a sitemap, a list) answered "not found" as a
    whole: that is an inferred deletion, never a confirmed one (PostgREST answers 404 while
    its schema cache is stale; a sitemap generator can drop a file for a deploy). Its
    documents keep their last good version, marked stale, and are held by the deletion guard
    until the container answers again or a full reconcile applies the deletion. With
    `refused=True` the registry's own scoping rules refuse the sub-resource (a `shared` table
    whose rows name a client): its documents leave the scope and the pull is incomplete until
    the registry is fixed."""

    source_id: str
    reason: str
    #: Further documents this sub-resource holds (a doc's pages, a table's rows).
    covers: list[str] = Field(default_factory=list)
    gone: bool = False
    unsupported: bool = False
    vanished: bool = False
    refused: bool = False

    @property
    def source_ids(self) -> list[str]:
        return [self.source_id, *self.covers]


def _no_cursor() -> Any:
    """A pull that keeps no state between pulls (the merge's tests build such results)."""
    return BaseCursor()


class PullResult(BaseModel, Generic[C]):
    """What one pull found (see docs/sync-contract.md).

    `full=True`: `documents` is the complete current set of the source for the scope; a known
    document absent from it (and not skipped) is gone *by inference*. `full=False`:
    `documents` are new or changed ones only; everything not named is unchanged.
    Either way `deleted` names documents the source *confirmed* gone (a tombstone, a 404, a
    move out of the scope, a git diff) and `missing` names documents a listing no longer
    shows without a confirmation (an id sweep). Confirmed deletions are always applied;
    inferred ones (`missing`, and absence from a full pull) count against the deletion guard.
    `cursor` is the state the next pull receives back (page tokens, high-water marks), an
    instance of the connector's `cursor_model` (cursor.py).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    documents: list[Document]
    full: bool
    deleted: list[str] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    skipped: list[Skipped] = Field(default_factory=list)
    cursor: SerializeAsAny[C] = Field(default_factory=_no_cursor)
    #: Requests made to the source, for metadata and tests of incremental behaviour.
    requests: int = 0


@dataclass(frozen=True)
class Known:
    """What the index holds for the scope before this pull: the last good documents by source
    id, and the ids the previous pull could not read (to be fetched again now)."""

    documents: Mapping[str, Document] = field(default_factory=dict)
    retry: frozenset[str] = frozenset()


NOTHING_KNOWN = Known()


@dataclass(frozen=True)
class Hint:
    """What push events (webhooks) named since the last run: source ids to read again now,
    and those the source said it deleted. A connector that can act on ids alone does so
    without a listing (`Connector.pull_hinted`); polling stays the reconciliation path."""

    ids: frozenset[str] = frozenset()
    deleted: frozenset[str] = frozenset()


class SourceSettings(SecretFields):
    """Base of every connector's registry settings; unknown keys are an error. A secret is
    a `<name>_env` / `<name>_ref` pair (knowledge_platform.secrets.fields)."""

    model_config = ConfigDict(extra="forbid")

    #: Confidentiality of this source's documents unless a document says otherwise (front
    #: matter in memory files and git docs): who may read them, see access.VISIBLE.
    confidentiality: Confidentiality = "internal"

    #: The registry's client ids (validation context "clients").
    _client_ids: tuple[str, ...] = PrivateAttr(default=())
    #: Containers other scopes name for this source (`with_elsewhere`).
    _elsewhere: frozenset[str] = PrivateAttr(default=frozenset())

    @model_validator(mode="after")
    def _registry_context(self, info: ValidationInfo) -> Self:
        context = info.context if isinstance(info.context, dict) else {}
        self._client_ids = tuple(context.get("clients") or ())
        return self

    @property
    def client_ids(self) -> tuple[str, ...]:
        return self._client_ids

    @property
    def elsewhere(self) -> frozenset[str]:
        """Ids of containers another scope names: this scope never reads them, even below a
        container it names itself (the most specific claim wins)."""
        return self._elsewhere

    def with_elsewhere(self, ids: frozenset[str]) -> Self:
        copy = self.model_copy()
        copy._elsewhere = ids
        return copy

    def containers(self) -> list[tuple[str, str]]:
        """(registry key, id) of each container this scope names, for a source that reads
        several clients' data through one credential and can tell a container by its id;
        [] for the others."""
        return []

    @classmethod
    def check_scopes(cls, by_scope: Mapping[str, SourceSettings]) -> None:
        """Rules across the scopes configuring this source, checked when the registry is read
        (e.g. one container named by two scopes); raises ValueError saying what to fix. Each
        scope's own settings were validated already."""
        del by_scope

    @classmethod
    def mine(cls, by_scope: Mapping[str, SourceSettings]) -> dict[str, Self]:
        """`by_scope` typed as this settings class (the registry passes one source's)."""
        return {scope: cfg for scope, cfg in by_scope.items() if isinstance(cfg, cls)}


class Connector(ABC, Generic[C]):
    """A source's connector, generic in its cursor model `C`: `pull` receives the previous
    pull's cursor typed and returns the next one in `PullResult.cursor`."""

    #: The source name: asset key prefix, payload `source`, registry key.
    name: ClassVar[str]
    settings_model: ClassVar[type[SourceSettings]]
    #: The cursor's model: `C` itself (a ClassVar cannot name the type variable, so the
    #: conformance tests check that the two agree).
    cursor_model: ClassVar[type[BaseCursor]]

    def __init__(self, settings: SourceSettings, scope: str) -> None:
        self.settings = settings
        self.scope = scope

    def load_cursor(self, stored: Mapping[str, Any] | None) -> C | None:
        """A stored cursor (cursor.json) as this connector's model; None when there is none
        or it is of a layout this model does not read (logged; the next pull is a full one)."""
        return cast(C | None, load_cursor(self.cursor_model, stored, f"{self.name}:{self.scope}"))

    @abstractmethod
    def pull(
        self, cursor: C | None, *, full: bool = False, known: Known = NOTHING_KNOWN
    ) -> PullResult[C]:
        """Pull the scope's documents. `cursor` is the previous pull's, or None the first time
        (and when the stored one could not be read);
        `full=True` asks for a complete listing (the weekly sweep) whatever the cursor says.
        `known` is what the index holds: an incremental pull must fetch `known.retry` again.
        Raises SourceError on an outage of the whole source; a failing sub-resource is a
        `Skipped` entry instead. Never returns a partial listing as `full`."""

    def pull_hinted(
        self, cursor: C, hint: Hint, known: Known = NOTHING_KNOWN
    ) -> PullResult[C] | None:
        """An ordinary pull of only what `hint` names (incremental: `full=False`); None when
        this source cannot read by id, and an ordinary `pull` runs instead."""
        del cursor, hint, known
        return None

    def probe(self, cursor: C | Mapping[str, Any] | None) -> str | None:
        """A cheap token of the source's current state (a commit sha, a change-feed token)
        that differs as soon as a pull would find something new. None: this source has no
        cheap probe and is polled by schedules instead. `cursor`: the last pull's, typed or as
        stored (the change sensor passes cursor.json's content); see `change_token`."""
        typed = cursor if isinstance(cursor, BaseCursor) else self.load_cursor(cursor)
        return self.change_token(typed)

    def change_token(self, cursor: C | None) -> str | None:
        """What `probe` answers, from the typed cursor (None: none stored, or unreadable).
        A source with a cheap probe overrides this."""
        del cursor
        return None
