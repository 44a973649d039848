from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from dagster import AssetKey, AssetSelection, DagsterInstance, materialize

from assets.checks import build_collection_checks
from assets.factory import build_source_assets
from assets.partitions import ensure_scopes
from knowledge_platform.settings import Settings
from resources.platform import platform_resources


class Materializer:
    """Runs one source's four assets for a scope on an ephemeral instance, like a run would."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.instance = DagsterInstance.ephemeral()

    def __call__(
        self,
        source: str,
        scope: str = "internal",
        tags: dict[str, str] | None = None,
        raise_on_error: bool = True,
    ) -> Any:
        ensure_scopes(self.instance, source, [scope])
        return materialize(
            [*build_source_assets(source), *build_collection_checks(source)],
            partition_key=scope,
            instance=self.instance,
            resources=platform_resources(self.settings),
            tags=tags or {},
            raise_on_error=raise_on_error,
        )

    def run_and_check(self, source: str, scope: str = "internal") -> dict[str, bool]:
        result = self(source, scope, raise_on_error=False)
        return {c.check_name: c.passed for c in result.get_asset_check_evaluations()}

    def partial(
        self,
        source: str,
        steps: list[str],
        scope: str = "internal",
        tags: dict[str, str] | None = None,
    ) -> Any:
        ensure_scopes(self.instance, source, [scope])
        return materialize(
            build_source_assets(source),
            selection=[AssetKey([source, step]) for step in steps],
            partition_key=scope,
            instance=self.instance,
            resources=platform_resources(self.settings),
            tags=tags,
        )

    def checks_only(self, source: str, scope: str = "internal") -> dict[str, bool]:
        """Evaluate the collection checks against the store as it is, re-pulling only `raw`
        (which never touches the store) so the run has a partitioned asset to anchor it."""
        selection = AssetSelection.assets(
            AssetKey([source, "raw"])
        ) | AssetSelection.checks_for_assets(AssetKey([source, "collection"]))
        result = materialize(
            [*build_source_assets(source), *build_collection_checks(source)],
            selection=selection,
            partition_key=scope,
            instance=self.instance,
            resources=platform_resources(self.settings),
            raise_on_error=False,
        )
        return {c.check_name: c.passed for c in result.get_asset_check_evaluations()}

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
