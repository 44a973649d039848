"""YAML front matter: split it from a markdown body, and the one rule for its values.

A block that is not a YAML mapping, or a field outside its allowed values (`lifecycle`,
`confidentiality`, ...), raises FrontMatterError; every connector skips such a file with the
error as its reason, like any other hostile input."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import yaml

from knowledge_platform.models import (
    CONFIDENTIALITY_LEVELS,
    LIFECYCLES,
    Confidentiality,
    Lifecycle,
)

_FENCE = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_ISO_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")


T = TypeVar("T", bound=str)
D = TypeVar("D")


class FrontMatterError(ValueError):
    """The front matter is not a YAML mapping, or one of its values is not allowed."""


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


def choice(meta: Mapping[str, Any], key: str, allowed: Sequence[T], default: D) -> T | D:
    """`meta[key]` as one of `allowed` (compared as trimmed lower-case text); `default` when
    the key is absent or empty; FrontMatterError naming the key and the allowed values when
    it is anything else (a file is never indexed under a value it did not ask for)."""
    value = meta.get(key)
    if value is None or value == "":
        return default
    found = _one_of(value, allowed)
    if found is not None:
        return found
    raise FrontMatterError(f"front matter {key} {value!r} is not one of {', '.join(allowed)}")


def _one_of(value: Any, allowed: Sequence[T]) -> T | None:
    text = str(value).strip().lower()
    return next((option for option in allowed if option == text), None)


def as_lifecycle(value: Any) -> Lifecycle | None:
    """`value` as a lifecycle, or None when it names none."""
    return _one_of(value, LIFECYCLES)


def lifecycle(meta: Mapping[str, Any], default: Lifecycle = "stable") -> Lifecycle:
    return choice(meta, "lifecycle", LIFECYCLES, default)


def confidentiality(meta: Mapping[str, Any], default: Confidentiality) -> Confidentiality:
    return choice(meta, "confidentiality", CONFIDENTIALITY_LEVELS, default)


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
