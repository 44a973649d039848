"""What every source's parser shares: the receiver it asks for secrets and the time, and
the one-line refusals for a body that is not JSON or a source without a secret."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from knowledge_platform.connectors.base import SourceSettings
from knowledge_platform.connectors.webhooks.events import Accepted, Rejected


class Context(Protocol):
    """What a parser may ask of the receiver, read from the live registry per delivery."""

    def secrets(self, source: str) -> list[tuple[str, str]]:
        """(scope, webhook secret) of every scope reading `source` that names one."""
        ...

    def scopes(self, source: str) -> list[str]:
        """The scopes that read `source`."""
        ...

    def settings(self, source: str, scope: str) -> SourceSettings: ...

    def max_age_seconds(self) -> int:
        """An event whose changes are all older than this is refused as stale."""
        ...

    def now(self) -> float: ...


Parser = Callable[[Context, Mapping[str, str], bytes], Accepted]


def parse_json(body: bytes) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Rejected(400, "malformed: the body is not JSON", code="malformed") from None
    if not isinstance(data, dict):
        raise Rejected(400, "malformed: the body is not a JSON object", code="malformed")
    return data


def iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).isoformat(timespec="seconds")


def no_secret(source: str) -> Rejected:
    return Rejected(
        401,
        f"no {source} webhook secret is configured for any scope "
        f"(sources.{source}.webhook_secret_env or _ref in the registry)",
        code="no_secret",
    )
