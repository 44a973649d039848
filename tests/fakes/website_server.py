"""A fake public website, written from the sitemaps.org 0.9 protocol, RFC 9309 (robots.txt),
RFC 9110 (conditional requests, redirects) and RFC 6596 (rel=canonical):

- robots.txt: a `User-agent: *` group (Disallow lines, an optional `Crawl-delay`), extra raw
  groups, a `Sitemap:` line; any status can be forced (4xx = allow all, 5xx = disallow all
  to a crawler that follows RFC 9309).
- A sitemap index (`<lastmod>` per sitemap) listing named sitemap files (a `.gz` name is
  served gzipped) and, for pages given no sitemap, `pages-N.xml` files of `per_sitemap`
  urls each (every second one gzipped).
- Pages rendered with site chrome real themes put in plain `<div>`s (a brand bar with the
  menu, a call-to-action banner) around the article, a self-referencing
  `<link rel="canonical">` (or one naming another URL), a footer.
- Every 200 (pages, PDFs, robots.txt, sitemaps) carries `ETag` and `Last-Modified`; a
  conditional GET answers 304 with no body, repeating `ETag`, `Cache-Control` and `Vary`
  (RFC 9110 15.4.5; `Date` comes from the server); `If-None-Match` wins over
  `If-Modified-Since`, weak comparison.
- A moved page answers 301 with an absolute `Location`; its old URL may stay in the sitemap.
- Pages that answer 404, 410 or 500; request arrival times (for Crawl-delay)."""

from __future__ import annotations

import datetime as dt
import email.utils
import gzip
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from werkzeug.wrappers import Request, Response

from tests.fakes.http_fake import FakeServer

SITEMAPS_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
BRAND = "Surefoot Home Services: conversion experts for home-service brands."
CTA = "Book a free CRO consultation: our strategists review your funnel in thirty minutes."
MENU = ("Home", "Services", "Case studies", "Blog", "Contact")


@dataclass
class Page:
    title: str = ""
    body: str = ""
    #: Raw content instead of a rendered article (a PDF, an odd HTML page).
    raw: str | bytes | None = None
    modified: dt.datetime = dt.datetime(2024, 5, 1, tzinfo=dt.UTC)
    status: int = 200
    listed: bool = True
    lastmod: bool = True
    content_type: str = "text/html; charset=utf-8"
    #: Sitemap file (e.g. "a.xml", "b.xml.gz") listing the page; None: an automatic pages-N.
    sitemap: str | None = None
    #: Path `<link rel="canonical">` names; None: the page's own path.
    canonical: str | None = None
    chrome: bool = True
    #: Path this URL answers 301 (or `status`) to; the page then has no content of its own.
    location: str | None = None


def page_html(title: str, body: str, *, canonical: str | None = None, chrome: bool = True) -> str:
    """An article inside the site's chrome; body blocks starting `## ` become h2."""
    blocks = []
    for block in body.split("\n\n"):
        if block.startswith("## "):
            blocks.append(f"<h2>{escape(block[3:])}</h2>")
        else:
            blocks.append(f"<p>{escape(block)}</p>")
    link = f'<link rel="canonical" href={quoteattr(canonical)}>' if canonical else ""
    top = ""
    if chrome:
        items = "".join(f'<li><a href="/{m.lower()}">{m}</a></li>' for m in MENU)
        top = (
            f'<div class="top-bar"><div class="brand"><p>{BRAND}</p></div>'
            f'<ul class="menu">{items}</ul></div>'
            f'<div class="cta-banner"><p>{CTA}</p><a class="btn" href="/contact">'
            "Book now</a></div>"
        )
    return (
        f"<!doctype html><html><head><title>{escape(title)} | Surefoot</title>{link}</head>"
        f"<body>{top}"
        '<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/blog/">Blog</a></nav>'
        f"<main><article><h1>{escape(title)}</h1>{''.join(blocks)}</article></main>"
        "<footer>© Surefoot. All rights reserved.</footer></body></html>"
    )


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:16] + '"'


