"""The sync contract's merge: confirmed deletions applied, inferred ones guarded (held, not
refused), failed sub-resources kept at their last good version and retried."""

import pytest

from knowledge_platform.connectors.base import PullResult, Skipped
from knowledge_platform.ingest.sync import guard_excess, merge_pull
from knowledge_platform.models import LAST_REFRESHED, STALE, Document


def d(sid: str, text: str = "t") -> Document:
    return Document(source="s", source_id=sid, scope="internal", title=sid, text=text, kind="doc")


def ids(docs: list[Document]) -> list[str]:
    return [x.source_id for x in docs]


def test_full_pull_replaces_the_snapshot():
    merged = merge_pull([d("a"), d("b")], PullResult(documents=[d("b", "new"), d("c")], full=True))
    assert ids(merged.documents) == ["b", "c"]
    s = merged.stats
    assert (s.documents, s.changed, s.deleted, s.inferred, s.confirmed) == (2, 2, 1, 1, 0)


def test_incremental_pull_patches_the_snapshot():
    merged = merge_pull(
        [d("a"), d("b"), d("c")],
        PullResult(documents=[d("b", "edited")], full=False, deleted=["c", "zzz"]),
    )
    assert {x.source_id: x.text for x in merged.documents} == {"a": "t", "b": "edited"}
    assert (merged.stats.changed, merged.stats.deleted, merged.stats.confirmed) == (1, 1, 1)
    assert merged.confirmed == ["c"]


def test_first_incremental_pull_with_no_snapshot():
    merged = merge_pull(None, PullResult(documents=[d("a")], full=False))
    assert ids(merged.documents) == ["a"]


def test_confirmed_deletions_are_applied_however_many():
    before = [d(str(i)) for i in range(10)]
    gone = [str(i) for i in range(8)]
    merged = merge_pull(before, PullResult(documents=[d("8", "edited")], full=False, deleted=gone))
    assert ids(merged.documents) == ["8", "9"]
    assert merged.held == [] and merged.stats.confirmed == 8


def test_inferred_deletions_over_the_guard_are_held_and_other_changes_still_apply():
    before = [d(str(i)) for i in range(10)]
    listing = [d("0", "edited"), d("1"), d("2"), d("new")]  # 7 of 10 missing: a short listing
    merged = merge_pull(before, PullResult(documents=listing, full=True), guard=0.3)
    assert len(merged.held) == 7 and "over the 30% guard" in (merged.held_reason or "")
    by_id = {x.source_id: x.text for x in merged.documents}
    assert by_id["0"] == "edited" and "new" in by_id and len(by_id) == 11
    assert [p.action for p in merged.problems] == ["held"]


def test_a_full_reconcile_applies_inferred_deletions():
    before = [d(str(i)) for i in range(10)]
    merged = merge_pull(before, PullResult(documents=[d("0")], full=True), full_reconcile=True)
    assert ids(merged.documents) == ["0"] and merged.stats.inferred == 9


def test_missing_ids_from_an_incremental_sweep_count_against_the_guard():
    before = [d(str(i)) for i in range(20)]
    small = merge_pull(before, PullResult(documents=[], full=False, missing=["1", "2"]))
    assert len(small.documents) == 18 and small.stats.inferred == 2
    big = merge_pull(
        before, PullResult(documents=[], full=False, missing=[str(i) for i in range(12)])
    )
    assert len(big.documents) == 20 and len(big.held) == 12


def test_a_failed_sub_resource_keeps_its_last_good_version_marked_stale_and_is_retried():
    before = [d("doc:1:p1"), d("doc:1:p2"), d("task:9")]
    failing = Skipped(
        source_id="doc:1", reason="HTTP 500 after 5 attempts", covers=["doc:1:p1", "doc:1:p2"]
    )
    for full in (True, False):
        merged = merge_pull(
            before, PullResult(documents=[d("task:9", "edited")], full=full, skipped=[failing])
        )
        kept = {x.source_id: x for x in merged.documents}
        assert kept["doc:1:p1"].extra[STALE] == "HTTP 500 after 5 attempts"
        assert kept["task:9"].text == "edited" and STALE not in kept["task:9"].extra
        assert merged.stats.deleted == 0 and merged.stats.stale == 2
        assert set(merged.retry) == {"doc:1", "doc:1:p1", "doc:1:p2"}
        assert merged.problems[0].line() == (
            "doc:1: HTTP 500 after 5 attempts -> kept the last good version (2 documents)"
        )


