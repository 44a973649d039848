"""The Google REST requests as the reference pages document them: path parameters escaped into
the path, None left out, booleans as `true`/`false`, a repeated parameter repeated, JSON
bodies, media methods marked."""

from __future__ import annotations

import pytest

from knowledge_platform.connectors.google_drive import rest
from knowledge_platform.connectors.google_drive.rest import Resource


def test_requests_are_built_as_documented() -> None:
    files = Resource("http://fake/drive/v3", rest.FILES)
    get = files.get(fileId="a/b c", fields="id,name", supportsAllDrives=True, pageToken=None)
    assert (get.method, get.url, get.params, get.media) == (
        "GET",
        "http://fake/drive/v3/files/a%2Fb%20c",
        (("fields", "id,name"), ("supportsAllDrives", "true")),
        False,
    )
    media = files.get_media(fileId="f1", supportsAllDrives=False)
    assert media.params == (("alt", "media"), ("supportsAllDrives", "false")) and media.media

    values = Resource("http://fake/", rest.VALUES)
    batch = values.batchGet(spreadsheetId="s1", ranges=["'Q1'!1:3", "B!1:3"], majorDimension="ROWS")
    assert batch.url == "http://fake/v4/spreadsheets/s1/values:batchGet"
    assert batch.params == (("ranges", "'Q1'!1:3"), ("ranges", "B!1:3"), ("majorDimension", "ROWS"))

    stop = Resource("http://fake/drive/v3/", rest.CHANNELS).stop(body={"id": "c1"})
    assert (stop.method, stop.url, stop.body) == (
        "POST",
        "http://fake/drive/v3/channels/stop",
        {"id": "c1"},
    )
    with pytest.raises(AttributeError):
        files.delete(fileId="f1")  # not a method the connector may call
