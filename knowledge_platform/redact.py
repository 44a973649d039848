"""Masking secret values out of text bound for a message or a log line.

The process remembers every secret it resolved (a variable's or a vault reference's value, a
key fetched from an API, a credential header HttpClient sent: Google's access tokens) and
`redact` masks them, whole, URL-encoded or escaped. Core errors redact their own message
(errors.py), so a server that repeats the credential it was sent in its error body ("invalid
token pk_...") cannot carry it into an exception, a Dagster event, `kp` output or an MCP
answer."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from urllib.parse import quote

MASK = "***"
#: Shorter values are not masked: they would mask ordinary words (and are no real secret).
MIN_LENGTH = 8
#: Request headers that carry credentials.
CREDENTIAL_HEADERS = frozenset(
    {"authorization", "apikey", "x-api-key", "proxy-authorization", "cookie"}
)
_SCHEMES = ("bearer ", "basic ", "token ")

_known: set[str] = set()
_lock = threading.Lock()


def forms(value: str) -> set[str]:
    """How a value shows in a message: as it is, URL-encoded, and escaped the way Python's
    repr (of the text, or of its bytes: httpx's "Illegal header value b'...'") and JSON
    escape a line break, a quote or a backslash."""
    return {
        value,
        value.strip(),
        quote(value, safe=""),
        repr(value)[1:-1],
        repr(value.encode())[2:-1],
        json.dumps(value)[1:-1],
    }


def remember(value: str) -> str:
    """Note `value` as a secret of this process (so `redact` masks it); returns it."""
    if len(value) >= MIN_LENGTH:
        with _lock:
            _known.update(f for f in forms(value) if len(f) >= MIN_LENGTH)
    return value


def redact(text: str) -> str:
    """`text` with every remembered secret replaced by ***."""
    if not text:
        return text
    with _lock:
        values = sorted(_known, key=len, reverse=True)  # a longer one may hold a shorter
    for value in values:
        if value in text:
            text = text.replace(value, MASK)
    return text


def remember_headers(headers: Mapping[str, str] | None) -> None:
    """Remember the credentials among request headers (of `Bearer x`, `x`)."""
    for name, value in (headers or {}).items():
        if name.lower() in CREDENTIAL_HEADERS and value:
            scheme = next((s for s in _SCHEMES if value.lower().startswith(s)), "")
            remember(value[len(scheme) :].strip())
