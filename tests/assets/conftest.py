from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from dagster import DagsterInstance, materialize

from assets.factory import build_source_assets
from assets.partitions import scopes_partitions
from knowledge_platform.settings import Settings
from resources.platform import platform_resources


class Materializer:
    """Runs one source's four assets for a scope on an ephemeral instance, like a run would."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.instance = DagsterInstance.ephemeral()

    def __call__(self, source: str, scope: str = "internal", tags: dict[str, str] | None = None,
                 raise_on_error: bool = True) -> Any:
        if scope not in self.instance.get_dynamic_partitions(scopes_partitions.name):
            self.instance.add_dynamic_partitions(scopes_partitions.name, [scope])
        return materialize(build_source_assets(source), partition_key=scope,
                           instance=self.instance, resources=platform_resources(self.settings),
                           tags=tags or {}, raise_on_error=raise_on_error)

    @staticmethod
    def metadata(result: Any, step: str) -> dict[str, Any]:
        for event in result.get_asset_materialization_events():
            mat = event.step_materialization_data.materialization
            if mat.asset_key.path[-1] == step:
                return {k: v.value for k, v in mat.metadata.items()}
        raise AssertionError(f"no materialization of {step}")


@pytest.fixture
def run_assets(kp_env: Settings) -> Callable[..., Any]:
    return Materializer(kp_env)
