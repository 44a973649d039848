"""A connector's cursor: what one pull leaves for the next (page tokens, high-water marks, a
commit sha), typed. Each connector declares its model (`Connector.cursor_model`); the sync step
stores it as JSON (cursor.json) and reads it back through that model.

A model is frozen, forbids unknown keys and gives every field a default, so a connector reads
the first pull's cursor (None) as the empty one, `Model()` (Drive's layout field `v` is the one
without a default: see its cursor.py). A stored cursor that no longer validates (a
layout an earlier or later version wrote) is read as no cursor at all: the next pull is a full
one, and a full pull infers deletions only under the deletion guard, so a cursor that cannot
be read never deletes anything."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

log = logging.getLogger(__name__)


class BaseCursor(BaseModel):
    """Base of every connector's cursor; a source with no state between pulls uses it as is."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def revision(self) -> str | None:
        """The source revision the pull read (a commit sha), shown with the run and the
        published collection; None for a source without revisions."""
        return None

    def probe_token(self) -> str | None:
        """The change probe's token when this pull started: what `Connector.change_token`
        answers while nothing has changed since (the change sensor compares the two); None for
        a source without a cheap probe."""
        return None

    def stored(self) -> dict[str, Any]:
        """The JSON form written to cursor.json (the field names are the stored keys)."""
        return self.model_dump(mode="json")


C = TypeVar("C", bound=BaseCursor)


def load_cursor(model: type[C], stored: Mapping[str, Any] | None, where: str) -> C | None:
    """`stored` (cursor.json's content) as `model`; None when there is none, and when it does
    not validate (logged: the next pull is a full one)."""
    if stored is None:
        return None
    try:
        return model.model_validate(stored)
    except ValidationError as exc:
        first = exc.errors()[0]
        at = ".".join(str(p) for p in first["loc"]) or "cursor"
        log.warning(
            "%s: the stored cursor is not a %s (%s: %s), an older layout: pulling in full",
            where,
            model.__name__,
            at,
            first["msg"],
        )
        return None
