"""robots.txt and sitemaps (sitemaps.org 0.9): index files, nested child sitemaps, gzip."""

from __future__ import annotations

import gzip
import xml.etree.ElementTree as ET
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

from knowledge_platform.connectors.http import HttpClient
from knowledge_platform.errors import SourceError

_GZIP_MAGIC = b"\x1f\x8b"
_MAX_SITEMAP_BYTES = 50 * 1024 * 1024
#: 4xx on robots.txt means "no rules" -- except 429, which is retried like any rate limit.
_NO_ROBOTS = frozenset(range(400, 500)) - {429}


def read_robots(http: HttpClient, base_url: str) -> RobotFileParser | None:
    """The site's robots rules, or None when there is no robots.txt (a 4xx allows everything,
    RFC 9309). A 5xx after retries raises: assuming "disallow all" would empty the index."""
    parts = urlsplit(base_url)
    robots_url = f"{parts.scheme}://{parts.netloc}/robots.txt"  # always at the host's root
    response = http.get(robots_url, allow=_NO_ROBOTS)
    if response.status_code >= 400:
        return None
    parser = RobotFileParser()
    parser.parse(response.text.splitlines())
    return parser


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


def read_sitemaps(
    http: HttpClient, roots: list[str], max_sitemaps: int = 50
) -> dict[str, str | None]:
    """Every page url (-> lastmod) reachable from the root sitemaps, in document order. A
    sitemap that cannot be read fails the pull: a missing listing must not look like deletions."""
    pages: dict[str, str | None] = {}
    queue = list(dict.fromkeys(roots))
    seen: set[str] = set()
    while queue:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        if len(seen) > max_sitemaps:
            raise SourceError(f"website: more than {max_sitemaps} sitemaps; raise max_sitemaps")
        children, found = parse_sitemap(http.get(url).content, url)
        queue.extend(c for c in children if c not in seen)
        for loc, lastmod in found.items():
            pages.setdefault(loc, lastmod)
    return pages
