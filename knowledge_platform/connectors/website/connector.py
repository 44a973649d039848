"""The public website: pages listed by the sitemap(s), allowed by robots.txt, main text
extracted to markdown by trafilatura.

The first pull (or `full=True`) fetches every page and returns `full=True`. Later pulls send
conditional GETs (`If-None-Match` / `If-Modified-Since` from the validators kept per url in the
cursor): a 304 page is unchanged and appears neither in `documents` nor in `deleted`. The cursor
remembers the known url set, so a page that left the sitemap (or is now disallowed, excluded,
404 or 410) is reported in `deleted`.
"""

from __future__ import annotations

import email.utils
from typing import Any
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

import httpx
import trafilatura

from knowledge_platform.connectors.base import NOTHING_KNOWN, Known, PullResult, Skipped
from knowledge_platform.connectors.http import HttpClient, HttpConnector
from knowledge_platform.connectors.website.settings import WebsiteSettings
from knowledge_platform.connectors.website.sitemap import read_robots, read_sitemaps
from knowledge_platform.frontmatter import parse_date
from knowledge_platform.models import Document, content_hash

_GONE = (404, 410)
_REFUSED = (401, 403, 451)


def _http_date(value: str | None) -> Any:
    if not value:
        return None
    try:
        return email.utils.parsedate_to_datetime(value).date()
    except (TypeError, ValueError):
        return None


class WebsiteConnector(HttpConnector):
    name = "website"
    settings_model = WebsiteSettings
    settings: WebsiteSettings

    @property
    def cfg(self) -> WebsiteSettings:
        return self.settings

    def pull(
        self, cursor: dict[str, Any] | None, *, full: bool = False, known: Known = NOTHING_KNOWN
    ) -> PullResult:
        cfg = self.cfg
        full = full or not cursor or "pages" not in cursor
        known: dict[str, dict[str, Any]] = dict((cursor or {}).get("pages") or {})
        client = HttpClient.from_settings(
            "website",
            cfg,
            headers={"User-Agent": cfg.user_agent},
            sleep=self._sleep,
            clock=self._clock,
            transport=self._transport,
            follow_redirects=True,
        )
        documents: list[Document] = []
        skipped: list[Skipped] = []
        pages: dict[str, dict[str, Any]] = {}
        with client as http:
            robots = read_robots(http, cfg.base_url)
            listed = read_sitemaps(http, self._sitemaps(robots), cfg.max_sitemaps)
            wanted = self._select(listed, robots, skipped)
            for url, lastmod in wanted.items():
                prev = None if full else known.get(url)
                state = self._fetch(http, url, lastmod, prev, documents, skipped)
                if state is not None:
                    pages[url] = state
            requests = http.requests
        deleted = [] if full else sorted(u for u in known if u not in pages)
        return PullResult(
            documents=documents,
            full=full,
            deleted=deleted,
            skipped=skipped,
            cursor={"pages": pages},
            requests=requests,
        )

    def _sitemaps(self, robots: RobotFileParser | None) -> list[str]:
        """`sitemap_url` if set, else robots.txt's `Sitemap:` lines, else /sitemap.xml."""
        if self.cfg.sitemap_url:
            return [self.cfg.sitemap_url]
        listed = robots.site_maps() if robots is not None else None
        return list(listed or [f"{self.cfg.base_url.rstrip('/')}/sitemap.xml"])

    def _select(
        self,
        listed: dict[str, str | None],
        robots: RobotFileParser | None,
        skipped: list[Skipped],
    ) -> dict[str, str | None]:
        cfg = self.cfg
        home = urlsplit(cfg.base_url)
        wanted: dict[str, str | None] = {}
        for url, lastmod in listed.items():
            parts = urlsplit(url)
            if (parts.scheme, parts.netloc) != (home.scheme, home.netloc):
                continue
            path = parts.path or "/"
            if cfg.include and not any(path.startswith(p) for p in cfg.include):
                continue
            if any(path.startswith(p) for p in cfg.exclude):
                continue
            if robots is not None and not robots.can_fetch(cfg.user_agent, url):
                continue
            if len(wanted) >= cfg.max_pages:
                skipped.append(Skipped(source_id=url, reason=f"beyond max_pages={cfg.max_pages}"))
                continue
            wanted[url] = lastmod
        return wanted

    def _fetch(
        self,
        http: HttpClient,
        url: str,
        lastmod: str | None,
        prev: dict[str, Any] | None,
        documents: list[Document],
        skipped: list[Skipped],
    ) -> dict[str, Any] | None:
        """Fetch one page; returns its cursor state, or None when the page is gone."""
        headers: dict[str, str] = {}
        if prev and prev.get("etag"):
            headers["If-None-Match"] = prev["etag"]
        if prev and prev.get("last_modified"):
            headers["If-Modified-Since"] = prev["last_modified"]
        response = http.get(url, headers=headers, allow=(304, *_GONE, *_REFUSED))
        status = response.status_code
        if status == 304 and prev is not None:
            return prev
        if status in _GONE:
            return None
        if status != 200:
            skipped.append(Skipped(source_id=url, reason=f"HTTP {status}"))
            return {}  # still listed: keep it known, refetch next time
        etag = response.headers.get("ETag")
        last_modified = response.headers.get("Last-Modified")
        result = self._document(url, response, lastmod, etag or last_modified)
        if isinstance(result, Skipped):
            skipped.append(result)
            return {}
        documents.append(result)
        return {"etag": etag, "last_modified": last_modified, "version": result.version}

    def _document(
        self, url: str, response: httpx.Response, lastmod: str | None, validator: str | None
    ) -> Document | Skipped:
        ctype = response.headers.get("Content-Type", "")
        if "html" not in ctype.lower():
            return Skipped(source_id=url, reason=f"not an HTML page ({ctype or 'no content type'})")
        html = response.text
        text = trafilatura.extract(
            html,
            url=url,
            output_format="markdown",
            include_formatting=True,
            include_tables=True,
            include_links=False,
            include_comments=False,
        )
        if not text or not text.strip():
            return Skipped(source_id=url, reason="no main text could be extracted")
        meta = trafilatura.extract_metadata(html, default_url=url)
        title = (meta.title if meta is not None else None) or urlsplit(url).path or url
        return Document(
            source=self.name,
            source_id=url,
            scope=self.scope,
            title=title.strip(),
            text=text.strip(),
            kind="page",
            url=url,
            date=parse_date(lastmod) or _http_date(response.headers.get("Last-Modified")),
            version=validator or content_hash(text)[:16],
            trust="public",
            confidentiality=self.cfg.confidentiality,
            extra={"lastmod": lastmod} if lastmod else {},
        )
