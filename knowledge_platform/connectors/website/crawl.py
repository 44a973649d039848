"""Fetching one page of a crawl and saying what became of it: read (`page`), unchanged since
the validators we sent (`same`, a 304), gone (404/410), redirected out of the crawl's scope
(`away`), failed (5xx after the retries, 401/403, a redirect loop), or not indexable (a file
that cannot be converted, or a type that is not read: `unsupported`). A PDF, DOCX, PPTX or
XLSX file (`files.types`, by Content-Type or extension) is converted when it is read, at most
`files.max_bytes` of it. A redirect is followed while it stays in scope; the page's document
is its canonical URL: `<link rel="canonical">` (or an HTTP `Link` header, the only one a file
has) when it names a URL in scope, else the URL that answered. The redirect sources are its
aliases."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Literal
from urllib.parse import unquote, urlsplit

import httpx

from knowledge_platform.connectors.base import Known
from knowledge_platform.connectors.website.cursor import PageRecord, Validators
from knowledge_platform.connectors.website.fetch import (
    Crawler,
    absolute,
    revalidated,
    validators_of,
)
from knowledge_platform.connectors.website.page import parse_page
from knowledge_platform.connectors.website.robots import Robots
from knowledge_platform.connectors.website.settings import WebsiteSettings
from knowledge_platform.convert.api import Converted, convert
from knowledge_platform.errors import ConversionError, ConversionLimitError, SourceError

_GONE = (404, 410)
ROBOTS_REFUSAL = "disallowed by robots.txt"

Kind = Literal["page", "same", "gone", "away", "failed", "unindexable"]


@dataclass
class Outcome:
    url: str
    kind: Kind
    #: the URL that answered (after redirects)
    final: str = ""
    #: the document (its canonical URL) for `page` and `same`
    canonical: str = ""
    reason: str = ""
    chain: list[str] = field(default_factory=list)
    #: the HTML of a read page (kept as text, parsed again when its document is made: a
    #: whole site's parsed trees would not fit in memory)
    html: str | None = None
    #: its Last-Modified header
    modified: str | None = None
    #: the cursor record of `final`: validators, canonical, chrome fingerprints, skip reason
    state: PageRecord | None = None
    #: an unindexable page already reported when it last changed (it answered 304)
    silent: bool = False
    #: a type that is not read (listed once, no failure)
    unsupported: bool = False
    #: a read file (PDF, DOCX...), converted
    converted: Converted | None = None

    @property
    def live(self) -> bool:
        return self.kind in ("page", "same")


class SiteCrawl:
    """The page fetches of one pull, with what the last pull left (`old`: the cursor's
    per-URL entries) and what the index holds (`known`)."""

    def __init__(
        self,
        cfg: WebsiteSettings,
        crawler: Crawler,
        robots: Robots,
        old: dict[str, PageRecord],
        known: Known,
        full: bool,
    ) -> None:
        self.cfg, self.crawler, self.robots = cfg, crawler, robots
        self.old, self.known, self.full = old, known, full
        self.outcomes: dict[str, Outcome] = {}
        #: final URL -> its outcome this pull (a redirect target is read once)
        self._answered: dict[str, Outcome] = {}
        self._failed_in_a_row = 0

    def refusal(self, url: str) -> str | None:
        """Why `url` is outside this crawl, or None."""
        parts, home = urlsplit(url), urlsplit(self.cfg.base_url)
        if (parts.scheme, parts.netloc) != (home.scheme, home.netloc):
            return "on another site"
        path = parts.path or "/"
        if self.cfg.include and not any(path.startswith(p) for p in self.cfg.include):
            return "outside the registry's include rules"
        if any(path.startswith(p) for p in self.cfg.exclude):
            return "excluded by the registry"
        if not self.robots.allowed(url):
            return ROBOTS_REFUSAL
        return None

    def document_of(self, url: str) -> str:
        """The document `url` belonged to after the last pull."""
        entry = self.old.get(url)
        return entry.document(url) if entry is not None else url

    def validators(self, url: str) -> PageRecord | None:
        """What to send for a conditional GET of `url`, or None to read it whole: never
        known, read before this version of the connector, or its document is to be read again
        (it failed last time), or a full pull whose index lacks the document."""
        entry = self.old.get(url)
        if entry is None or not entry.known():
            return None
        doc = entry.document(url)
        documents, retry = self.known.documents, self.known.retry
        if any(i in retry and i in documents for i in (url, doc)):
            return None
        if entry.skip:
            return entry
        if entry.blocks is None or (self.full and doc not in documents):
            return None
        return entry

    def fetch(self, url: str, *, whole: bool = False) -> Outcome:
        """What became of `url`; a URL a redirect already led to this run is not asked
        again. `whole`: without validators (its 304 will not do)."""
        limit = self.cfg.max_consecutive_failures
        answered = self._answered.get(url)
        if answered is not None and not whole:
            outcome = replace(answered, url=url, chain=[])
        elif self._failed_in_a_row >= limit:
            outcome = Outcome(
                url,
                "failed",
                reason=f"not requested: {limit} pages in a row failed (is the site down?)",
            )
        else:
            outcome = self._fetch(url, whole)
            self._failed_in_a_row = self._failed_in_a_row + 1 if outcome.kind == "failed" else 0
            if outcome.final:
                self._answered[outcome.final] = outcome
        self.outcomes[url] = outcome
        return outcome

    def _fetch(self, url: str, whole: bool) -> Outcome:
        validators = (lambda _: None) if whole else self.validators
        try:
            fetched = self.crawler.follow(
                url,
                validators,
                _GONE,
                self.refusal,
                max_bytes=self.cfg.files.max_bytes,
                answered=(lambda _: False) if whole else self._answered.__contains__,
            )
        except SourceError as exc:
            return Outcome(url, "failed", reason=str(exc).removeprefix("website: "))
        except ConversionError as exc:  # over the size cap: asked again next time
            return Outcome(url, "unindexable", reason=f"{url}: {exc}")
        final, chain, response = fetched.url, fetched.chain, fetched.response
        if fetched.answered:  # one fetch per URL per run: the redirect target's answer
            return replace(self._answered[final], url=url, chain=chain)
        if fetched.refused is not None or response is None:
            return Outcome(
                url, "away", final, chain=chain, reason=f"redirected to {final}, {fetched.refused}"
            )
        status = response.status_code
        if status == 304:
            entry = self.old.get(final) or PageRecord()
            state = revalidated(entry, response)
            if entry.skip:
                return Outcome(
                    url,
                    "unindexable",
                    final,
                    reason=entry.skip,
                    chain=chain,
                    state=state,
                    silent=True,
                    unsupported=bool(entry.type),
                )
            return Outcome(url, "same", final, entry.document(final), chain=chain, state=state)
        if status in _GONE:
            return Outcome(url, "gone", final, reason=f"HTTP {status}", chain=chain)
        if status != 200:
            return Outcome(url, "failed", final, reason=f"HTTP {status}", chain=chain)
        validators = validators_of(response)
        if "html" not in response.headers.get("Content-Type", "").lower():
            return self._file(url, final, chain, response, validators)
        page = parse_page(response.text, final)
        if page is None:
            reason = "not parseable HTML"
            return Outcome(
                url,
                "unindexable",
                final,
                reason=reason,
                chain=chain,
                state=PageRecord(**dict(validators), skip=reason),
            )
        canonical = self._canonical(page.canonical or _link_canonical(response, final), final)
        state = PageRecord(**dict(validators), canonical=canonical, blocks=page.blocks)
        return Outcome(
            url,
            "page",
            final,
            canonical,
            chain=chain,
            html=response.text,
            modified=response.headers.get("Last-Modified"),
            state=state,
        )

    def _file(
        self,
        url: str,
        final: str,
        chain: list[str],
        response: httpx.Response,
        validators: Validators,
    ) -> Outcome:
        """Not HTML: converted when `files` reads its type, else listed once as a type that
        is not read. A file that cannot be converted says so once per version (its 304s are
        silent); one past the time limit is read whole again next run."""
        ctype = response.headers.get("Content-Type", "")
        name = unquote(PurePosixPath(urlsplit(final).path).name) or final
        if self.cfg.files.format_of(ctype, name) is None:
            reason = f"not an HTML page, nor a file type `files` reads ({ctype or 'no type'})"
            return Outcome(
                url,
                "unindexable",
                final,
                reason=reason,
                chain=chain,
                state=PageRecord(**dict(validators), skip=reason, type=ctype),
                unsupported=True,
            )
        try:
            converted = convert(response.content, ctype, name, limits=self.cfg.files.limits())
        except ConversionError as exc:
            state = (
                None
                if isinstance(exc, ConversionLimitError)
                else PageRecord(**dict(validators), skip=str(exc))
            )
            return Outcome(url, "unindexable", final, reason=str(exc), chain=chain, state=state)
        canonical = self._canonical(_link_canonical(response, final), final)
        return Outcome(
            url,
            "page",
            final,
            canonical,
            chain=chain,
            converted=converted,
            modified=response.headers.get("Last-Modified"),
            state=PageRecord(**dict(validators), canonical=canonical, blocks=[]),
        )

    def _canonical(self, named: str | None, final: str) -> str:
        """A canonical URL outside the crawl (another site, excluded) is not followed: the
        page stays its own document."""
        if not named or self.refusal(named) is not None:
            return final
        return named


def _link_canonical(response: httpx.Response, base: str) -> str | None:
    link = response.links.get("canonical")
    return absolute(base, link["url"]) if link and link.get("url") else None
