"""MCP tests: anyio on asyncio, one indexed corpus per session, a fresh Runtime per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from knowledge_platform.runtime import Runtime
from tests.mcp.fixtures import build_corpus, make_runtime


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def corpus_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_corpus(tmp_path_factory.mktemp("mcp-corpus"))


@pytest.fixture
def runtime(corpus_root: Path) -> Iterator[Runtime]:
    rt = make_runtime(corpus_root)
    yield rt
    rt.close()
