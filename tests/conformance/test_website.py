"""Website scenarios beside the shared suite (issue #18 items 2-4 and the website part of #11),
through the real assets against the fake site, asserting what search returns: one document
per canonical page, no site chrome in short pages, a failing sitemap or robots.txt never
empties the index, a page that left the sitemap but still answers is an inferred deletion."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conformance.harness import World
from tests.conformance.sources.website import WebsiteHarness
from tests.fakes.website_server import BRAND, CTA, Page

FILLER = (
    "Every engagement starts with a research sprint, then a testing roadmap, then "
    "experiments that run until they reach significance. "
)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    harness = WebsiteHarness(tmp_path, monkeypatch)
    harness.start()
    try:
        yield World(harness, tmp_path, monkeypatch)
    finally:
        harness.stop()


def _site(world: World) -> WebsiteHarness:
    assert isinstance(world.harness, WebsiteHarness)
    return world.harness


def test_a_moved_page_and_a_canonical_duplicate_are_one_document(world: World) -> None:
    h = _site(world)
    h.create("contact", "Contact", "Reach the toucan desk by phone on weekdays.")
    h.create("pricing", "Pricing", "The hornbill retainer costs less per test.")
    site = h.site
    # A print view listed in the sitemap whose rel=canonical names the pricing page.
    site.add_page(
        "/a/pricing-print",
        "Pricing",
        site.pages["/a/pricing"].body,
        sitemap="a.xml",
        canonical="/a/pricing",
    )
    world.run()
    pricing = world.docs_with("hornbill retainer")
    assert [h.chunk.url for h in pricing.values()] == [site.url("/a/pricing")]

    # /a/contact moves with a 301 while the sitemap still lists it (issue #18 item 2).
    site.move("/a/contact", "/a/contact-us")
    world.run()
    contact = world.docs_with("toucan desk")
    assert [h.chunk.url for h in contact.values()] == [site.url("/a/contact-us")]
    (hit,) = contact.values()
    assert hit.chunk.extra.get("aliases") == [site.url("/a/contact")]
    assert len(world.docs_with("hornbill retainer")) == 1


def test_short_pages_do_not_start_with_site_chrome(world: World) -> None:
    h = _site(world)
    for i, word in enumerate(("lark", "finch", "wren", "robin")):
        h.create(f"long{i}", f"Service {word}", f"The {word} service. " + FILLER * 6)
    for i, word in enumerate(("plover", "stilt", "godwit")):
        h.create(f"short{i}", f"Note {word}", f"Call the {word} line on Mondays.")
    world.run()
    texts = {hit.chunk.title: hit.chunk.text for hit in world.search("service line", limit=50)}
    short = {t: x for t, x in texts.items() if t.startswith("Note")}
    assert len(short) == 3, sorted(texts)
    chrome = [t for t, x in texts.items() if BRAND[:20] in x or CTA[:20] in x]
    assert chrome == [], f"site chrome left in {chrome}"
    assert all("line on Mondays" in x for x in short.values())


def test_a_failing_sitemap_keeps_the_pages_it_listed(world: World) -> None:
    h = _site(world)
    h.create("alpha", "Alpha", "The sora page lives in sitemap a.")
    h.create("beta", "Beta", "The rail page lives in sitemap b.", container="b")
    world.run()
    h.edit("alpha", "The sora page, edited, lives in sitemap a.")
    h.site.inject("/sitemaps/b.xml.gz", 500, "Internal Server Error", times=None)
    result = world.run()  # must succeed: one sitemap file is a sub-resource
    assert world.docs_with("sora page, edited")
    kept = world.docs_with("rail page")
    assert len(kept) == 1 and all(hit.chunk.extra.get("stale") for hit in kept.values())
    assert world.checks(result)["pull_complete"] is False

    h.site.clear_injections()
    h.site.inject("/sitemaps/b.xml.gz", 200, "<urlset><url><loc>oops</url>", times=None)
    world.run()  # a malformed sitemap is a failed sub-resource too
    assert len(world.docs_with("rail page")) == 1


def test_robots_txt_5xx_crawls_nothing_and_deletes_nothing(world: World) -> None:
    h = _site(world)
    h.create("alpha", "Alpha", "The crake page stays searchable.")
    world.run()
    h.site.robots_status = 503  # RFC 9309: assume complete disallow
    h.edit("alpha", "The crake page, edited while robots.txt fails.")
    h.site.clear_log()
    with pytest.raises(AssertionError, match=r"robots\.txt"):
        world.run()  # an outage of the whole site: the run fails and changes nothing
    assert {r.path for r in h.site.requests()} == {"/robots.txt"}
    assert world.docs_with("crake page stays")
    h.site.robots_status = 404  # RFC 9309: allow everything
    world.run()
    assert world.docs_with("edited while robots")


def test_pages_that_leave_the_sitemap_but_still_answer_are_inferred(world: World) -> None:
    h = _site(world)
    for i in range(10):
        h.create(f"p{i}", f"Page {i}", f"The dipper page number {i}.")
    world.run()
    for i in range(8):  # a broken sitemap generator drops most urls; the pages still answer
        h.site.unlist(h.paths[f"p{i}"])
    result = world.run()
    assert len(world.docs_with("dipper page")) == 10  # held by the deletion guard
    assert world.checks(result)["deletions_within_guard"] is False

    h.site.remove(h.paths["p0"], 404)  # confirmed by a fetch: removed whatever the guard
    world.run()
    assert len(world.docs_with("dipper page")) == 9


def test_one_fetch_per_url_per_run(world: World) -> None:
    """A page both in the sitemap and the target of a listed 301 (listed first) is fetched
    once a run, not again through the redirect (issue #24 item 6)."""
    h = _site(world)
    h.create("pricing", "Pricing", "The hoopoe retainer is billed monthly.")
    h.site.pages["/a/old-pricing"] = Page(location="/a/pricing", status=301, sitemap="a.xml")
    for full in (True, False):
        h.site.clear_log()
        world.run(full=full)
        paths = [r.path for r in h.site.requests()]
        twice = sorted({p for p in paths if paths.count(p) > 1})
        assert twice == [], f"fetched more than once in one {'full' if full else 'ordinary'} run"
    (hit,) = world.docs_with("hoopoe retainer").values()
    assert hit.chunk.url == h.site.url("/a/pricing")
    assert hit.chunk.extra.get("aliases") == [h.site.url("/a/old-pricing")]
