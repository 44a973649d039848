"""`kp hooks register`: create or renew each push source's webhooks through its own API
(each source's `connectors/<source>/push.py`: ClickUp webhooks, Drive channels, the git host's
instructions), and record them under KP_HOME (registrations.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from knowledge_platform.config.registry import Registry
from knowledge_platform.connectors.catalog import push_source, push_specs
from knowledge_platform.connectors.webhooks.contract import Outcome, Registering
from knowledge_platform.errors import ConfigError
from knowledge_platform.hooks import registrations as store


def register(
    registry: Registry,
    home: Path,
    *,
    source: str | None = None,
    scope: str | None = None,
    renew_only: bool = False,
    clock: Callable[[], float] = time.time,
) -> list[Outcome]:
    """Create or renew the webhooks of every push source x scope (or the ones named); with
    `renew_only`, only registrations already made that expire (Drive channels). Records the
    result."""
    public = registry.service
    if public.public_url is None:
        raise ConfigError(
            "service.public_url is not set in the registry: the address sources "
            "deliver webhooks to (https://..., the MCP service behind its proxy)"
        )
    pushes = push_specs()
    if source is not None and source not in pushes:
        raise ConfigError(f"no webhooks for {source!r}; sources with webhooks: {', '.join(pushes)}")
    now = clock()
    records = store.load(home)
    outcomes: list[Outcome] = []
    for name, push in pushes.items():
        for sc in registry.scopes:
            if (
                (source and name != source)
                or (scope and sc != scope)
                or name not in registry.sources_for(sc)
            ):
                continue
            mine = [r for r in records if (r.source, r.scope) == (name, sc)]
            module = push_source(name)
            if renew_only and (not module.RENEWS or not mine):
                continue
            done, fresh = module.register(
                Registering(
                    settings=registry.source_settings(name, sc),
                    scope=sc,
                    endpoint=public.hook_url(push.path) or "",
                    known=mine,
                    channel_hours=public.hooks.drive_channel_hours,
                    now=now,
                )
            )
            outcomes += done
            records = [r for r in records if (r.source, r.scope) != (name, sc)] + fresh
    store.save(home, records)
    return outcomes
