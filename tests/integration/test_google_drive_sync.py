"""google_drive's sync behaviour against the Google fake (issue #17), at the connector: each
root searched in its own corpus and change log, incompleteSearch narrowed, Drive outages
told from one bad file, confirmed deletions, shortcuts, the one HTTP client."""

from __future__ import annotations

from typing import Any

import pytest

from knowledge_platform.connectors.base import PullResult
from knowledge_platform.connectors.google_drive.connector import (
    GoogleDriveConnector,
    GoogleDriveSettings,
)
from knowledge_platform.errors import SourceError
from tests.fakes.google_server import FakeGoogle

pytestmark = pytest.mark.integration


@pytest.fixture
def fake(google: FakeGoogle) -> FakeGoogle:
    return google


def connector(fake: FakeGoogle, **settings: Any) -> GoogleDriveConnector:
    data = {**fake.endpoints(), "backoff_seconds": 0.001, "max_retries": 2, **settings}
    return GoogleDriveConnector(GoogleDriveSettings.model_validate(data), "internal")


def ids(result: PullResult) -> set[str]:
    return {d.source_id for d in result.documents}


def test_each_root_is_searched_in_its_own_corpus_and_change_log(fake: FakeGoogle) -> None:
    mine = fake.add_folder("Mine", file_id="mine")
    fake.add_shared_drive("team", "Team")
    fake.add_shared_drive("other", "Other team")
    inner = fake.add_folder("Inner", "other", file_id="inner")  # a folder in a shared drive
    fake.add_doc("My doc", mine, "# Mine\n", file_id="doc-mine")
    fake.add_doc("Team doc", "team", "# Team\n", file_id="doc-team")
    fake.add_doc("Inner doc", inner, "# Inner\n", file_id="doc-inner")
    conn = connector(fake, folder_ids=[mine, inner], shared_drive_ids=["team"])

    first = conn.pull(None)

    assert ids(first) == {"doc-mine", "doc-team", "doc-inner"} and first.skipped == []
    lists = [
        (r.arg("corpora"), r.arg("driveId"))
        for r in fake.calls("/drive/v3/files")
        if r.path == "/drive/v3/files"
    ]
    assert set(lists) == {("user", None), ("drive", "team"), ("drive", "other")}
    fake.add_doc("New team doc", "team", "# New\n", file_id="doc-team-2")
    fake.add_doc("New inner doc", inner, "# New inner\n", file_id="doc-inner-2")
    fake.requests.clear()

    result = conn.pull(first.cursor)

    assert ids(result) == {"doc-team-2", "doc-inner-2"}
    logs = {r.arg("driveId") for r in fake.calls("/drive/v3/changes")}
    assert logs == {None, "team", "other"}
    assert conn.probe(result.cursor) == result.cursor.page_token  # nothing new since
    fake.modify("doc-team", markdown="# Team, edited\n")
    assert conn.probe(result.cursor) != result.cursor.page_token
    fake.move(inner, "team")  # a root moves to another shared drive: its log changes
    fake.add_doc("Moved inner doc", inner, "# Still here\n", file_id="doc-inner-3")
    moved = conn.pull(result.cursor)
    assert moved.full and "doc-inner-3" in ids(moved)
    assert moved.cursor.tokens.keys() == {"", "team"}
    old_layout = {"page_token": "12", "files": {}, "roots": sorted(["mine", "inner", "team"])}
    assert conn.probe(old_layout) not in (None, "12")  # one run rewrites an old cursor
    assert conn.load_cursor(old_layout) is None  # read as none: the sync step pulls in full
    assert conn.pull(None).full


