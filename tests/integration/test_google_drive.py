"""google_drive against the fake Google (OAuth, Drive v3, Sheets v4, Slides v1) over HTTP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowledge_platform.connectors.base import PullResult
from knowledge_platform.connectors.google_drive.connector import (
    GoogleDriveConnector,
    GoogleDriveSettings,
)
from knowledge_platform.errors import ConfigError, SourceError
from tests.fakes.google_server import FakeGoogle

pytestmark = pytest.mark.integration

PLAYBOOK = """# Onboarding

Intro paragraph.

### Kickoff

Agenda for the kickoff.

#### Attendees

Everyone.
\f
Second page without a heading.
"""
DEALS = [["Client", "Stage", "Value"]] + [[f"client-{i}", "won", str(i)] for i in range(150)]
SLIDES = [
    {
        "title": "Kickoff",
        "body": "Goals\nTimeline",
        "notes": "Mention the swatch test.",
        "grouped": True,
    },
    {"body": "Numbers", "table": [["Q1", "Q2"], ["10", "12"]], "notes": ""},
]


class Drive:
    """The fake plus the ids of what the tests put in it."""

    def __init__(self, fake: FakeGoogle) -> None:
        self.fake = fake
        self.root = fake.add_folder("Knowledge", file_id="root")
        self.clients = fake.add_folder("Clients", self.root, file_id="clients")
        self.elsewhere = fake.add_folder("Elsewhere", file_id="elsewhere")
        self.doc = fake.add_doc("Playbook", self.root, PLAYBOOK, file_id="doc-playbook")
        tabs = {"Deals": DEALS, "Notes tab": [["Who", "What"], ["Ann"], []]}
        self.sheet = fake.add_sheet("Pipeline", self.clients, tabs, file_id="sheet-pipeline")
        self.deck = fake.add_slides("QBR", self.clients, SLIDES, file_id="deck-qbr")
        self.private = fake.add_doc("Private", self.elsewhere, "# Secret\n", file_id="doc-private")


@pytest.fixture
def drive(google: FakeGoogle) -> Drive:
    return Drive(google)


def connector(drive: Drive, **settings: Any) -> GoogleDriveConnector:
    data = {"folder_ids": [drive.root], **drive.fake.endpoints(), "backoff_seconds": 0.001}
    return GoogleDriveConnector(
        GoogleDriveSettings.model_validate({**data, **settings}), "internal"
    )


def by_id(result: PullResult) -> dict[str, Any]:
    return {d.source_id: d for d in result.documents}


def content_calls(fake: FakeGoogle) -> list[str]:
    parts = ("/export", "/v4/", "/v1/presentations")
    return [r.path for r in fake.requests if any(p in r.path for p in parts)]


def test_full_pull_renders_docs_sheets_and_slides(drive: Drive) -> None:
    result = connector(drive).pull(None)

    assert result.full and result.skipped == []
    docs = by_id(result)
    assert set(docs) == {drive.doc, drive.sheet, drive.deck}  # not the file outside the folder
    doc = docs[drive.doc]
    assert (doc.kind, doc.title, doc.version) == ("doc", "Playbook", "1")
    assert doc.url == f"https://docs.google.com/document/d/{drive.doc}/edit"
    assert doc.date is not None and doc.date.isoformat() == "2026-03-01"
    assert doc.text.startswith("# Onboarding\n")  # the title stays; sections rise to ##
    assert "\n## Kickoff\n" in doc.text and "\n### Attendees\n" in doc.text
    assert "## Page 2\n\nSecond page without a heading." in doc.text

    sheet = docs[drive.sheet]
    assert sheet.kind == "sheet"
    deals, notes = sheet.text.split("## Notes tab")
    assert deals.startswith("## Deals\n\n| Client | Stage | Value |")
    assert deals.count("| client-") == 100  # header + the first 100 rows
    assert "client-99 " in deals and "client-100 " not in deals
    assert "| Ann |  |" in notes  # ragged rows padded to the header
    assert sheet.extra["truncated_tabs"] == ["Deals"]

    deck = docs[drive.deck]
    assert deck.kind == "slide"
    assert "## Slide 1: Kickoff\n\nGoals\nTimeline" in deck.text
    assert "Speaker notes:\nMention the swatch test." in deck.text
    assert "## Slide 2\n\nNumbers\n\n| Q1 | Q2 |" in deck.text

    assert not drive.fake.calls(drive.private)
    assert drive.fake.token_grants == ["refresh_token"]  # one exchange, token reused
    assert result.cursor.page_token


def test_incremental_pull_fetches_only_the_changed_file(drive: Drive) -> None:
    conn = connector(drive)
    cursor = conn.pull(None).cursor
    drive.fake.modify(drive.doc, markdown="# Onboarding\n\nRewritten.\n")
    drive.fake.requests.clear()

    result = conn.pull(cursor)

    assert not result.full
    assert [d.source_id for d in result.documents] == [drive.doc]
    assert "Rewritten." in result.documents[0].text and result.documents[0].version == "2"
    assert content_calls(drive.fake) == [f"/drive/v3/files/{drive.doc}/export"]
    assert not any(r.path == "/drive/v3/files" for r in drive.fake.requests)  # no listing
    assert result.deleted == []
    drive.fake.requests.clear()
    assert conn.pull(result.cursor).documents == []  # nothing changed since
    assert content_calls(drive.fake) == []


def test_trashed_and_removed_files_are_deleted(drive: Drive) -> None:
    conn = connector(drive)
    cursor = conn.pull(None).cursor
    drive.fake.trash(drive.sheet)
    drive.fake.delete(drive.deck)

    result = conn.pull(cursor)

    assert result.documents == []
    assert result.deleted == sorted([drive.sheet, drive.deck])


def test_a_changed_file_that_vanished_before_its_fetch_is_deleted(drive: Drive) -> None:
    conn = connector(drive)
    cursor = conn.pull(None).cursor
    drive.fake.modify(drive.doc, markdown="# New\n")
    drive.fake.fail_next(1, status=404, reason="notFound", path_part="/export")

    result = conn.pull(cursor)

    # a confirmed removal, reported as a sub-resource that is gone
    assert result.documents == [] and [(s.source_id, s.gone) for s in result.skipped] == [
        (drive.doc, True)
    ]
    assert drive.doc not in result.cursor.files


def test_changes_outside_the_folders_are_ignored(drive: Drive) -> None:
    conn = connector(drive)
    cursor = conn.pull(None).cursor
    drive.fake.modify(drive.private, markdown="# Still secret\n")
    drive.fake.add_doc("Another", drive.elsewhere, "# Nope\n")
    drive.fake.requests.clear()

    result = conn.pull(cursor)

    assert (result.documents, result.deleted) == ([], [])
    assert content_calls(drive.fake) == []
    # The unknown folder's parents were looked up once...
    assert [r.path for r in drive.fake.calls("/drive/v3/files/")] == [
        f"/drive/v3/files/{drive.elsewhere}"
    ]
    drive.fake.modify(drive.private, markdown="# Again\n")
    drive.fake.requests.clear()
    assert connector(drive).pull(result.cursor).documents == []
    assert drive.fake.calls("/drive/v3/files/") == []  # ...and remembered in the cursor


def test_moves_in_and_out_of_the_folders(drive: Drive) -> None:
    conn = connector(drive)
    cursor = conn.pull(None).cursor

    drive.fake.modify(drive.clients, parents=[drive.elsewhere])  # a whole folder leaves
    drive.fake.modify(drive.private, parents=[drive.root])  # a file comes in
    moved = conn.pull(cursor)
    assert moved.deleted == sorted([drive.sheet, drive.deck])
    assert [d.source_id for d in moved.documents] == [drive.private]

    drive.fake.modify(drive.clients, parents=[drive.root])  # the folder comes back
    back = conn.pull(moved.cursor)
    assert set(by_id(back)) == {drive.sheet, drive.deck}
    assert back.deleted == []


def test_new_subfolder_and_paging(drive: Drive) -> None:
    conn = connector(drive, page_size=1)  # every list and changes page holds one item
    first = conn.pull(None)
    assert len(first.documents) == 3
    folder = drive.fake.add_folder("Fresh", drive.clients)
    drive.fake.add_doc("Fresh doc", folder, "# Fresh\n", file_id="doc-fresh")
    drive.fake.modify(drive.doc, name="Playbook v2")

    result = conn.pull(first.cursor)

    assert set(by_id(result)) == {"doc-fresh", drive.doc}
    assert by_id(result)[drive.doc].title == "Playbook v2"
    assert len(drive.fake.calls("/drive/v3/changes")) > 3  # paged one change at a time


def test_rate_limits_are_retried(drive: Drive) -> None:
    drive.fake.fail_next(2, status=429, reason="rateLimitExceeded", path_part="/export")
    drive.fake.fail_next(1, status=403, reason="userRateLimitExceeded", path_part="/v4/")

    result = connector(drive).pull(None)

    assert len(result.documents) == 3 and result.skipped == []
    assert len(drive.fake.calls("/export")) == 3
    assert result.requests == len(drive.fake.requests)  # the token exchange included


def test_export_failure_is_skipped_and_reported(drive: Drive) -> None:
    big = drive.fake.add_doc("Huge", drive.root, "# Huge\n", file_id="doc-huge")
    drive.fake.files[big].export_error = (
        403,
        "exportSizeLimitExceeded",
        "This file is too large to be exported.",
    )

    result = connector(drive).pull(None)

    assert result.full and big not in by_id(result) and len(result.documents) == 3
    assert [s.source_id for s in result.skipped] == [big]
    assert "exportSizeLimitExceeded" in result.skipped[0].reason
    assert len(drive.fake.calls("/export")) == 2  # a refusal is not retried


def test_outage_raises_source_error(drive: Drive) -> None:
    drive.fake.outage = True
    with pytest.raises(SourceError, match="HTTP 503 after 3 attempts: backendError"):
        connector(drive, max_retries=2).pull(None)


def test_unreachable_server_raises_source_error(drive: Drive) -> None:
    settings = {**drive.fake.endpoints(), "drive_endpoint": "http://127.0.0.1:9/drive/v3/"}
    cursor = connector(drive).pull(None).cursor
    with pytest.raises(SourceError):
        connector(drive, **settings, max_retries=1).pull(cursor)


def test_credentials_errors(drive: Drive, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_REFRESH_TOKEN", "revoked")
    with pytest.raises(SourceError, match="invalid_grant"):
        connector(drive).pull(None)
    monkeypatch.delenv("GOOGLE_CLIENT_SECRET")
    with pytest.raises(ConfigError, match="GOOGLE_CLIENT_SECRET"):
        connector(drive).pull(None)


def test_a_401_refreshes_the_access_token_once(drive: Drive) -> None:
    drive.fake.fail_next(1, status=401, reason="authError", path_part="/v1/presentations")

    result = connector(drive).pull(None)

    assert len(result.documents) == 3
    assert drive.fake.token_grants == ["refresh_token", "refresh_token"]


def test_rejected_page_token_falls_back_to_a_full_pull(drive: Drive) -> None:
    conn = connector(drive)
    cursor = conn.pull(None).cursor.model_copy(update={"tokens": {"": "999"}})

    result = conn.pull(cursor)

    assert result.full and len(result.documents) == 3


def test_shared_drive_root(drive: Drive) -> None:
    drive.fake.add_shared_drive("team-drive", "Team")
    drive.fake.add_doc("Team doc", "team-drive", "# Team\n", file_id="doc-team")

    result = connector(drive, folder_ids=[], shared_drive_ids=["team-drive"]).pull(None)

    assert [d.source_id for d in result.documents] == ["doc-team"]
    assert result.documents[0].extra["drive_id"] == "team-drive"


def test_service_account_key(drive: Drive, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    key_file = tmp_path / "sa.json"
    key_file.write_text(
        json.dumps(
            {
                "type": "service_account",
                "client_email": "indexer@example.iam.gserviceaccount.com",
                "private_key": pem,
                "private_key_id": "k1",
                "token_uri": "https://oauth2.googleapis.com/token",
            }
        )
    )
    monkeypatch.setenv("GOOGLE_SERVICE_ACCOUNT_KEY_FILE", str(key_file))

    result = connector(drive, auth="service_account").pull(None)

    assert len(result.documents) == 3
    assert drive.fake.token_grants == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
