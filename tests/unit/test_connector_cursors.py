"""Each connector's typed cursor: the layout main wrote still reads (an upgraded install keeps its
cursors), the models are frozen and strict, and a stored cursor that no longer validates reads
as none, with a log line, instead of failing the run."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from knowledge_platform.connectors.catalog import SOURCE_NAMES, connector_class, spec
from knowledge_platform.connectors.clickup.cursor import AttachmentVerdict, ClickUpCursor
from knowledge_platform.connectors.cursor import BaseCursor, load_cursor
from knowledge_platform.connectors.google_drive.cursor import GoogleDriveCursor
from knowledge_platform.connectors.website.cursor import WebsiteCursor

#: One cursor per source as the code before typed cursors wrote it (cursor.json), taken from
#: pulls against the fakes in tests/fakes (the website's lists cut to three entries).
MAIN = json.loads((Path(__file__).parent / "data" / "cursors_main.json").read_text())


@pytest.mark.parametrize("source", SOURCE_NAMES)
def test_a_cursor_written_before_typed_cursors_validates_and_keeps_its_layout(source: str) -> None:
    stored: dict[str, Any] = MAIN[source]
    model = connector_class(source).cursor_model

    cursor = model.model_validate(stored)

    again = cursor.stored()
    assert again.keys() == stored.keys()  # the same top-level layout, written back
    assert model.model_validate(again) == cursor
    assert json.loads(json.dumps(again)) == again  # plain JSON


def test_the_stored_values_read_as_typed_fields() -> None:
    clickup = ClickUpCursor.model_validate(MAIN["clickup"])
    assert clickup.run == 2 and clickup.lists == ("L-a", "L-b")
    assert clickup.attachments["att:t1:a1"] == AttachmentVerdict(
        task="t1", reason=MAIN["clickup"]["attachments"]["att:t1:a1"]["reason"], unsupported=True
    )
    assert clickup.attachments["att:t2:a2"].files == "3f2a"
    drive = GoogleDriveCursor.model_validate(MAIN["google_drive"])
    assert drive.tokens == {"": "9", "drive-team": "9"} and drive.foreign == ["folder-acme"]
    assert ClickUpCursor.model_validate(clickup.stored()) == clickup


@pytest.mark.parametrize("source", SOURCE_NAMES)
def test_every_cursor_model_is_frozen_and_rejects_unknown_keys(source: str) -> None:
    model = connector_class(source).cursor_model
    assert issubclass(model, BaseCursor)
    assert model.model_config.get("frozen") and model.model_config.get("extra") == "forbid"
    with pytest.raises(ValidationError):
        model.model_validate({**MAIN[source], "written_by_another_version": 1})


@pytest.mark.parametrize("source", [s for s in SOURCE_NAMES if spec(s).probe_seconds])
def test_a_probed_source_s_cursor_says_which_token_it_was_built_from(source: str) -> None:
    """The change sensor compares the probe's token with the indexed cursor's `probe_token()`:
    every source with a probe answers it from the cursor it stored."""
    cursor = connector_class(source).cursor_model.model_validate(MAIN[source])
    token = cursor.probe_token()
    assert token and token in MAIN[source].values()


def test_a_stored_cursor_that_no_longer_validates_reads_as_none_with_a_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The layout before 2 had one `page_token` and no `v`: the sync step pulls in full."""
    old = {"page_token": "12", "files": {}, "roots": ["mine"]}

    with caplog.at_level(logging.WARNING):
        loaded = load_cursor(GoogleDriveCursor, old, "google_drive:internal")

    assert loaded is None
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith("google_drive:internal: the stored cursor is not a GoogleDriveCursor")
    assert "pulling in full" in line
    assert load_cursor(GoogleDriveCursor, None, "google_drive:internal") is None
    assert not caplog.records[1:]  # no cursor at all is a first pull, not worth a line


def test_the_website_s_per_url_records_are_models_written_back_as_stored() -> None:
    stored: dict[str, Any] = MAIN["website"]
    cursor = WebsiteCursor.model_validate(stored)
    url, page = next(iter(cursor.pages.items()))
    assert page.document(url) == url and page.blocks and page.etag and page.skip is None
    assert all(s.children or s.pages for s in cursor.sitemaps.values())
    assert cursor.robots is not None and "Sitemap:" in cursor.robots.text
    assert cursor.stored() == stored  # unset fields left out: the very layout main wrote
    misspelt = json.loads(json.dumps(stored))
    misspelt["pages"][url]["etga"] = '"abc"'
    assert load_cursor(WebsiteCursor, misspelt, "website:internal") is None  # a full pull
