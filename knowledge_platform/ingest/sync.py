"""The sync contract's merge (docs/sync-contract.md): one pull applied to the last good
snapshot of a source x scope.

- Confirmed deletions (the source said so) are applied, however many.
- Inferred deletions (absent from a full listing, or `missing` from an id sweep) count
  against the deletion guard; over it they are *held* — the documents stay, the run goes on
  with every other change, and the hold is reported until a full reconcile or the next
  listing that shows them again.
- A sub-resource that failed keeps its documents at their last good version, marked stale in
  provenance (why, and when that version was last read as current: the pull before the
  failure), and is fetched again by the next pull.
- A container that answered "not found" as a whole (`Skipped.vanished`) is an inferred
  deletion: its documents are kept the same way and held (the guard's check fails) until it
  answers again or a full reconcile removes them.
- A sub-resource the registry's own rules refuse (`Skipped.refused`) leaves the scope.
- A sub-resource of a type the platform does not index is listed, never retried, and is no
  failure (the `<source>_pull_complete` check counts only "kept" and "not indexed").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

from knowledge_platform.connectors.base import Connector, Hint, Known, PullResult
from knowledge_platform.errors import KnowledgePlatformError
from knowledge_platform.ingest.snapshots import SnapshotStore
from knowledge_platform.ingest.sync_state import HeldDeletions, Problem, SyncState
from knowledge_platform.models import LAST_REFRESHED, STALE, Document
from knowledge_platform.supersession import link_successors

#: Below this many deletions the share rule does not apply (editing a 3-file demo is normal).
GUARD_MIN_DELETIONS = 5


def guard_excess(
    existing: int,
    stale: int,
    remaining: int,
    guard: float,
    *,
    step: str = "reconcile",
    unit: str = "points",
) -> str | None:
    """Why deleting `stale` of `existing` items (leaving `remaining`) is too much for the
    guard — all of them, or more than `guard` of them and more than GUARD_MIN_DELETIONS —
    or None when it is not."""
    if stale == 0:
        return None
    if remaining == 0:
        return (
            f"{step} would remove all {existing} {unit} (a source outage?); refusing to "
            "empty the collection. Re-run with a full reconcile if this is intended"
        )
    if stale > GUARD_MIN_DELETIONS and stale > guard * existing:
        return (
            f"{step} would delete {stale} of {existing} {unit} ({stale / existing:.0%}), "
            f"over the {guard:.0%} guard; re-run with a full reconcile if this is intended"
        )
    return None


@dataclass
class MergeStats:
    documents: int = 0
    changed: int = 0
    #: removed from the snapshot: confirmed + inferred deletions applied
    deleted: int = 0
    confirmed: int = 0
    inferred: int = 0
    held: int = 0
    skipped: int = 0
    stale: int = 0


class NotHinted(KnowledgePlatformError):
    """A pull was asked to read only the hinted ids, and the connector cannot."""


@dataclass
class Merged:
    documents: list[Document]
    stats: MergeStats
    problems: list[Problem] = field(default_factory=list)
    #: source ids whose inferred deletion the guard held, and why
    held: list[str] = field(default_factory=list)
    held_reason: str | None = None
    #: source ids removed on the source's word this pull
    confirmed: list[str] = field(default_factory=list)
    #: source ids to fetch again next pull (they failed this time)
    retry: list[str] = field(default_factory=list)


def _stale(doc: Document, reason: str, refreshed: str | None) -> Document:
    """`doc` kept: why (`extra[STALE]`), and when it was last read as current — the pull
    before its first failure, if known (a document stale already keeps what it says)."""
    since = {} if STALE in doc.extra or not refreshed else {LAST_REFRESHED: refreshed}
    extra = {**doc.extra, STALE: reason, **since}
    return doc if extra == doc.extra else doc.model_copy(update={"extra": extra})


def merge_pull(
    previous: Sequence[Document] | None,
    result: PullResult,
    *,
    guard: float = 0.3,
    full_reconcile: bool = False,
    refreshed: str | None = None,
) -> Merged:
    """The new snapshot. Supersession links are resolved over the whole of it (a new record
    can supersede an unchanged one, which then counts as changed). `refreshed`: when
    `previous` was pulled (ISO 8601), if known."""
    before = {d.source_id: d for d in previous or []}
    fetched = {d.source_id: d for d in result.documents}
    problems: list[Problem] = []
    confirmed = set(result.deleted)
    failed: dict[str, str] = {}
    #: container -> its known documents, when it answered "not found" as a whole
    vanished: dict[str, list[str]] = {}
    for skip in result.skipped:
        ids = [i for i in skip.source_ids if i not in fetched]
        present = [i for i in ids if i in before]
        if skip.gone or skip.unsupported or skip.refused:
            confirmed.update(ids)
            action = (
                "removed" if skip.gone else "unsupported" if skip.unsupported else "not indexed"
            )
            problems.append(Problem(skip.source_id, skip.reason, action, max(1, len(present))))
            continue
        reason = skip.reason
        if skip.vanished:
            vanished[skip.source_id] = present
            reason = f"{reason} (not found as a whole: an inferred deletion, held)"
        for sid in ids:
            failed.setdefault(sid, reason)
        action = "kept" if present else "not indexed"
        problems.append(Problem(skip.source_id, reason, action, max(1, len(present))))
    confirmed -= fetched.keys()
    after = dict(fetched) if result.full else {**before, **fetched}
    for sid in confirmed:
        after.pop(sid, None)
    stale = 0
    for sid, why in failed.items():
        if sid in before and sid not in fetched and sid not in confirmed:
            after[sid] = _stale(before[sid], why, refreshed)
            stale += 1
    inferred = ({*result.missing} | (before.keys() - after.keys())) & before.keys()
    inferred -= confirmed | fetched.keys()
    if full_reconcile:  # asked for explicitly: a vanished container's documents go too
        inferred |= {sid for ids in vanished.values() for sid in ids} - fetched.keys()
        stale -= sum(1 for ids in vanished.values() for sid in ids if sid in inferred)
    for sid in inferred:
        after.pop(sid, None)
    held: list[str] = []
    reasons: list[str] = []
    reason = (
        None
        if full_reconcile
        else guard_excess(
            len(before), len(inferred), len(after), guard, step="the pull", unit="documents"
        )
    )
    if reason is not None:
        held = sorted(inferred)
        after.update({sid: before[sid] for sid in held})
        problems.append(
            Problem(f"{len(held)} documents missing from the listing", reason, "held", len(held))
        )
        inferred = set()
        reasons.append(reason)
    if vanished and not full_reconcile:
        held = sorted({*held, *(sid for ids in vanished.values() for sid in ids)})
        reasons += [
            f"{what} answered not found as a whole: its {len(ids)} documents are kept "
            "(stale) until it answers again or a full reconcile removes them"
            for what, ids in vanished.items()
            if ids
        ]
    reason = "; ".join(reasons) or None
    docs = link_successors(sorted(after.values(), key=lambda d: d.source_id))
    gone_confirmed = sorted(confirmed & before.keys())
    stats = MergeStats(
        documents=len(docs),
        changed=sum(1 for d in docs if before.get(d.source_id) != d),
        deleted=len(before.keys() - after.keys()),
        confirmed=len(gone_confirmed),
        inferred=len(inferred),
        held=len(held),
        skipped=len(result.skipped),
        stale=stale,
    )
    retry = sorted(failed.keys() - (before.keys() - after.keys()))
    return Merged(docs, stats, problems, held, reason, gone_confirmed, retry)


def pull_into_snapshot(
    connector: Connector,
    snaps: SnapshotStore,
    *,
    full: bool,
    guard: float,
    full_reconcile: bool,
    hint: Hint | None = None,
    hinted_only: bool = False,
) -> tuple[PullResult, Merged]:
    """One raw step: pull with what the index knows, merge, and persist the snapshot, the
    connector's cursor and the sync state (retries, held and confirmed deletions, problems).
    With a `hint` (webhooks named these ids) an ordinary pull reads only those where the
    connector can. Raises the connector's SourceError on an outage of the whole source,
    changing nothing. `hinted_only`: NotHinted (changing nothing) instead of a listing when
    the connector cannot read the hint by id."""
    source, scope = connector.name, connector.scope
    cursor = connector.load_cursor(snaps.read_cursor(source, scope))
    previous = snaps.read_documents(source, scope)
    state = snaps.read_sync(source, scope)
    by_id = {d.source_id: d for d in previous or []}
    retry = {*state.retry, *(i for i, d in by_id.items() if STALE in d.extra)}
    known = Known(documents=by_id, retry=frozenset(retry))
    pulled_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    result = None
    if hint is not None and cursor is not None and not full:
        result = connector.pull_hinted(cursor, hint, known)
    if result is None and hinted_only:
        raise NotHinted(f"{source}/{scope}: these ids cannot be read by id; a listing is needed")
    if result is None:
        result = connector.pull(cursor, full=full or cursor is None, known=known)
    merged = merge_pull(
        previous, result, guard=guard, full_reconcile=full_reconcile, refreshed=state.pulled_at
    )
    snaps.write_documents(source, scope, merged.documents)
    snaps.write_cursor(source, scope, result.cursor.stored())
    snaps.write_sync(
        source,
        scope,
        SyncState(
            retry=merged.retry,
            held=HeldDeletions(ids=merged.held, reason=merged.held_reason) if merged.held else None,
            confirmed=merged.confirmed,
            emptied_by_source=not merged.documents and bool(merged.confirmed),
            problems=merged.problems,
            pulled_at=pulled_at,
        ),
    )
    return result, merged
