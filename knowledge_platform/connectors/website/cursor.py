"""What a website pull leaves for the next: the cached robots.txt, the root sitemaps that
answered, each sitemap's and each page's conditional-GET record, and the site's chrome.

The per-URL records stay the crawl's own dicts (crawl.py, sitemap.py and robots.py build and
read them: validators, canonical URL, block fingerprints, skip reason); the cursor types the
layout around them."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from knowledge_platform.connectors.cursor import BaseCursor


class WebsiteCursor(BaseCursor):
    #: robots.txt's validators and text, for a conditional GET; None: it had none.
    robots: dict[str, Any] | None = None
    #: The root sitemaps used last run (tried when robots.txt names none).
    roots: list[str] = Field(default_factory=list)
    #: Sitemap URL -> {"etag", "last_modified", "children", "pages"} (sitemap.py).
    sitemaps: dict[str, dict[str, Any]] = Field(default_factory=dict)
    #: Page URL -> {"etag", "last_modified", "canonical", "blocks", "skip", "type"} (crawl.py).
    pages: dict[str, dict[str, Any]] = Field(default_factory=dict)
    #: Fingerprints of the blocks every page repeats (the site's chrome).
    chrome: list[str] = Field(default_factory=list)
