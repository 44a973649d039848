"""What a website pull leaves for the next: the cached robots.txt, the root sitemaps that
answered, each sitemap's and each page's conditional-GET record, and the site's chrome.

Each record is a model; stored, a field left unset is left out, so cursor.json keeps the
layout the crawl wrote when the records were dicts (and a cursor from then reads as is)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from knowledge_platform.connectors.cursor import BaseCursor


class Validators(BaseModel):
    """A URL's validators for the next conditional GET (RFC 9110 13.1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    etag: str | None = None
    last_modified: str | None = None

    @model_serializer(mode="wrap")
    def _set_fields_only(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if v is not None}

    def known(self) -> bool:
        return bool(self.etag or self.last_modified)


class RobotsRecord(Validators):
    """robots.txt as last read, for a 304."""

    text: str


class SitemapRecord(Validators):
    """A sitemap as last read: its child sitemaps and its pages (url -> lastmod)."""

    children: list[str] = Field(default_factory=list)
    pages: dict[str, str | None] = Field(default_factory=dict)


class PageRecord(Validators):
    """A URL as last read (crawl.py): the document it belongs to, its blocks' fingerprints,
    why it is not indexed. A redirect's source keeps only `canonical`."""

    #: The document's URL (None: the URL itself).
    canonical: str | None = None
    #: Fingerprints of its blocks (None: not read by a version that kept them: read whole).
    blocks: list[str] | None = None
    #: Why it is not indexed (said once per version: its 304s are silent).
    skip: str | None = None
    #: The Content-Type of a file type that is not read.
    type: str | None = None

    def document(self, url: str) -> str:
        return self.canonical or url


class WebsiteCursor(BaseCursor):
    #: robots.txt's validators and text, for a conditional GET; None: it had none.
    robots: RobotsRecord | None = None
    #: The root sitemaps used last run (tried when robots.txt names none).
    roots: list[str] = Field(default_factory=list)
    #: Sitemap URL -> its record (sitemap.py).
    sitemaps: dict[str, SitemapRecord] = Field(default_factory=dict)
    #: Page URL -> its record (crawl.py).
    pages: dict[str, PageRecord] = Field(default_factory=dict)
    #: Fingerprints of the blocks every page repeats (the site's chrome).
    chrome: list[str] = Field(default_factory=list)
