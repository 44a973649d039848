"""The public website: pages listed by the sitemap(s), allowed by robots.txt, one document per
canonical page, main text extracted to markdown by trafilatura once the site's chrome is
dropped; PDF, DOCX, PPTX and XLSX files the sitemaps list are converted (crawl.py), one
section per page, slide or sheet. See docs/sync-contract.md (website) for how each change is
detected.

Every fetch that has a validator is a conditional GET (robots.txt, sitemaps, pages, PDFs); a
304 page is unchanged. Requests are spaced by robots.txt's `Crawl-delay` (capped). A page the
sitemap no longer lists is fetched once to confirm: 404/410, a redirect elsewhere or out of
scope is a confirmed deletion; a page that still answers 200 is an inferred one (the deletion
guard applies). A page, or a sitemap file, that fails keeps its last good version."""

from __future__ import annotations

import email.utils
import logging
from typing import Any
from urllib.parse import urlsplit

from knowledge_platform.connectors.base import NOTHING_KNOWN, Known, PullResult, Skipped
from knowledge_platform.connectors.http import HttpClient, HttpConnector
from knowledge_platform.connectors.website.crawl import ROBOTS_REFUSAL, Outcome, SiteCrawl
from knowledge_platform.connectors.website.cursor import PageRecord, RobotsRecord, WebsiteCursor
from knowledge_platform.connectors.website.fetch import Crawler
from knowledge_platform.connectors.website.page import (
    Page,
    main_text,
    parse_page,
    site_chrome,
    strip_chrome,
)
from knowledge_platform.connectors.website.robots import Robots, read_robots
from knowledge_platform.connectors.website.settings import WebsiteSettings
from knowledge_platform.connectors.website.sitemap import Listing, read_sitemaps
from knowledge_platform.convert.api import Converted
from knowledge_platform.frontmatter import parse_date
from knowledge_platform.models import Document, content_hash

__all__ = ["WebsiteConnector", "WebsiteSettings"]

log = logging.getLogger(__name__)


def _http_date(value: str | None) -> Any:
    if not value:
        return None
    try:
        return email.utils.parsedate_to_datetime(value).date()
    except (TypeError, ValueError):
        return None


class WebsiteConnector(HttpConnector[WebsiteCursor]):
    name = "website"
    settings_model = WebsiteSettings
    cursor_model = WebsiteCursor
    settings: WebsiteSettings

    @property
    def cfg(self) -> WebsiteSettings:
        return self.settings

    def pull(
        self, cursor: WebsiteCursor | None, *, full: bool = False, known: Known = NOTHING_KNOWN
    ) -> PullResult[WebsiteCursor]:
        cfg = self.cfg
        state = cursor or WebsiteCursor()
        full = full or cursor is None
        client = HttpClient.from_settings(
            "website",
            cfg,
            headers={"User-Agent": cfg.user_agent},
            sleep=self._sleep,
            clock=self._clock,
            transport=self._transport,
        )
        with client as http:
            crawler = Crawler(
                http, delay=cfg.crawl_delay_seconds, clock=self._clock, sleep=self._sleep
            )
            robots, robots_entry = read_robots(crawler, cfg.base_url, cfg.user_agent, state.robots)
            asked = min(robots.crawl_delay() or 0.0, cfg.max_crawl_delay_seconds)
            crawler.delay = max(cfg.crawl_delay_seconds, asked)
            roots, guessed = self._roots(robots, state)
            listing = read_sitemaps(
                crawler,
                roots,
                state.sitemaps,
                max_sitemaps=cfg.max_sitemaps,
                guessed=guessed,
            )
            crawl = SiteCrawl(cfg, crawler, robots, dict(state.pages), known, full)
            result = _Assembly(self, crawl, listing, state.chrome).run(robots_entry)
            result.requests = http.requests
        return result

    def _roots(self, robots: Robots, state: WebsiteCursor) -> tuple[list[str], bool]:
        """(root sitemaps, guessed): `sitemap_url`, else robots.txt's `Sitemap:` lines, else
        the roots that answered last run, else the two usual locations."""
        if self.cfg.sitemap_url:
            return [self.cfg.sitemap_url], False
        if robots.sitemaps():
            return robots.sitemaps(), False
        if state.roots:
            return list(state.roots), False
        base = self.cfg.base_url.rstrip("/")
        return [f"{base}/sitemap.xml", f"{base}/sitemap_index.xml"], True

    def document(
        self,
        outcome: Outcome,
        page: Page | Converted,
        doc_id: str,
        aliases: list[str],
        lastmod: str | None,
    ) -> Document | Skipped:
        """A page's document (its main text), or a converted file's (its file name, MIME type
        and page, slide or sheet count in provenance)."""
        extra: dict[str, Any] = {"lastmod": lastmod} if lastmod else {}
        if aliases:
            extra["aliases"] = aliases
        if isinstance(page, Converted):
            title, text = page.name, page.markdown
            extra.update(file_name=page.name, mime_type=page.mime_type, units=page.units)
        else:
            title, text = main_text(page, outcome.final)
            if not text:
                return Skipped(source_id=outcome.url, reason="no main text could be extracted")
        state = outcome.state or PageRecord()
        validator = state.etag or state.last_modified
        return Document(
            source=self.name,
            source_id=doc_id,
            scope=self.scope,
            title=title or urlsplit(doc_id).path or doc_id,
            text=text,
            kind=page.kind if isinstance(page, Converted) else "page",
            url=doc_id,
            date=parse_date(lastmod) or _http_date(outcome.modified),
            version=validator or content_hash(text)[:16],
            trust="public",
            confidentiality=self.cfg.confidentiality,
            extra=extra,
        )