def test_a_gone_sub_resource_removes_its_documents():
    before = [d("doc:1:p1"), d("doc:1:p2"), d("task:9")]
    gone = Skipped(
        source_id="doc:1",
        reason="doc deleted in ClickUp",
        covers=["doc:1:p1", "doc:1:p2"],
        gone=True,
    )
    merged = merge_pull(before, PullResult(documents=[d("task:9")], full=True, skipped=[gone]))
    assert ids(merged.documents) == ["task:9"]
    assert merged.confirmed == ["doc:1:p1", "doc:1:p2"] and merged.held == []
    assert merged.problems[0].action == "removed"


def test_a_vanished_container_is_held_stale_until_a_full_reconcile_removes_it():
    """A table answering 404 PGRST205 (or a stale schema cache saying so): inferred, never
    confirmed, however few documents it holds."""
    before = [d("rules:1"), d("rules:2"), d("notes:1")]
    gone = Skipped(
        source_id="table rules", reason="404 PGRST205", vanished=True, covers=["rules:1", "rules:2"]
    )
    result = PullResult(documents=[d("notes:1", "edited")], full=False, skipped=[gone])
    merged = merge_pull(before, result)
    assert ids(merged.documents) == ["notes:1", "rules:1", "rules:2"]
    assert all("not found as a whole" in x.extra[STALE] for x in merged.documents[1:])
    assert merged.held == ["rules:1", "rules:2"] and "table rules" in (merged.held_reason or "")
    assert {"rules:1", "rules:2"} <= set(merged.retry) and merged.stats.confirmed == 0
    reconciled = merge_pull(before, result, full_reconcile=True)
    assert ids(reconciled.documents) == ["notes:1"] and not reconciled.held
    assert not {"rules:1", "rules:2"} & set(reconciled.retry)
    assert reconciled.stats.inferred == 2


def test_a_refused_sub_resource_leaves_the_scope_and_is_reported():
    before = [d("partners:1"), d("notes:1")]
    refused = Skipped(
        source_id="table partners",
        reason="shared, but names 'hot'",
        refused=True,
        covers=["partners:1"],
    )
    merged = merge_pull(before, PullResult(documents=[], full=False, skipped=[refused]))
    assert ids(merged.documents) == ["notes:1"]
    assert [(p.what, p.action) for p in merged.problems] == [("table partners", "not indexed")]


def test_an_unsupported_sub_resource_is_listed_never_retried_and_no_failure():
    form = Skipped(
        source_id="form-1",
        reason="application/vnd.google-apps.form: no text export",
        unsupported=True,
    )
    dropped = Skipped(source_id="b", reason="application/pdf: not in files.types", unsupported=True)
    merged = merge_pull(
        [d("a"), d("b")], PullResult(documents=[], full=False, skipped=[form, dropped])
    )
    assert ids(merged.documents) == ["a"] and merged.confirmed == ["b"]
    assert merged.retry == [] and merged.stats.stale == 0
    assert [p.action for p in merged.problems] == ["unsupported", "unsupported"]
    assert merged.problems[0].line() == (
        "form-1: application/vnd.google-apps.form: no text export -> not indexed (type not read)"
    )


def test_a_refetched_stale_document_is_fresh_again():
    old = merge_pull(
        [d("a")],
        PullResult(documents=[], full=False, skipped=[Skipped(source_id="a", reason="403")]),
    )
    assert STALE in old.documents[0].extra
    again = merge_pull(old.documents, PullResult(documents=[d("a", "new")], full=False))
    assert STALE not in again.documents[0].extra and again.retry == []


def test_a_stale_document_says_when_it_was_last_read_as_current():
    fail = PullResult(documents=[], full=False, skipped=[Skipped(source_id="a", reason="403")])
    first = merge_pull([d("a")], fail, refreshed="2026-03-01T02:00:00+00:00")
    assert first.documents[0].extra[LAST_REFRESHED] == "2026-03-01T02:00:00+00:00"
    # Still failing a week later, for another reason: the last good read is still March 1st.
    second = merge_pull(
        first.documents,
        PullResult(documents=[], full=False, skipped=[Skipped(source_id="a", reason="500")]),
        refreshed="2026-03-08T02:00:00+00:00",
    )
    assert second.documents[0].extra == {STALE: "500", LAST_REFRESHED: "2026-03-01T02:00:00+00:00"}
    unknown = merge_pull([d("a")], fail)  # no earlier pull on record: no time is made up
    assert LAST_REFRESHED not in unknown.documents[0].extra


@pytest.mark.parametrize(
    ("existing", "stale", "remaining", "trips"),
    [
        (100, 31, 69, True),  # over 30%
        (100, 30, 70, False),  # at the guard
        (3, 2, 1, False),  # small partitions: a few deletions are normal
        (8, 8, 0, True),  # an empty listing never empties the collection
        (0, 0, 0, False),
    ],
)
def test_guard_excess(existing, stale, remaining, trips):
    reason = guard_excess(existing, stale, remaining, 0.3)
    assert (reason is not None) == trips
    if trips:
        assert "full reconcile" in reason
