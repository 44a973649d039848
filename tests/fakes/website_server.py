"""A fake public website: robots.txt (a Disallow group and a `Sitemap:` line), a sitemap index
whose child sitemaps hold `per_sitemap` urls each (every second one gzipped), pages with ETag and
Last-Modified answering 304 to conditional GETs (If-None-Match wins over If-Modified-Since), and
pages that answer 404 or 410."""

from __future__ import annotations

import datetime as dt
import email.utils
import gzip
import hashlib
from dataclasses import dataclass
from xml.sax.saxutils import escape

from werkzeug.wrappers import Request, Response

from tests.fakes.http_fake import FakeServer

SITEMAPS_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


@dataclass
class Page:
    html: str
    modified: dt.datetime
    status: int = 200
    listed: bool = True
    lastmod: bool = True
    content_type: str = "text/html; charset=utf-8"

    @property
    def etag(self) -> str:
        return '"' + hashlib.sha256(self.html.encode()).hexdigest()[:16] + '"'


def page_html(title: str, body: str) -> str:
    """Boilerplate around an article; body lines starting `## ` become h2, others paragraphs."""
    blocks = []
    for block in body.split("\n\n"):
        if block.startswith("## "):
            blocks.append(f"<h2>{escape(block[3:])}</h2>")
        else:
            blocks.append(f"<p>{escape(block)}</p>")
    return (
        f"<!doctype html><html><head><title>{escape(title)} | Surefoot</title></head><body>"
        '<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/blog/">Blog</a></nav>'
        f"<main><article><h1>{escape(title)}</h1>{''.join(blocks)}</article></main>"
        "<footer>© Surefoot. All rights reserved.</footer></body></html>"
    )


class WebsiteFake(FakeServer):
    def __init__(
        self,
        *,
        per_sitemap: int = 2,
        disallow: tuple[str, ...] = ("/private/",),
        index_path: str = "/sitemap_index.xml",
        send_etag: bool = True,
    ) -> None:
        super().__init__()
        self.per_sitemap = per_sitemap
        self.disallow = disallow
        self.index_path = index_path
        self.send_etag = send_etag
        self.robots_status = 200
        self.pages: dict[str, Page] = {}
        self._now = dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.UTC)

    # -- mutations ---------------------------------------------------------------------------
    def _tick(self) -> dt.datetime:
        self._now += dt.timedelta(minutes=1)
        return self._now

    def add_page(self, path: str, title: str, body: str, **options: object) -> None:
        self.add_raw(path, page_html(title, body), **options)

    def add_raw(self, path: str, html: str, **options: object) -> None:
        self.pages[path] = Page(html=html, modified=self._tick(), **options)  # type: ignore[arg-type]

    def update_page(self, path: str, title: str, body: str) -> None:
        page = self.pages[path]
        page.html, page.modified = page_html(title, body), self._tick()

    def remove(self, path: str, status: int = 404) -> None:
        """The page now answers `status` (404 or 410) but stays in the sitemap."""
        self.pages[path].status = status

    def unlist(self, path: str) -> None:
        """Drop the page from the sitemap (it still answers 200)."""
        self.pages[path].listed = False

    # -- serving -----------------------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        path = request.path
        if path == "/robots.txt":
            rules = "".join(f"Disallow: {p}\n" for p in self.disallow)
            text = f"User-agent: *\n{rules}\nSitemap: {self.url(self.index_path)}\n"
            return Response(text if self.robots_status == 200 else "", self.robots_status,
                            content_type="text/plain")  # fmt: skip
        if path == self.index_path:
            return self._index()
        if path.startswith("/sitemaps/pages-"):
            return self._child(path)
        page = self.pages.get(path)
        if page is None:
            return Response("<h1>Not found</h1>", 404, content_type="text/html")
        if page.status != 200:
            return Response("<h1>Gone</h1>", page.status, content_type="text/html")
        return self._serve(request, page)

    def _serve(self, request: Request, page: Page) -> Response:
        headers = {"Last-Modified": email.utils.format_datetime(page.modified, usegmt=True)}
        if self.send_etag:
            headers["ETag"] = page.etag
        inm = request.headers.get("If-None-Match")
        ims = request.headers.get("If-Modified-Since")
        if inm is not None:
            tags = {t.strip().removeprefix("W/") for t in inm.split(",")}
            if self.send_etag and (page.etag in tags or "*" in tags):
                return Response(None, 304, headers)
        elif ims is not None:
            try:
                since = email.utils.parsedate_to_datetime(ims)
            except (TypeError, ValueError):
                since = None
            if since is not None and page.modified.replace(microsecond=0) <= since:
                return Response(None, 304, headers)
        return Response(page.html, 200, headers, content_type=page.content_type)

    def _listed(self) -> list[str]:
        return [p for p, page in self.pages.items() if page.listed]

    def _child_names(self) -> list[str]:
        count = max(1, -(-len(self._listed()) // self.per_sitemap))
        return [f"pages-{n}.xml" + (".gz" if n % 2 == 0 else "") for n in range(1, count + 1)]

    def _index(self) -> Response:
        entries = "".join(
            f"<sitemap><loc>{self.url('/sitemaps/' + name)}</loc></sitemap>"
            for name in self._child_names()
        )
        xml = f'<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="{SITEMAPS_NS}">'
        return Response(xml + entries + "</sitemapindex>", 200, content_type="application/xml")

    def _child(self, path: str) -> Response:
        name = path.removeprefix("/sitemaps/")
        names = self._child_names()
        if name not in names:
            return Response("not found", 404)
        n = names.index(name)
        chunk = self._listed()[n * self.per_sitemap : (n + 1) * self.per_sitemap]
        urls = []
        for p in chunk:
            page = self.pages[p]
            lastmod = f"<lastmod>{page.modified.isoformat()}</lastmod>" if page.lastmod else ""
            urls.append(f"<url><loc>{escape(self.url(p))}</loc>{lastmod}</url>")
        xml = f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="{SITEMAPS_NS}">'
        body = (xml + "".join(urls) + "</urlset>").encode()
        if name.endswith(".gz"):
            return Response(gzip.compress(body), 200, content_type="application/gzip")
        return Response(body, 200, content_type="application/xml")
