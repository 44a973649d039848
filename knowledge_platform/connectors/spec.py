"""What the orchestrator needs to know about a source, declared by the source itself: how
fresh it must be, which API pool it shares, how often an ordinary run polls it and whether a
cheap change probe exists, whether it takes webhooks or can be pinned to a version.
`assets/` iterates these and never names a source."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass


@dataclass(frozen=True)
class Freshness:
    """Warn when the last good publish is older than `warn_after`, fail after `fail_after`."""

    warn_after: dt.timedelta
    fail_after: dt.timedelta


#: The weekly full reindex plus slack: every source meets at least this.
WEEKLY = Freshness(warn_after=dt.timedelta(days=7, hours=6), fail_after=dt.timedelta(days=8))


@dataclass(frozen=True)
class PushSpec:
    """A source that sources push to: its endpoint under the MCP service's HTTP app and the
    module implementing `connectors.webhooks.contract.PushSource` (imported when used)."""

    path: str
    module: str


@dataclass(frozen=True)
class PinSpec:
    """A source whose pull can be pinned to one version of its content (`kp index --at`):
    the settings field that holds the version, and what a version is, for messages."""

    setting: str
    version: str


@dataclass(frozen=True)
class SourceSpec:
    name: str
    #: "module:Class" of the connector, imported only when the source is used.
    connector: str
    freshness: Freshness = WEEKLY
    #: Dagster concurrency pool shared by every run calling this source's API (None: none).
    api_pool: str | None = None
    #: Minutes between ordinary (incremental) runs started by a schedule; None: no schedule
    #: (a change probe or the weekly full pull keeps the source current).
    poll_minutes: int | None = None
    #: Seconds between cheap change probes (`Connector.probe`); None: no probe.
    probe_seconds: int | None = None
    #: Promise of the sync contract (docs/sync-contract.md): how long a delete or a move
    #: may stay searchable, for status and documentation.
    deadline: str = "the weekly full pull"
    #: What an ordinary run sees later than `deadline`, and how much later (the sync
    #: contract's stated bounds), shown by `kp status`.
    bounds: tuple[str, ...] = ()
    #: Webhooks: how deliveries reach this source's runs (None: pull only).
    push: PushSpec | None = None
    #: Rebuilding from one older version (None: the source has only its current state).
    pin: PinSpec | None = None


def poll_cron(minutes: int) -> str:
    """A cron expression running every `minutes` (which must divide an hour or a day)."""
    if minutes < 60 and 60 % minutes == 0:
        return f"*/{minutes} * * * *"
    if minutes % 60 == 0 and (24 * 60) % minutes == 0:
        hours = minutes // 60
        return "0 * * * *" if hours == 1 else f"0 */{hours} * * *"
    raise ValueError(f"{minutes} minutes does not divide an hour or a day")
