"""Source name -> its SourceSpec; connector classes are imported lazily, so one source's
dependencies never load another's."""

from __future__ import annotations

import importlib
from typing import cast

from pydantic import ValidationError

from knowledge_platform.connectors.base import Connector, SourceSettings
from knowledge_platform.connectors.spec import PushSpec, SourceSpec
from knowledge_platform.connectors.webhooks.contract import PushSource
from knowledge_platform.errors import ConfigError

#: Source name -> the module holding its `SPEC`: the one line a new source adds here.
SPEC_MODULES: dict[str, str] = {
    name: f"knowledge_platform.connectors.{name}.spec"
    for name in (
        "memory_files",
        "clickup",
        "google_drive",
        "supabase",
        "website",
        "git_docs",
        "beir",
    )
}
SOURCE_NAMES = tuple(SPEC_MODULES)


def spec(source: str) -> SourceSpec:
    if source not in SPEC_MODULES:
        known = ", ".join(SPEC_MODULES)
        raise ConfigError(f"unknown source {source!r}; known sources: {known}")
    return importlib.import_module(SPEC_MODULES[source]).SPEC


def connector_class(source: str) -> type[Connector]:
    module_name, _, attr = spec(source).connector.partition(":")
    return getattr(importlib.import_module(module_name), attr)


def push_specs() -> dict[str, PushSpec]:
    """Every source with a push side, by name."""
    return {name: push for name in SPEC_MODULES if (push := spec(name).push) is not None}


def pinnable() -> tuple[str, ...]:
    """Every source whose pull can be pinned to a version (`SourceSpec.pin`)."""
    return tuple(name for name in SPEC_MODULES if spec(name).pin is not None)


def pinned(source: str, settings: SourceSettings, version: str) -> SourceSettings:
    """`settings` pinned to `version` through the field the source's spec names; ConfigError
    for a source that declares no pin or a version it does not accept."""
    pin = spec(source).pin
    if pin is None:
        sources = ", ".join(pinnable()) or "none"
        raise ConfigError(f"{source} cannot be pinned to a version; sources that can: {sources}")
    try:
        return type(settings).model_validate({**settings.model_dump(), pin.setting: version})
    except ValidationError:
        raise ConfigError(f"{source}: {version!r} is not {pin.version}") from None


def push_source(source: str) -> PushSource:
    """The source's push module (parse, register, health); ConfigError for a pull-only one."""
    push = spec(source).push
    if push is None:
        raise ConfigError(
            f"no webhooks for {source!r}; sources with webhooks: {', '.join(push_specs())}"
        )
    return cast(PushSource, importlib.import_module(push.module))
