"""WebsiteConnector against a local fake website (robots.txt, sitemap index, conditional GET)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from knowledge_platform.connectors.website.connector import WebsiteConnector, WebsiteSettings
from knowledge_platform.errors import SourceError
from tests.fakes.http_fake import FakeClock
from tests.fakes.website_server import WebsiteFake

pytestmark = pytest.mark.integration

ABOUT = (
    "Surefoot is a conversion rate optimisation agency that runs experiments for brands.\n\n"
    "## Team\n\nOur strategists, designers and developers work together on every test.\n\n"
    "## Values\n\nWe measure carefully and report honestly, including tests that lose."
)


def body(topic: str) -> str:
    return f"This page explains {topic} in enough words for the extractor to keep it as text."


@pytest.fixture
def site() -> Iterator[WebsiteFake]:
    with WebsiteFake() as server:
        server.add_page("/about", "About us", ABOUT)
        server.add_page("/services", "Services", body("our services"))
        server.add_page("/blog/first", "First post", body("the first post"), lastmod=False)
        server.add_page("/blog/second", "Second post", body("the second post"))
        server.add_page("/private/pricing", "Internal pricing", body("secret pricing"))
        server.add_raw("/empty", "<html><head><title>Empty</title></head><body></body></html>")
        yield server


def connector(
    site: WebsiteFake, clock: FakeClock | None = None, **overrides: Any
) -> WebsiteConnector:
    clock = clock or FakeClock()
    settings = WebsiteSettings.model_validate({"base_url": site.url(), **overrides})
    return WebsiteConnector(settings, "internal", sleep=clock.sleep, clock=clock)


def test_full_pull_follows_robots_and_the_sitemap_index(site: WebsiteFake) -> None:
    result = connector(site).pull(None)

    docs = {d.source_id: d for d in result.documents}
    assert result.full is True
    assert set(docs) == {
        site.url(p) for p in ("/about", "/services", "/blog/first", "/blog/second")
    }
    about = docs[site.url("/about")]
    assert about.title == "About us"
    assert about.kind == "page" and about.trust == "public"
    assert "## Team" in about.text and "## Values" in about.text
    assert "All rights reserved" not in about.text  # boilerplate dropped
    assert about.version == site.etag("/about")
    assert about.date is not None and about.date.isoformat() == "2024-05-01"
    assert docs[site.url("/blog/first")].date is not None  # from Last-Modified: no lastmod
    assert [(s.source_id, s.reason) for s in result.skipped] == [
        (site.url("/empty"), "no main text could be extracted")
    ]
    paths = [r.path for r in site.log]
    assert paths[:2] == ["/robots.txt", "/sitemap_index.xml"]  # found via robots' Sitemap line
    assert "/sitemaps/pages-2.xml.gz" in paths  # a gzipped child sitemap
    assert not any(p.startswith("/private/") for p in paths)  # disallowed: never requested
    assert {r.headers["User-Agent"] for r in site.log} == {"SurefootKnowledgeBot/1.0"}
    assert result.cursor.pages[site.url("/about")].etag == site.etag("/about")


def test_unchanged_pages_answer_304_and_yield_nothing(site: WebsiteFake) -> None:
    conn = connector(site)
    first = conn.pull(None)
    site.clear_log()
    site.update_page("/services", "Services", body("our renamed services"))

    second = conn.pull(first.cursor)

    assert second.full is False
    assert [d.source_id for d in second.documents] == [site.url("/services")]
    assert second.deleted == []
    about = next(r for r in site.log if r.path == "/about")
    assert about.status == 304
    assert about.headers["If-None-Match"] == site.etag("/about")
    assert about.headers["If-Modified-Since"].endswith("GMT")
    assert set(second.cursor.pages) == set(first.cursor.pages)
    # A page with no main text is said once per version: its record keeps why, its 304 is silent.
    assert first.cursor.pages[site.url("/empty")].skip == "no main text could be extracted"
    assert second.skipped == []


def test_last_modified_alone_is_enough_for_304() -> None:
    with WebsiteFake(send_etag=False) as site:
        site.add_page("/about", "About us", ABOUT)
        conn = connector(site)
        first = conn.pull(None)
        second = conn.pull(first.cursor)
        assert second.documents == [] and second.deleted == []
        assert [r.status for r in site.log if r.path == "/about"] == [200, 304]
        assert first.documents[0].version.endswith("GMT")  # the Last-Modified value


def test_deleted_pages_are_confirmed_by_a_fetch(site: WebsiteFake) -> None:
    conn = connector(site)
    first = conn.pull(None)
    site.clear_log()
    site.unlist("/services")  # out of the sitemap, still answers 200: inferred
    site.unlist("/about")
    site.remove("/about", 404)  # out of the sitemap and 404: confirmed
    site.remove("/blog/first", 410)
    site.remove("/blog/second", 404)

    second = conn.pull(first.cursor)

    assert second.documents == []
    assert set(second.deleted) == {site.url(p) for p in ("/about", "/blog/first", "/blog/second")}
    assert second.missing == [site.url("/services")]
    assert [r.status for r in site.log if r.path == "/services"] == [304]  # asked, once
    third = conn.pull(second.cursor)
    assert third.deleted == [] and third.missing == [site.url("/services")]
    assert set(third.cursor.pages) == {site.url("/services"), site.url("/empty")}


def test_robots_404_allows_everything(site: WebsiteFake) -> None:
    site.robots_status = 404
    result = connector(site, sitemap_url=site.url("/sitemap_index.xml")).pull(None)
    assert site.url("/private/pricing") in {d.source_id for d in result.documents}


def test_include_exclude_and_max_pages(site: WebsiteFake) -> None:
    result = connector(
        site, include=["/blog/", "/about"], exclude=["/blog/second"], max_pages=1
    ).pull(None)
    assert [d.source_id for d in result.documents] == [site.url("/about")]
    assert [s.reason for s in result.skipped] == ["beyond max_pages=1"]
    assert [s.source_id for s in result.skipped] == [site.url("/blog/first")]


def test_a_type_that_is_not_read_is_listed_as_unsupported(site: WebsiteFake) -> None:
    site.add_raw("/logo.png", b"\x89PNG\r\n", content_type="image/png")
    result = connector(site).pull(None)
    (logo,) = [s for s in result.skipped if s.source_id == site.url("/logo.png")]
    assert logo.unsupported
    assert logo.reason == "not an HTML page, nor a file type `files` reads (image/png)"


def test_rate_limited_page_is_retried_after_the_wait(site: WebsiteFake) -> None:
    clock = FakeClock()
    site.inject("/about", 429, "slow down", headers={"Retry-After": "3"}, times=1)
    result = connector(site, clock).pull(None)
    assert clock.sleeps == [3.0]
    assert site.url("/about") in {d.source_id for d in result.documents}


def test_sitemap_outage_fails_the_pull(site: WebsiteFake) -> None:
    clock = FakeClock()
    site.inject("/sitemap_index.xml", 500, "<h1>Internal Server Error</h1>", times=None)
    with pytest.raises(SourceError) as exc:
        connector(site, clock).pull(None)
    assert str(exc.value) == (
        "website: GET /sitemap_index.xml failed with HTTP 500 after 5 attempts: "
        "<h1>Internal Server Error</h1>"
    )


def test_robots_5xx_fails_rather_than_disallowing_everything(site: WebsiteFake) -> None:
    site.robots_status = 503
    with pytest.raises(SourceError, match=r"GET /robots.txt failed with HTTP 503 after 5 attempts"):
        connector(site).pull(None)


def test_a_malformed_sitemap_keeps_the_pages_it_listed(site: WebsiteFake) -> None:
    conn = connector(site)
    first = conn.pull(None)
    listed = {site.url(p) for p in ("/about", "/services")}  # pages-1.xml lists these two
    site.inject("/sitemaps/pages-1.xml", 200, "<urlset><url><loc>oops</url>", times=None)
    second = conn.pull(first.cursor)
    (skip,) = [s for s in second.skipped if "sitemaps/" in s.source_id]
    assert skip.source_id == site.url("/sitemaps/pages-1.xml")
    assert "is not well-formed XML" in skip.reason and set(skip.covers) == listed
    assert not listed & {*second.deleted, *second.missing}


def test_chrome_learned_later_is_dropped_from_pages_read_before(site: WebsiteFake) -> None:
    with WebsiteFake() as small:
        small.add_page("/one", "One", "Short note one.")
        small.add_page("/two", "Two", "Short note two.")
        conn = connector(small)
        first = conn.pull(None)  # two pages: too few to tell chrome from content
        assert all("Surefoot Home Services" in d.text for d in first.documents)
        small.add_page("/three", "Three", "Short note three.")
        small.clear_log()
        second = conn.pull(first.cursor)
        texts = {d.source_id.rsplit("/", 1)[-1]: d.text for d in second.documents}
        assert texts == {
            "one": "# One\n\nShort note one.",
            "two": "# Two\n\nShort note two.",
            "three": "# Three\n\nShort note three.",
        }
        # the two unchanged pages answered 304, then were read whole once for the new verdict
        assert [r.status for r in small.log if r.path == "/one"] == [304, 200]
        third = conn.pull(second.cursor)
        assert third.documents == []


def test_robots_disallow_is_inferred_and_a_registry_exclude_confirmed(site: WebsiteFake) -> None:
    conn = connector(site)
    first = conn.pull(None)
    site.disallow = ("/private/", "/services")  # a Disallow deployed by mistake: guarded
    second = conn.pull(first.cursor)
    assert second.missing == [site.url("/services")] and second.deleted == []
    assert "/services" not in [r.path for r in site.log[-10:]]  # never requested
    excluding = connector(site, exclude=["/blog/"])
    third = excluding.pull(second.cursor)
    assert set(third.deleted) == {site.url("/blog/first"), site.url("/blog/second")}


def test_a_site_whose_pages_all_fail_is_not_hammered(site: WebsiteFake) -> None:
    for n in range(12):
        site.add_page(f"/extra/{n}", f"Extra {n}", body(f"extra page {n}"))
    for path in site.pages:  # robots.txt and the sitemaps still answer
        site.remove(path, 503)
    result = connector(site, max_consecutive_failures=3).pull(None)
    asked = {r.path for r in site.log if r.status == 503}
    assert len(asked) == 3  # then the rest were not requested
    reasons = [s.reason for s in result.skipped]
    assert len(reasons) == 17 and sum("not requested" in r for r in reasons) == 14