class WebsiteFake(FakeServer):
    def __init__(
        self,
        *,
        per_sitemap: int = 2,
        disallow: tuple[str, ...] = ("/private/",),
        index_path: str = "/sitemap_index.xml",
        send_etag: bool = True,
        crawl_delay: float | None = None,
    ) -> None:
        super().__init__()
        self.per_sitemap = per_sitemap
        self.disallow = disallow
        self.index_path = index_path
        self.send_etag = send_etag
        self.crawl_delay = crawl_delay
        #: Raw robots.txt groups appended after the `*` group (e.g. for another agent).
        self.robots_extra = ""
        self.robots_status = 200
        #: While True every change carries the same timestamp (lastmod, Last-Modified).
        self.frozen = False
        self.pages: dict[str, Page] = {}
        #: Named sitemap files in the index, in order (pages may add more).
        self.sitemaps: list[str] = []
        #: (path, clock()) of every request, injected answers included; a test may share
        #: its FakeClock with the connector to see the gaps the connector waited.
        self.arrivals: list[tuple[str, float]] = []
        self.clock: Callable[[], float] = time.monotonic
        self._now = dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.UTC)
        self._stamps: dict[str, tuple[str, dt.datetime]] = {}

    # -- mutations ---------------------------------------------------------------------------
    def _tick(self) -> dt.datetime:
        if not self.frozen:
            self._now += dt.timedelta(minutes=1)
        return self._now

    def etag(self, path: str) -> str:
        """The ETag `path` is served with now."""
        return _etag(self._content(path, self.pages[path]))

    def add_sitemap(self, name: str) -> None:
        if name not in self.sitemaps:
            self.sitemaps.append(name)

    def add_page(self, path: str, title: str, body: str, **options: object) -> None:
        self._add(path, Page(title=title, body=body, **options))  # type: ignore[arg-type]

    def add_raw(self, path: str, content: str | bytes, **options: object) -> None:
        self._add(path, Page(raw=content, **options))  # type: ignore[arg-type]

    def _add(self, path: str, page: Page) -> None:
        page.modified = self._tick()
        if page.sitemap:
            self.add_sitemap(page.sitemap)
        self.pages[path] = page

    def update_page(self, path: str, title: str, body: str) -> None:
        page = self.pages[path]
        page.title, page.body, page.modified = title, body, self._tick()

    def remove(self, path: str, status: int = 404) -> None:
        """The page now answers `status` (404, 410, 500...) but stays in the sitemap."""
        self.pages[path].status = status

    def unlist(self, path: str) -> None:
        """Drop the page from the sitemap (it still answers)."""
        self.pages[path].listed = False

    def move(
        self,
        old: str,
        new: str,
        *,
        keep_listed: bool = True,
        status: int = 301,
        sitemap: str | None = None,
    ) -> None:
        """The page now lives at `new` (in `sitemap`, default the old one); `old` answers a
        redirect there and stays in the sitemap when `keep_listed` (a stale sitemap)."""
        page = self.pages[old]
        moved = Page(
            title=page.title,
            body=page.body,
            raw=page.raw,
            content_type=page.content_type,
            sitemap=sitemap or page.sitemap,
            chrome=page.chrome,
        )
        self._add(new, moved)
        self.pages[old] = Page(
            location=new,
            status=status,
            listed=keep_listed and page.listed,
            sitemap=page.sitemap,
            modified=self._tick(),
        )

    # -- serving -----------------------------------------------------------------------------
    def _respond(self, request: Request) -> Response:
        with self._lock:
            self.arrivals.append((request.path, self.clock()))
        return super()._respond(request)

    def handle(self, request: Request) -> Response:
        path = request.path
        if path == "/robots.txt":
            if self.robots_status != 200:
                return Response("", self.robots_status, content_type="text/plain")
            return self._conditional(request, path, self._robots().encode(), "text/plain")
        if path == self.index_path:
            return self._conditional(request, path, self._index(), "application/xml")
        if path.startswith("/sitemaps/"):
            return self._child(request, path.removeprefix("/sitemaps/"))
        page = self.pages.get(path)
        if page is None:
            return Response("<h1>Not found</h1>", 404, content_type="text/html")
        if page.location is not None:
            target = self.url(page.location)
            return Response(
                f'<a href="{target}">Moved</a>',
                page.status,
                {"Location": target},
                content_type="text/html",
            )
        if page.status != 200:
            text = "Internal Server Error" if page.status >= 500 else "Gone"
            return Response(f"<h1>{text}</h1>", page.status, content_type="text/html")
        return self._conditional(
            request, path, self._content(path, page), page.content_type, page.modified
        )

    def _content(self, path: str, page: Page) -> bytes:
        if page.raw is not None:
            return page.raw if isinstance(page.raw, bytes) else page.raw.encode()
        canonical = self.url(page.canonical or path)
        return page_html(page.title, page.body, canonical=canonical, chrome=page.chrome).encode()

    def _stamp(self, key: str, body: bytes) -> dt.datetime:
        """Last-Modified of a generated resource: moves when its body changes."""
        digest = hashlib.sha256(body).hexdigest()
        seen = self._stamps.get(key)
        if seen is None or seen[0] != digest:
            seen = (digest, self._tick())
            self._stamps[key] = seen
        return seen[1]

    def _conditional(
        self,
        request: Request,
        key: str,
        body: bytes,
        content_type: str,
        modified: dt.datetime | None = None,
    ) -> Response:
        modified = modified or self._stamp(key, body)
        etag = _etag(body)
        headers = {"Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
        if self.send_etag:
            headers["ETag"] = etag
        last_modified = email.utils.format_datetime(modified, usegmt=True)
        inm = request.headers.get("If-None-Match")
        ims = request.headers.get("If-Modified-Since")
        fresh = False
        if inm is not None:  # RFC 9110 13.1.3: If-Modified-Since is then ignored
            tags = {t.strip().removeprefix("W/") for t in inm.split(",")}
            fresh = self.send_etag and (etag in tags or "*" in tags)
        elif ims is not None:
            try:
                since = email.utils.parsedate_to_datetime(ims)
            except (TypeError, ValueError):
                since = None
            fresh = since is not None and modified.replace(microsecond=0) <= since
        if fresh:
            if not self.send_etag:  # Last-Modified guides the cache when there is no ETag
                headers["Last-Modified"] = last_modified
            return Response(None, 304, headers)
        headers["Last-Modified"] = last_modified
        return Response(body, 200, headers, content_type=content_type)

    def _robots(self) -> str:
        rules = "".join(f"Disallow: {p}\n" for p in self.disallow)
        delay = f"Crawl-delay: {self.crawl_delay:g}\n" if self.crawl_delay is not None else ""
        extra = f"\n{self.robots_extra.strip()}\n" if self.robots_extra else ""
        return f"User-agent: *\n{rules}{delay}{extra}\nSitemap: {self.url(self.index_path)}\n"

    def _auto(self) -> list[str]:
        return [p for p, page in self.pages.items() if page.listed and page.sitemap is None]

    def _auto_names(self) -> list[str]:
        pages = len(self._auto())
        count = -(-pages // self.per_sitemap) if pages or self.sitemaps else 1
        return [f"pages-{n}.xml" + (".gz" if n % 2 == 0 else "") for n in range(1, count + 1)]

    def _listed_in(self, name: str) -> list[str] | None:
        if name in self.sitemaps:
            return [p for p, page in self.pages.items() if page.listed and page.sitemap == name]
        names = self._auto_names()
        if name not in names:
            return None
        n = names.index(name)
        return self._auto()[n * self.per_sitemap : (n + 1) * self.per_sitemap]

    def _urlset(self, paths: list[str]) -> bytes:
        urls = []
        for p in paths:
            page = self.pages[p]
            lastmod = f"<lastmod>{page.modified.isoformat()}</lastmod>" if page.lastmod else ""
            urls.append(f"<url><loc>{escape(self.url(p))}</loc>{lastmod}</url>")
        xml = f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="{SITEMAPS_NS}">'
        return (xml + "".join(urls) + "</urlset>").encode()

    def _index(self) -> bytes:
        entries = []
        for name in self._auto_names() + self.sitemaps:
            paths = self._listed_in(name) or []
            stamp = self._stamp(f"/sitemaps/{name}", self._urlset(paths))
            entries.append(
                f"<sitemap><loc>{self.url('/sitemaps/' + name)}</loc>"
                f"<lastmod>{stamp.isoformat()}</lastmod></sitemap>"
            )
        xml = f'<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        return (xml + "".join(entries) + "</sitemapindex>").encode()

    def _child(self, request: Request, name: str) -> Response:
        paths = self._listed_in(name)
        if paths is None:
            return Response("not found", 404)
        body = self._urlset(paths)
        modified = self._stamp(f"/sitemaps/{name}", body)
        if name.endswith(".gz"):
            return self._conditional(
                request, request.path, gzip.compress(body, mtime=0), "application/gzip", modified
            )
        return self._conditional(request, request.path, body, "application/xml", modified)
