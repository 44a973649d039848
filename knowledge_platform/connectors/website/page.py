"""One HTML page: its `<link rel="canonical">`, its site chrome, its main text.

Site chrome is what a theme repeats on every page -- a brand bar with the menu, a
call-to-action banner -- in plain `<div>`s that trafilatura cannot tell from content on a
short page. Each block of short text (a `<div>`, `<p>`, `<li>`, ... under 300 characters, no
heading inside) gets a fingerprint; a fingerprint found on most of the site's pages is chrome,
and its blocks are dropped before trafilatura extracts the main text."""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import lxml.html
import trafilatura
from lxml.etree import ParserError

from knowledge_platform.connectors.website.fetch import absolute

#: Block elements a theme wraps chrome in (inline ones, like `<a>` in a sentence, never).
_BLOCKS = frozenset(
    {
        "div",
        "section",
        "aside",
        "header",
        "footer",
        "nav",
        "form",
        "p",
        "ul",
        "ol",
        "li",
        "dl",
        "blockquote",
        "figure",
        "table",
        "address",
        "center",
    }
)
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_MAX_BLOCK_CHARS = 300


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def _fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass
class Page:
    html: lxml.html.HtmlElement
    #: the absolute canonical URL the page names, if any
    canonical: str | None
    #: its short text blocks by fingerprint: candidates for site chrome
    candidates: dict[str, list[lxml.html.HtmlElement]]

    @property
    def blocks(self) -> list[str]:
        return sorted(self.candidates)


def _chrome_candidates(tree: lxml.html.HtmlElement) -> dict[str, list[lxml.html.HtmlElement]]:
    found: dict[str, list[lxml.html.HtmlElement]] = {}
    body = tree.find("body")
    for element in (body if body is not None else tree).iter(*_BLOCKS):
        text = _normal(element.text_content())
        if not text or len(text) > _MAX_BLOCK_CHARS:
            continue
        if any(True for _ in element.iter(*_HEADINGS)):
            continue
        found.setdefault(_fingerprint(text), []).append(element)
    return found


def parse_page(html: str | bytes, url: str) -> Page | None:
    """None when there is no HTML to parse."""
    try:
        tree = lxml.html.document_fromstring(html)
    except (ParserError, ValueError):
        if not isinstance(html, str):
            return None
        try:  # a str with an XML encoding declaration: parse the bytes instead
            tree = lxml.html.document_fromstring(html.encode())
        except (ParserError, ValueError):
            return None
    canonical = None
    for link in tree.iter("link"):
        rel = (link.get("rel") or "").casefold().split()
        if "canonical" in rel and link.get("href"):
            canonical = absolute(url, link.get("href", ""))
            break
    return Page(tree, canonical, _chrome_candidates(tree))


def site_chrome(pages: Iterable[Iterable[str]], *, share: float, min_pages: int) -> set[str]:
    """Fingerprints on at least `share` of the pages and at least `min_pages` of them."""
    counts: Counter[str] = Counter()
    total = 0
    for blocks in pages:
        total += 1
        counts.update(set(blocks))
    need = max(min_pages, math.ceil(share * total))
    return {fp for fp, n in counts.items() if n >= need}


def strip_chrome(page: Page, chrome: set[str]) -> int:
    """Drop the page's chrome blocks (outermost first); how many were dropped."""
    doomed = [e for fp, found in page.candidates.items() if fp in chrome for e in found]
    marked = set(doomed)
    dropped = 0
    for element in doomed:
        if not any(a in marked for a in element.iterancestors()):
            element.drop_tree()  # keeps the tail text
            dropped += 1
    return dropped


def main_text(page: Page, url: str) -> tuple[str | None, str | None]:
    """(title, markdown main text) of the page as it is now (chrome already dropped)."""
    serialized = lxml.html.tostring(page.html, encoding="unicode")
    html = serialized if isinstance(serialized, str) else serialized.decode()
    text = trafilatura.extract(
        html,
        url=url,
        output_format="markdown",
        include_formatting=True,
        include_tables=True,
        include_links=False,
        include_comments=False,
    )
    meta = trafilatura.extract_metadata(html, default_url=url)
    title = meta.title if meta is not None else None
    return (title.strip() if title else None), (text.strip() if text else None)
