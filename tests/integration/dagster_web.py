"""Dagster's own webserver (GraphQL included) over a test's instance and the project's code
location, served in a thread: what the MCP service's status client talks to in production."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dagster import DagsterInstance

from tests.procs import served_in_thread

REPO = Path(__file__).resolve().parents[2]


@contextmanager
def dagster_webserver(instance: DagsterInstance) -> Iterator[str]:
    """Yields the webserver's base URL."""
    from dagster._core.remote_origin import InProcessCodeLocationOrigin
    from dagster._core.types.loadable_target_origin import LoadableTargetOrigin
    from dagster._core.workspace.context import WorkspaceProcessContext
    from dagster._core.workspace.load_target import InProcessWorkspaceLoadTarget
    from dagster_webserver.webserver import DagsterWebserver

    origin = InProcessCodeLocationOrigin(
        LoadableTargetOrigin(
            module_name="assets.definitions", attribute="defs", working_directory=str(REPO)
        ),
        location_name="knowledge_platform",
    )
    with WorkspaceProcessContext(instance, InProcessWorkspaceLoadTarget([origin])) as context:
        app = DagsterWebserver(context).create_asgi_app()
        with served_in_thread(app) as url:
            yield url.removesuffix("/mcp")
