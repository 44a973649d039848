"""Crawl politeness against the fake site: robots.txt `Crawl-delay` honoured between requests
(capped by `max_crawl_delay_seconds`), and a conditional GET (`If-None-Match` /
`If-Modified-Since`) for every fetch that has a validator -- robots.txt, sitemaps, pages,
PDFs -- with 304s handled per RFC 9110 (the validators survive to the next run)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from typing import Any

import pytest

from knowledge_platform.connectors.base import Known
from knowledge_platform.connectors.website.connector import WebsiteConnector, WebsiteSettings
from tests.fakes.http_fake import FakeClock
from tests.fakes.website_server import WebsiteFake

pytestmark = pytest.mark.integration

TEXT = "This page explains {} in enough words for the extractor to keep it as text."


@pytest.fixture
def site() -> Iterator[WebsiteFake]:
    with WebsiteFake(crawl_delay=2) as server:
        for name in ("about", "services", "team", "jobs"):
            server.add_page(f"/{name}", name.title(), TEXT.format(name))
        server.add_raw("/brochure.pdf", b"%PDF-1.4 brochure", content_type="application/pdf")
        yield server


def connector(site: WebsiteFake, clock: FakeClock, **overrides: Any) -> WebsiteConnector:
    settings = WebsiteSettings.model_validate({"base_url": site.url(), **overrides})
    return WebsiteConnector(settings, "internal", sleep=clock.sleep, clock=clock)


def gaps(site: WebsiteFake) -> list[float]:
    times = [t for _, t in site.arrivals]
    return [round(b - a, 3) for a, b in pairwise(times)]


def test_crawl_delay_spaces_every_request_after_robots(site: WebsiteFake) -> None:
    clock = FakeClock()
    site.clock = clock
    connector(site, clock).pull(None)
    assert site.arrivals[0][0] == "/robots.txt"
    assert len(site.arrivals) >= 8  # index, 3 sitemaps, 5 urls
    assert all(gap >= 2.0 for gap in gaps(site)[1:]), gaps(site)


def test_crawl_delay_is_capped_and_has_a_floor(site: WebsiteFake) -> None:
    site.crawl_delay = 120
    clock = FakeClock()
    site.clock = clock
    connector(site, clock, max_crawl_delay_seconds=3).pull(None)
    assert set(gaps(site)[1:]) == {3.0}

    site.crawl_delay = None
    site.arrivals.clear()
    connector(site, clock, crawl_delay_seconds=0.5).pull(None)
    assert set(gaps(site)[1:]) == {0.5}


def test_every_fetch_with_a_validator_is_conditional(site: WebsiteFake) -> None:
    clock = FakeClock()
    conn = connector(site, clock)
    first = conn.pull(None)
    known = Known(documents={d.source_id: d for d in first.documents})
    for _ in range(2):  # the 304s keep the validators for the run after
        site.clear_log()
        again = conn.pull(first.cursor, known=known)
        assert again.documents == [] and again.deleted == [] and again.missing == []
        assert [(r.path, r.status) for r in site.log if r.status != 304] == []
        assert all("If-None-Match" in r.headers for r in site.log), [
            r.path for r in site.log if "If-None-Match" not in r.headers
        ]
        paths = {r.path for r in site.log}
        assert {"/robots.txt", "/sitemap_index.xml", "/brochure.pdf", "/about"} <= paths
        first = again


def test_a_304_is_unchanged_even_in_the_weekly_full_pull(site: WebsiteFake) -> None:
    clock = FakeClock()
    conn = connector(site, clock)
    first = conn.pull(None)
    known = Known(documents={d.source_id: d for d in first.documents})
    site.clear_log()
    weekly = conn.pull(first.cursor, full=True, known=known)
    assert weekly.full is True
    assert sorted(d.source_id for d in weekly.documents) == sorted(known.documents)
    assert {r.status for r in site.log} == {304}
