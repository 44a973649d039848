"""The hot path of a webhook edit: a few ids a source x scope's webhooks named, applied in the
calling process with the same four steps a run does (steps.py: the pull reads only those ids,
then chunk, embed, publish under the collection's own writer lock), while it holds the
partition's lock over all four (partition_lock.py). The caller (the hooks sensor) keeps one
`IngestRuntime` per process, so the model, store and chunker are built once, not per edit.

It applies only what it can apply cheaply and safely: a hint of at most `max_ids` ids, for a
source that reads by id, a source x scope indexed before (a first pull is a listing), no
other writer of its snapshots at this moment. Anything else is `NotHot` and the caller falls
back to an ordinary run."""

from __future__ import annotations

from knowledge_platform.connectors.base import Connector, Hint
from knowledge_platform.connectors.catalog import connector_class
from knowledge_platform.errors import KnowledgePlatformError
from knowledge_platform.ingest.indexing import index_source
from knowledge_platform.ingest.partition_lock import PartitionBusy, partition_lock
from knowledge_platform.ingest.runtime import IngestRuntime
from knowledge_platform.ingest.steps import PullOptions, StepsRun
from knowledge_platform.ingest.sync import NotHinted


class NotHot(KnowledgePlatformError):
    """This delta is not for the hot path; run it the ordinary way."""


def refusal(
    runtime: IngestRuntime, source: str, scope: str, hint: Hint | None, max_ids: int
) -> str:
    """Why the hot path will not apply this delta ('' when it will, if the lock is free)."""
    if hint is None:
        return "the events named no ids (a listing is needed)"
    if len(hint.ids | hint.deleted) > max_ids:
        return f"{len(hint.ids | hint.deleted)} ids named (more than {max_ids})"
    if connector_class(source).pull_hinted is Connector.pull_hinted:
        return f"{source} cannot read by id"
    if runtime.snapshots.read_cursor(source, scope) is None:
        return "never indexed (a first pull is a listing)"
    return ""


def apply_hint(
    runtime: IngestRuntime, source: str, scope: str, hint: Hint | None, max_ids: int
) -> StepsRun:
    """The four steps for `hint` only, now, in this process. NotHot when it does not qualify
    or another process holds the partition (nothing was changed); a step's own error
    (a source outage, the deletion guard) propagates, having changed what that step does."""
    if why := refusal(runtime, source, scope, hint, max_ids):
        raise NotHot(why)
    try:
        with partition_lock(runtime.snapshots.dir(source, scope), timeout=0):
            return index_source(runtime, source, scope, PullOptions(hint=hint, hinted_only=True))
    except PartitionBusy as exc:
        raise NotHot(f"another writer holds it: {exc}") from None
    except NotHinted as exc:
        raise NotHot(str(exc)) from None
