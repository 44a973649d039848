"""YAML front matter: split it from a markdown body, tolerating broken blocks."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import yaml

_FENCE = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_ISO_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")


class FrontMatterError(ValueError):
    """The front matter block exists but is not a YAML mapping."""


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """Return (metadata, body). No block: ({}, text). A broken block raises FrontMatterError
    so the caller can report it; the body is still recoverable with `strip_front_matter`."""
    match = _FENCE.match(text)
    if not match:
        return {}, text
    try:
        meta = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark else ""
        raise FrontMatterError(f"front matter is not valid YAML{where}") from exc
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise FrontMatterError("front matter is not a mapping of keys to values")
    return {str(k): v for k, v in meta.items()}, text[match.end() :]


def strip_front_matter(text: str) -> str:
    match = _FENCE.match(text)
    return text[match.end() :] if match else text


def parse_date(value: Any) -> dt.date | None:
    """A date from front matter or a file name: date objects, ISO strings, `2026-03-01-x.md`."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        match = _ISO_DATE.search(value)
        if match:
            try:
                return dt.date.fromisoformat(match.group(1))
            except ValueError:
                return None
    return None
