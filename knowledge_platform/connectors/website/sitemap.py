"""Sitemaps (sitemaps.org 0.9): index files, child sitemaps, gzip. Each file is fetched with a
conditional GET and its listing kept in the cursor, so a 304 reuses it. A file that fails
(5xx after the retries, malformed XML or gzip) is a failed sub-resource: the pages it listed
last time keep their last good version. One that answers 404/410 while its index still lists
it is a vanished container: its pages are kept too (stale), and the deletion guard holds
them. Only when every root sitemap fails has the listing itself failed (an outage: the run
fails)."""

from __future__ import annotations

import gzip
import xml.etree.ElementTree as ET
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from knowledge_platform.connectors.website.cursor import SitemapRecord
from knowledge_platform.connectors.website.fetch import Crawler, revalidated, validators_of
from knowledge_platform.errors import SourceError

_GZIP_MAGIC = b"\x1f\x8b"
_MAX_SITEMAP_BYTES = 50 * 1024 * 1024
_GONE = (404, 410)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child_text(element: ET.Element, name: str) -> str | None:
    for child in element:
        if _local(child.tag) == name and child.text and child.text.strip():
            return child.text.strip()
    return None


def parse_sitemap(content: bytes, where: str) -> tuple[list[str], dict[str, str | None]]:
    """(child sitemap urls, {page url: lastmod}) of one sitemap or sitemap index file."""
    if content[:2] == _GZIP_MAGIC:
        try:
            content = gzip.decompress(content)
        except (OSError, EOFError) as exc:
            raise SourceError(f"website: sitemap {where} is not valid gzip: {exc}") from None
    if len(content) > _MAX_SITEMAP_BYTES:
        raise SourceError(f"website: sitemap {where} is larger than 50 MB")
    try:
        root = ET.fromstring(content)
    except ET.ParseError as exc:
        raise SourceError(f"website: sitemap {where} is not well-formed XML: {exc}") from None
    kind = _local(root.tag)
    children: list[str] = []
    pages: dict[str, str | None] = {}
    if kind == "sitemapindex":
        children = [loc for s in root if (loc := _child_text(s, "loc"))]
    elif kind == "urlset":
        for entry in root:
            if _local(entry.tag) == "url" and (loc := _child_text(entry, "loc")):
                pages.setdefault(loc, _child_text(entry, "lastmod"))
    else:
        raise SourceError(f"website: {where} is not a sitemap (root element <{kind}>)")
    return children, pages


class SitemapGone(SourceError):
    """A sitemap answered 404/410: not found as a whole."""


@dataclass
class FailedSitemap:
    url: str
    reason: str
    #: The page urls it (and its children) listed when last read.
    pages: list[str]
    #: it answered "not found" (404/410), rather than failing
    gone: bool = False


@dataclass
class Listing:
    #: page url -> lastmod, from every sitemap read this run, in document order
    pages: dict[str, str | None] = field(default_factory=dict)
    #: sitemap url -> its record: the next run's cache
    cache: dict[str, SitemapRecord] = field(default_factory=dict)
    failed: list[FailedSitemap] = field(default_factory=list)
    #: the roots that answered (remembered for a run where robots.txt names none)
    roots: list[str] = field(default_factory=list)


def _read_one(
    crawler: Crawler, url: str, before: SitemapRecord | None, allow: Collection[int] = ()
) -> SitemapRecord | None:
    """The sitemap's cache entry; None when it answered a status in `allow`."""
    response = crawler.resource(url, before, (*allow, *_GONE))
    if response.status_code in allow:
        return None
    if response.status_code in _GONE:
        raise SitemapGone(f"website: GET {url} answered HTTP {response.status_code}")
    if response.status_code == 304 and before is not None:
        return revalidated(before, response)
    if response.status_code != 200:
        raise SourceError(f"website: GET {url} answered HTTP {response.status_code}")
    children, pages = parse_sitemap(response.content, url)
    return SitemapRecord(**dict(validators_of(response)), children=children, pages=pages)


def _keep(
    url: str, cached: Mapping[str, SitemapRecord], into: dict[str, SitemapRecord], pages: list[str]
) -> None:
    """Carry a failed sitemap's last good listing (and its children's) to the next run."""
    entry = cached.get(url)
    if entry is None or url in into:
        return
    into[url] = entry
    pages.extend(entry.pages)
    for child in entry.children:
        _keep(child, cached, into, pages)


def read_sitemaps(
    crawler: Crawler,
    roots: list[str],
    cached: Mapping[str, SitemapRecord],
    *,
    fresh: Collection[str] = (),
    max_sitemaps: int = 50,
    guessed: bool = False,
) -> Listing:
    """Every page url reachable from `roots`. `fresh`: sitemaps to fetch without validators.
    `guessed` roots (no robots.txt `Sitemap:` line to go by) that answer 404 are skipped."""
    listing = Listing()
    queue = list(dict.fromkeys(roots))
    seen: set[str] = set()
    first_error: SourceError | None = None
    while queue:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        if len(seen) > max_sitemaps:
            raise SourceError(f"website: more than {max_sitemaps} sitemaps; raise max_sitemaps")
        allow = _GONE if guessed and url in roots else ()
        try:
            entry = _read_one(crawler, url, None if url in fresh else cached.get(url), allow)
        except SourceError as exc:
            first_error = first_error or exc
            pages: list[str] = []
            _keep(url, cached, listing.cache, pages)
            reason = str(exc).removeprefix("website: ")
            listing.failed.append(
                FailedSitemap(
                    url, reason, list(dict.fromkeys(pages)), gone=isinstance(exc, SitemapGone)
                )
            )
            continue
        if entry is None:  # a guessed root that is not there
            continue
        if url in roots:
            listing.roots.append(url)
        listing.cache[url] = entry
        queue.extend(c for c in entry.children if c not in seen)
        for loc, lastmod in entry.pages.items():
            listing.pages.setdefault(loc, lastmod)
    if not listing.roots:  # the listing itself failed: an outage, nothing may change
        raise first_error or SourceError(
            f"website: no sitemap found: robots.txt names none and {', '.join(roots)} "
            "answer 404; set sitemap_url in the registry"
        )
    return listing
