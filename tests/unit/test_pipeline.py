import pytest

from knowledge_platform.connectors.base import PullResult
from knowledge_platform.errors import DeletionGuardError
from knowledge_platform.models import Document
from knowledge_platform.pipeline import merge_pull, plan_deletions


def d(sid: str, text: str = "t") -> Document:
    return Document(source="s", source_id=sid, scope="internal", title=sid, text=text, kind="doc")


def test_full_pull_replaces_the_snapshot():
    docs, stats = merge_pull([d("a"), d("b")], PullResult(documents=[d("b", "new"), d("c")],
                                                         full=True))
    assert [x.source_id for x in docs] == ["b", "c"]
    assert (stats.documents, stats.changed, stats.deleted) == (2, 2, 1)


def test_incremental_pull_patches_the_snapshot():
    docs, stats = merge_pull(
        [d("a"), d("b"), d("c")],
        PullResult(documents=[d("b", "edited")], full=False, deleted=["c", "zzz"]),
    )
    assert {x.source_id: x.text for x in docs} == {"a": "t", "b": "edited"}
    assert (stats.changed, stats.deleted) == (1, 1)


def test_first_incremental_pull_with_no_snapshot():
    docs, _ = merge_pull(None, PullResult(documents=[d("a")], full=False))
    assert [x.source_id for x in docs] == ["a"]


@pytest.mark.parametrize(
    ("existing", "stale", "remaining", "full", "trips"),
    [
        (100, 31, 69, False, True),   # over 30%
        (100, 30, 70, False, False),  # at the guard
        (3, 2, 1, False, False),      # small partitions: a few deletions are normal
        (8, 8, 0, False, True),       # an empty pull never empties the collection
        (8, 8, 0, True, False),       # unless a full reconcile is asked for
        (100, 90, 10, True, False),
        (0, 0, 0, False, False),
    ],
)
def test_deletion_guard(existing, stale, remaining, full, trips):
    if trips:
        with pytest.raises(DeletionGuardError, match="full reconcile"):
            plan_deletions(existing, stale, remaining, 0.3, full)
    else:
        plan_deletions(existing, stale, remaining, 0.3, full)
