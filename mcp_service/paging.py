"""Cursors for results that come in pages: a document's text, long lists.

A cursor is opaque to the caller (base64 of a small JSON object): what it pages (`key`: the
tool and its arguments, hashed), where the next page starts, and the version of what was
paged. A cursor for other arguments, a malformed one, or one whose document changed since is
refused with a one-line ToolError."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from typing import TypeVar

from fastmcp.exceptions import ToolError
from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)
#: A page of document text: ~2,500 tokens of English (bench/context_budget.py).
PAGE_CHARS = 10_000


def _key(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:16]


def encode(offset: int, version: str, *key: object) -> str:
    data = {"k": _key(*key), "o": offset, "v": version}
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def decode(cursor: str | None, version: str, *key: object) -> int:
    """The offset `cursor` names (0 without one)."""
    if not cursor:
        return 0
    try:
        raw = base64.urlsafe_b64decode(cursor.strip() + "=" * (-len(cursor.strip()) % 4))
        data = json.loads(raw)
        offset, their_key, their_version = data["o"], data["k"], data["v"]
    except (ValueError, KeyError, TypeError):
        raise ToolError(
            "invalid cursor: pass the next_cursor of the previous page as it "
            "was returned, or omit it for the first page"
        ) from None
    if their_key != _key(*key) or not isinstance(offset, int) or offset < 0:
        raise ToolError(
            "invalid cursor: it belongs to another call; repeat the call's other "
            "arguments unchanged, or omit the cursor for the first page"
        )
    if their_version != version:
        raise ToolError(
            "this cursor's content changed since it was issued; start again without a cursor"
        )
    return offset


def _version(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()[:12]


def items(
    found: Sequence[T], cursor: str | None, size: int, *key: object
) -> tuple[list[T], str | None]:
    """One page of `found` and the cursor of the next, if any."""
    version = _version("".join(item.model_dump_json() for item in found))
    start = decode(cursor, version, *key)
    end = start + size
    return list(found[start:end]), encode(end, version, *key) if end < len(found) else None


def text(
    whole: str, cursor: str | None, *key: object, size: int | None = None
) -> tuple[str, str | None]:
    """One page of `whole` (ending at a paragraph, line or word break) and the next cursor."""
    size = size or PAGE_CHARS
    version = _version(whole)
    start = decode(cursor, version, *key)
    if start >= len(whole) and start:
        raise ToolError("invalid cursor: past the end of the text; omit it for the first page")
    end = len(whole)
    if end - start > size:
        window = whole[start : start + size]
        cuts = (window.rfind(sep) for sep in ("\n\n", "\n", " "))
        end = start + next((cut for cut in cuts if cut > size // 2), size)
    return whole[start:end].strip(), encode(end, version, *key) if end < len(whole) else None
