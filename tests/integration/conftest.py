"""Fixtures shared by the integration tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.google_server import FakeGoogle


@pytest.fixture(scope="module")
def google_server() -> Iterator[FakeGoogle]:
    # One server per module: the client caches API resources per endpoint (building Sheets'
    # takes ~0.7 s), so a fixed port keeps the tests fast. Each test resets its state.
    with FakeGoogle() as fake:
        yield fake


@pytest.fixture
def google(google_server: FakeGoogle, monkeypatch: pytest.MonkeyPatch) -> FakeGoogle:
    """The module's Google fake, emptied, with the OAuth client it accepts in the env."""
    for name, value in google_server.env().items():
        monkeypatch.setenv(name, value)
    google_server.reset()
    return google_server
