"""robots.txt by RFC 9309, parsed with protego (longest match wins, Allow wins a tie):
a 4xx means no rules (everything allowed); a 5xx or an unreachable host means "assume complete
disallow", so the run crawls nothing and fails, leaving the index as it was. Fetched with a
conditional GET; the last good file is kept in the cursor for a 304."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from protego import Protego

from knowledge_platform.connectors.website.cursor import RobotsRecord
from knowledge_platform.connectors.website.fetch import Crawler, revalidated, validators_of
from knowledge_platform.errors import SourceError

#: 4xx on robots.txt means "no rules" -- except 429, which is retried like any rate limit.
_NO_ROBOTS = frozenset(range(400, 500)) - {429}
#: RFC 9309 2.5: parse at least the first 500 KiB.
_MAX_BYTES = 500 * 1024


@dataclass
class Robots:
    """The rules for one user agent; `parser` None: no robots.txt, everything allowed."""

    parser: Protego | None
    user_agent: str

    def allowed(self, url: str) -> bool:
        return self.parser is None or bool(self.parser.can_fetch(url, self.user_agent))

    def crawl_delay(self) -> float | None:
        if self.parser is None:
            return None
        delay = self.parser.crawl_delay(self.user_agent)
        return float(delay) if delay is not None else None

    def sitemaps(self) -> list[str]:
        return list(self.parser.sitemaps) if self.parser is not None else []


def robots_url(base_url: str) -> str:
    parts = urlsplit(base_url)
    return f"{parts.scheme}://{parts.netloc}/robots.txt"  # always at the host's root


def read_robots(
    crawler: Crawler, base_url: str, user_agent: str, cached: RobotsRecord | None
) -> tuple[Robots, RobotsRecord | None]:
    """The rules and what to cache for the next run's conditional GET."""
    url = robots_url(base_url)
    try:
        response = crawler.resource(url, cached, allow=_NO_ROBOTS)
    except SourceError as exc:
        raise SourceError(
            f"{exc}; robots.txt is unreachable, so RFC 9309 says crawl nothing: "
            "the index is left as it was"
        ) from None
    status = response.status_code
    if status == 304 and cached is not None:
        text, entry = cached.text, revalidated(cached, response)
    elif status >= 400:
        return Robots(None, user_agent), None
    else:
        text = response.content[:_MAX_BYTES].decode("utf-8", errors="replace")
        entry = RobotsRecord(**dict(validators_of(response)), text=text)
    return Robots(Protego.parse(text), user_agent), entry