class _Assembly:
    """One pull from the listing: select, fetch, confirm what left the listing, drop the
    chrome, one document per canonical URL, and the cursor's per-URL entries."""

    def __init__(
        self, connector: WebsiteConnector, crawl: SiteCrawl, listing: Listing, chrome: list[str]
    ) -> None:
        self.connector, self.crawl, self.listing = connector, crawl, listing
        #: the chrome fingerprints of the last pull, and of this one
        self.state_chrome, self.chrome = chrome, set(chrome)
        self.cfg, self.known = crawl.cfg, crawl.known
        self.skipped: list[Skipped] = []
        #: document ids kept at their last good version (a failed page or sitemap)
        self.kept: set[str] = set()
        #: final URL -> why the page read gave no document (its record says so next pull)
        self.no_document: dict[str, str] = {}

    def run(self, robots: RobotsRecord | None) -> PullResult[WebsiteCursor]:
        """The pull's result; `robots`: robots.txt's entry for the cursor."""
        listed = [self.crawl.fetch(url) for url in self._select()]
        self.chrome = self._chrome(listed)
        groups: dict[str, list[Outcome]] = {}
        for o in listed:
            if o.live:
                groups.setdefault(o.canonical, []).append(o)
        for failed in self.listing.failed:
            ids = {self.crawl.document_of(u) for u in failed.pages if u not in self.listing.pages}
            self._keep(
                failed.url, f"sitemap {failed.reason}", ids - groups.keys(), vanished=failed.gone
            )
        for o in listed:
            if o.kind == "failed" or (o.kind == "unindexable" and not o.silent):
                self._keep(
                    o.url,
                    o.reason,
                    {self.crawl.document_of(o.url)} - groups.keys(),
                    unsupported=o.unsupported,
                )
        confirmed, missing = self._gone(set(groups))
        documents = self._documents(groups)
        return PullResult(
            documents=documents,
            full=self.crawl.full,
            deleted=sorted(confirmed),
            missing=sorted(missing),
            skipped=self.skipped,
            cursor=WebsiteCursor(
                robots=robots,
                roots=self.listing.roots,
                sitemaps=self.listing.cache,
                pages=self._pages(),
                chrome=sorted(self.chrome),
            ),
        )

    def _chrome(self, listed: list[Outcome]) -> set[str]:
        """The site's chrome fingerprints over every page read or unchanged this pull. An
        unchanged page holding a block whose verdict changed since the last pull is read
        whole again (in `listed`), so its text loses (or keeps) that block too."""

        def fingerprints() -> list[list[str]]:
            seen: dict[str, list[str]] = {}
            for o in listed:
                if o.live and o.state is not None:
                    seen.setdefault(o.final, o.state.blocks or [])
            return list(seen.values())

        chrome = site_chrome(
            fingerprints(), share=self.cfg.chrome_share, min_pages=self.cfg.chrome_min_pages
        )
        changed = chrome ^ set(self.state_chrome)
        for i, o in enumerate(listed):
            blocks = (o.state.blocks if o.state else None) or []
            if o.kind == "same" and changed.intersection(blocks):
                listed[i] = self.crawl.fetch(o.url, whole=True)
        return chrome

    def _select(self) -> list[str]:
        wanted: list[str] = []
        for url in self.listing.pages:
            if self.crawl.refusal(url) is not None:
                continue
            if len(wanted) >= self.cfg.max_pages:
                self._keep(
                    url, f"beyond max_pages={self.cfg.max_pages}", {self.crawl.document_of(url)}
                )
                continue
            wanted.append(url)
        return wanted

    def _keep(
        self,
        what: str,
        reason: str,
        ids: set[str],
        *,
        unsupported: bool = False,
        vanished: bool = False,
    ) -> None:
        self.kept |= ids | {what}
        self.skipped.append(
            Skipped(
                source_id=what,
                reason=reason,
                unsupported=unsupported,
                vanished=vanished,
                covers=sorted(ids - {what}),
            )
        )

    def _previous(self) -> set[str]:
        old = self.crawl.old
        return set(self.known.documents) | {e.document(url) for url, e in old.items() if not e.skip}

    def _gone(self, live: set[str]) -> tuple[set[str], set[str]]:
        """(confirmed, inferred) deletions among the documents of the last pull that this
        one did not read: each is fetched to confirm unless robots.txt or the registry now
        keeps it out of the crawl."""
        resolved: dict[str, Outcome] = {}
        for o in list(self.crawl.outcomes.values()):
            for url in (o.url, *o.chain):
                resolved.setdefault(url, o)
        confirmed: set[str] = set()
        missing: set[str] = set()
        for doc_id in sorted(self._previous() - live - self.kept):
            outcome = resolved.get(doc_id)
            if outcome is None:
                refusal = self.crawl.refusal(doc_id)
                if refusal == ROBOTS_REFUSAL:  # a bad robots.txt must not empty the index
                    missing.add(doc_id)
                    continue
                if refusal is not None:
                    confirmed.add(doc_id)
                    continue
                outcome = self.crawl.fetch(doc_id)
            if outcome.kind in ("gone", "away") or (outcome.live and outcome.canonical != doc_id):
                confirmed.add(doc_id)
                log.info(
                    "website: %s is gone: %s", doc_id, outcome.reason or f"now {outcome.canonical}"
                )
            elif outcome.live:
                missing.add(doc_id)  # still answers, but no sitemap lists it
            else:
                self._keep(doc_id, outcome.reason, {doc_id})
        return confirmed, missing

    def _documents(self, groups: dict[str, list[Outcome]]) -> list[Document]:
        documents: list[Document] = []
        for doc_id, group in groups.items():
            # the canonical URL's own answer first, a read one before a 304
            rep = min(group, key=lambda o: (o.final != doc_id, o.kind != "page"))
            urls = {u for o in group for u in (o.url, o.final, *o.chain)}
            aliases = sorted(urls - {doc_id})
            if rep.kind == "same":
                doc = self.known.documents.get(doc_id)
                if doc is not None and (self.crawl.full or doc.extra.get("aliases", []) != aliases):
                    extra = {k: v for k, v in doc.extra.items() if k != "aliases"}
                    documents.append(
                        doc.model_copy(
                            update={"extra": {**extra, **({"aliases": aliases} if aliases else {})}}
                        )
                    )
                continue
            page = rep.converted or parse_page(rep.html or "", rep.final)
            if page is None:  # it parsed when it was read
                continue
            if isinstance(page, Page):
                strip_chrome(page, self.chrome)
            lastmod = next(
                (self.listing.pages.get(o.url) for o in group if self.listing.pages.get(o.url)),
                None,
            )
            made = self.connector.document(rep, page, doc_id, aliases, lastmod)
            if isinstance(made, Skipped):
                self.no_document[rep.final] = made.reason
                self._keep(made.source_id, made.reason, {doc_id})
            else:
                documents.append(made)
        return documents

    def _pages(self) -> dict[str, PageRecord]:
        """The next pull's per-URL records: what answered, the aliases that led there, and
        the last records of what was kept."""
        pages: dict[str, PageRecord] = {}
        for o in self.crawl.outcomes.values():
            if o.state is not None and (o.live or o.kind == "unindexable"):
                skip = self.no_document.get(o.final)
                pages[o.final] = o.state.model_copy(update={"skip": skip}) if skip else o.state
            if o.live:
                for url in (o.url, *o.chain):
                    if url != o.final:
                        pages.setdefault(url, PageRecord(canonical=o.canonical))
        for url, entry in self.crawl.old.items():
            if url not in pages and (url in self.kept or entry.canonical in self.kept):
                pages[url] = entry
        return pages
