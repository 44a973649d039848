"""The website's registry settings."""

from __future__ import annotations

from pydantic import Field

from knowledge_platform.connectors.http import HttpSettings
from knowledge_platform.convert.settings import FileSettings
from knowledge_platform.models import Confidentiality


class WebsiteSettings(HttpSettings):
    base_url: str
    #: Default: the `Sitemap:` lines of robots.txt, else the roots that worked last run, else
    #: `<base_url>/sitemap.xml` and `<base_url>/sitemap_index.xml`.
    sitemap_url: str | None = None
    user_agent: str = "SurefootKnowledgeBot/1.0"
    max_pages: int = Field(default=500, ge=1)
    confidentiality: Confidentiality = "public"
    #: Path prefixes; empty `include` means every path.
    include: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    max_sitemaps: int = Field(default=50, ge=1)
    #: Seconds between two requests to the site at least (robots.txt may ask for more).
    crawl_delay_seconds: float = Field(default=0.0, ge=0, le=60)
    #: robots.txt's `Crawl-delay` is honoured up to this (a site asking 120 s between
    #: requests would stretch a 500-page run to 17 hours).
    max_crawl_delay_seconds: float = Field(default=10.0, ge=0, le=600)
    #: A block of text (menu, tagline, call-to-action banner) found on at least this share of
    #: the site's pages, and on at least `chrome_min_pages` of them, is site chrome: dropped.
    chrome_share: float = Field(default=0.5, gt=0, le=1)
    chrome_min_pages: int = Field(default=3, ge=2)
    #: After this many page fetches in a row fail, the rest of the run's pages are not
    #: requested (kept at their last good version): the site is having an outage.
    max_consecutive_failures: int = Field(default=10, ge=1)
    #: Files the sitemaps list (PDF, DOCX, PPTX, XLSX, told by Content-Type or extension) are
    #: converted: which types, the size cap (default 25 MB; it bounds every page fetch),
    #: time and memory per file.
    files: FileSettings = Field(default_factory=FileSettings)
