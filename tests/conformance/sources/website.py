"""The website: one fake site (tests/fakes/website_server.py) serves both scopes. Containers
are the sitemap files of its sitemap index (`a.xml`, and `b.xml.gz` gzipped); internal reads
every path but `/acme/`, the client acme reads only `/acme/` (path-prefix include rules).
A page's title is its `<title>`/`<h1>`; moves are 301 redirects."""

from __future__ import annotations

from typing import Any

from tests.conformance.harness import SourceHarness
from tests.fakes.website_server import WebsiteFake

SITEMAPS = {"a": "a.xml", "b": "b.xml.gz"}


class WebsiteHarness(SourceHarness):
    name = "website"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.site = WebsiteFake(crawl_delay=5)
        self.paths: dict[str, str] = {}
        #: After awkward_paging: new pages go to small automatic sitemaps (pages-N).
        self.paged = False

    def start(self) -> None:
        self.site.start()
        for name in SITEMAPS.values():
            self.site.add_sitemap(name)

    def stop(self) -> None:
        self.site.stop()

    def settings(self, scope: str) -> dict[str, Any]:
        rules = {"include": ["/acme/"]} if scope == "acme" else {"exclude": ["/acme/"]}
        # robots.txt asks for Crawl-delay: 5; the cap keeps the run to seconds.
        return {
            "base_url": self.site.url(),
            "backoff_seconds": 0.01,
            "max_wait_seconds": 5,
            "max_crawl_delay_seconds": 0.01,
            **rules,
        }

    @staticmethod
    def _path(key: str, scope: str, container: str) -> str:
        prefix = "/acme" if scope == "acme" else ""
        return f"{prefix}/{container}/{key.replace('_', '-')}"

    def create(
        self, key: str, title: str, text: str, *, scope: str = "internal", container: str = "a"
    ) -> None:
        path = self._path(key, scope, container)
        sitemap = None if self.paged else SITEMAPS[container]
        self.site.add_page(path, title, text, sitemap=sitemap)
        self.paths[key] = path

    def edit(self, key: str, text: str) -> None:
        path = self.paths[key]
        self.site.update_page(path, self.site.pages[path].title, text)

    def delete(self, key: str) -> None:
        """Deleted in the CMS: out of the sitemap, and the URL answers 404."""
        path = self.paths.pop(key)
        self.site.remove(path, 404)
        self.site.unlist(path)

    def archive(self, key: str) -> None:
        """Unlisted: taken out of the sitemap while the URL still answers 200."""
        self.site.unlist(self.paths[key])

    def move(self, key: str, container: str) -> None:
        """A new URL in the other sitemap; the old one answers 301 and stays in its sitemap
        (a stale sitemap)."""
        old = self.paths[key]
        new = self._path(key, "internal", container) + "-moved"
        self.site.move(old, new, sitemap=SITEMAPS[container])
        self.paths[key] = new

    def move_scope(self, key: str, scope: str) -> None:
        """Moved under the acme prefix with a 301; the old URL leaves the sitemap."""
        old = self.paths[key]
        new = self._path(key, scope, "a")
        self.site.move(old, new, keep_listed=False)
        self.paths[key] = new

    def rename(self, key: str, title: str) -> None:
        path = self.paths[key]
        self.site.update_page(path, title, self.site.pages[path].body)

    def create_in_new_container(self, key: str, title: str, text: str) -> None:
        """A sitemap file added to the index after the first pull."""
        path = f"/news/{key}"
        self.site.add_page(path, title, text, sitemap="news.xml.gz")
        self.paths[key] = path

    def child_change(self, key: str, text: str) -> None:
        """A block of the page changes (a comment, a shared widget) while neither the
        sitemap's `<lastmod>` nor `Last-Modified` moves; only the ETag does."""
        page = self.site.pages[self.paths[key]]
        page.body += "\n\n" + text

    def awkward_paging(self) -> None:
        """A sitemap index is the website's paging: from now on new pages go to automatic
        sitemap files of 5 urls (the last one short, every second one gzipped) and every
        change carries the same timestamp."""
        self.paged = True
        self.site.per_sitemap = 5
        self.site.frozen = True

    def vanish(self, key: str) -> None:
        """Still listed in its sitemap, but the URL answers 410 Gone."""
        self.site.remove(self.paths[key], 410)

    def vanish_container(self) -> None:
        """Sitemap b answers 404 while the sitemap index still lists it."""
        self.site.inject("/sitemaps/b.xml.gz", 404, "Not Found", times=None)

    def restore_container(self) -> None:
        self.site.uninject("/sitemaps/b.xml.gz")

    def break_item(self, key: str) -> None:
        self.site.remove(self.paths[key], 500)

    def mend(self, key: str) -> None:
        self.site.remove(self.paths[key], 200)

    def rate_limit(self, *, retry_after: bool) -> None:
        headers = {"Retry-After": "1"} if retry_after else {}
        self.site.inject("/", 429, "Too Many Requests", headers=headers, times=1)

    def server_errors(self, count: int) -> None:
        self.site.inject("/", 503, "Service Unavailable", times=count)
