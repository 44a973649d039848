"""The service's "today": the clock (or a fixed KP_NOW) in the registry's timezone."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo


def local_today(timezone: str, now: dt.datetime | None = None) -> dt.date:
    """Today in `timezone` at `now` (default: the real clock; naive: already local)."""
    zone = ZoneInfo(timezone)
    if now is None:
        return dt.datetime.now(zone).date()
    return now.date() if now.tzinfo is None else now.astimezone(zone).date()
