"""One site's fetcher over the shared HttpClient: paces requests (Crawl-delay), sends a
conditional GET whenever a validator is known (RFC 9110 13.1: `If-None-Match` and
`If-Modified-Since`), and follows redirects itself, so that a moved URL is seen as an alias of
where it now lives and a redirect out of the crawl's scope is never followed."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TypeVar
from urllib.parse import urldefrag, urljoin

import httpx

from knowledge_platform.connectors.http import HttpClient
from knowledge_platform.connectors.website.cursor import Validators
from knowledge_platform.errors import SourceError

REDIRECTS = (301, 302, 303, 307, 308)
#: RFC 9309 asks robots.txt readers to follow at least five; pages get the same.
MAX_REDIRECTS = 5

#: url -> the validators stored for it ({"etag", "last_modified"}), or None.
#: URL -> the validators to send for it (None: an unconditional GET).
ValidatorsFor = Callable[[str], Validators | None]
R = TypeVar("R", bound=Validators)


def absolute(base: str, href: str) -> str:
    """`href` resolved against `base`, without its fragment."""
    return urldefrag(urljoin(base, href.strip())).url


def conditional_headers(validators: Validators | None) -> dict[str, str]:
    headers: dict[str, str] = {}
    if validators and validators.etag:
        headers["If-None-Match"] = validators.etag
    if validators and validators.last_modified:
        headers["If-Modified-Since"] = validators.last_modified
    return headers


def validators_of(response: httpx.Response, before: Validators | None = None) -> Validators:
    """The validators to keep after `response`. A 304 repeats (or updates) `ETag` and may
    omit `Last-Modified` (RFC 9110 15.4.5): what it does not repeat is kept from `before`."""
    etag = response.headers.get("ETag") or None
    modified = response.headers.get("Last-Modified") or None
    if response.status_code == 304 and before is not None:
        etag, modified = etag or before.etag, modified or before.last_modified
    return Validators(etag=etag, last_modified=modified)


def revalidated(record: R, response: httpx.Response) -> R:
    """`record` as a 304 `response` leaves it: the same content, its validators refreshed."""
    fresh = validators_of(response, record)
    return record.model_copy(update={"etag": fresh.etag, "last_modified": fresh.last_modified})


@dataclass
class Fetched:
    """Where a URL led: the URL that answered and its response, or the redirect target that
    was refused (`refused` says why). `chain` holds the URLs that redirected."""

    url: str
    response: httpx.Response | None
    chain: list[str] = field(default_factory=list)
    refused: str | None = None
    #: the redirect led to a URL this run has already read (`url`): not asked again
    answered: bool = False


class Crawler:
    def __init__(
        self,
        http: HttpClient,
        *,
        delay: float = 0.0,
        clock: Callable[[], float],
        sleep: Callable[[float], None],
    ) -> None:
        self.http = http
        #: Seconds between two requests (the larger of robots.txt's Crawl-delay, capped, and
        #: the configured floor).
        self.delay = delay
        self._clock, self._sleep = clock, sleep
        self._last: float | None = None

    def get(
        self,
        url: str,
        validators: Validators | None = None,
        allow: Collection[int] = (),
        max_bytes: int | None = None,
    ) -> httpx.Response:
        """One paced GET; redirects, 304 and `allow` come back, other failures raise; a body
        past `max_bytes` raises FileTooLargeError."""
        if self._last is not None and self.delay > 0:
            wait = self._last + self.delay - self._clock()
            if wait > 0:
                self._sleep(wait)
        try:
            return self.http.get(
                url,
                headers=conditional_headers(validators),
                allow=(304, *REDIRECTS, *allow),
                max_bytes=max_bytes,
            )
        finally:
            self._last = self._clock()

    def resource(
        self, url: str, validators: Validators | None, allow: Collection[int] = ()
    ) -> httpx.Response:
        """GET a file of the site (robots.txt, a sitemap) wherever it redirects; a 304 only
        comes back when `validators` were sent."""
        response = self.follow(url, lambda _: validators, allow).response
        if response is None:  # unreachable: nothing is refused here
            raise SourceError(f"website: GET {url}: redirect refused")
        if response.status_code == 304 and not validators:
            raise SourceError(f"website: GET {url} answered 304 to an unconditional GET")
        return response

    def follow(
        self,
        url: str,
        validators: ValidatorsFor,
        allow: Collection[int] = (),
        refuse: Callable[[str], str | None] = lambda _: None,
        max_bytes: int | None = None,
        answered: Callable[[str], bool] = lambda _: False,
    ) -> Fetched:
        """GET `url`, following up to MAX_REDIRECTS redirects; a target `refuse` names a
        reason for is not requested, nor one `answered` says this run has read already."""
        chain: list[str] = []
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            response = self.get(current, validators(current), allow, max_bytes)
            if response.status_code not in REDIRECTS:
                return Fetched(current, response, chain)
            location = response.headers.get("Location")
            if not location:
                raise SourceError(
                    f"website: {current} answered HTTP {response.status_code} without a Location"
                )
            chain.append(current)
            current = absolute(current, location)
            if current in chain:
                raise SourceError(f"website: {url} redirects in a loop")
            reason = refuse(current)
            if reason is not None:
                return Fetched(current, None, chain, refused=reason)
            if answered(current):
                return Fetched(current, None, chain, answered=True)
        raise SourceError(f"website: {url} redirects more than {MAX_REDIRECTS} times")