def test_an_incomplete_search_is_asked_again_one_folder_at_a_time(fake: FakeGoogle) -> None:
    root = fake.add_folder("Root", file_id="root")
    folders = [fake.add_folder(f"F{i}", root, file_id=f"f{i}") for i in range(3)]
    for i, folder in enumerate(folders):
        fake.add_doc(f"Doc {i}", folder, f"# Doc {i}\n", file_id=f"doc-{i}")
    fake.max_parents_per_query = 1
    conn = connector(fake, folder_ids=[root])

    first = conn.pull(None)

    assert ids(first) == {"doc-0", "doc-1", "doc-2"} and first.skipped == []
    fake.max_parents_per_query = None
    fake.incomplete_folders = {"f1"}  # Drive cannot search this one completely, even alone

    again = conn.pull(first.cursor, full=True)

    assert ids(again) == {"doc-0", "doc-2"}
    (skip,) = again.skipped
    assert (skip.source_id, skip.covers, skip.gone) == ("f1", ["doc-1"], False)
    assert "incompleteSearch" in skip.reason


def test_confirmed_deletions_lost_access_trashed_folder_and_shortcuts(fake: FakeGoogle) -> None:
    root = fake.add_folder("Root", file_id="root")
    sub = fake.add_folder("Sub", root, file_id="sub")
    outside = fake.add_folder("Outside", file_id="outside")
    fake.add_doc("Shared with me", root, "# A\n", file_id="doc-a")
    fake.add_doc("In sub", sub, "# B\n", file_id="doc-b")
    fake.add_doc("Elsewhere", outside, "# C\n", file_id="doc-c")
    fake.add_shortcut("Shortcut to C", root, "doc-c", file_id="short-c")
    conn = connector(fake, folder_ids=[root])
    first = conn.pull(None)
    assert ids(first) == {"doc-a", "doc-b"} and first.skipped == []  # the shortcut is no file

    fake.revoke_access("doc-a")  # `removed: true` in the change log
    fake.trash(sub)  # only the folder is logged; its file is trashed with it
    result = conn.pull(first.cursor)

    assert result.deleted == ["doc-a", "doc-b"] and result.documents == []


def test_one_failing_file_is_skipped_but_a_drive_outage_fails_the_run(fake: FakeGoogle) -> None:
    root = fake.add_folder("Root", file_id="root")
    fake.add_doc("Good", root, "# Good\n", file_id="doc-good")
    fake.add_doc("Bad", root, "# Bad\n", file_id="doc-bad")
    conn = connector(fake, folder_ids=[root])
    first = conn.pull(None)
    fake.modify("doc-good", markdown="# Good, edited\n")
    fake.modify("doc-bad", markdown="# Bad, edited\n", export_error=(500, "backendError", "x"))

    one_bad = conn.pull(first.cursor)

    assert ids(one_bad) == {"doc-good"}
    assert [s.source_id for s in one_bad.skipped] == ["doc-bad"]
    assert "HTTP 500 after 3 attempts: backendError" in one_bad.skipped[0].reason
    fake.modify("doc-good", markdown="# Good, again\n")
    fake.fail_next(50, 503, "backendError", path_part="/export")
    fake.fail_next(50, 503, "backendError", path_part="/startPageToken")
    with pytest.raises(SourceError, match="startPageToken failed with HTTP 503"):
        conn.pull(one_bad.cursor)


def test_the_token_exchange_goes_through_the_same_retries(fake: FakeGoogle) -> None:
    root = fake.add_folder("Root", file_id="root")
    fake.add_doc("Doc", root, "# Doc\n", file_id="doc")
    fake.fail_next(1, 503, "backendError", path_part="/token")
    fake.fail_next(2, 403, "userRateLimitExceeded", path_part="/export")

    result = connector(fake, folder_ids=[root]).pull(None)

    assert ids(result) == {"doc"} and result.skipped == []
    assert len(fake.calls("/export")) == 3
    assert fake.token_grants == ["refresh_token"]


def test_a_root_that_is_not_there_fails_with_a_clear_message(fake: FakeGoogle) -> None:
    with pytest.raises(SourceError, match=r"folder nope \(folder_ids\) answers 404 notFound"):
        connector(fake, folder_ids=["nope"]).pull(None)
