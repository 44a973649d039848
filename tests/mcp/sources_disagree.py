"""An `internal` scope as a new user's: memory files (the standing rules), a ClickUp Doc (the
experiment playbook, served by the ClickUp fake) and a git handbook of decision records,
each pulled by its connector and indexed by the core pipeline with the local model (these
tests are about which passages answer a question, so the hash embedder would not do).

The standing rules and the playbook disagree on the naming convention for experiments;
ADR 7 is superseded by ADR 8; ADR 9 is an unrelated record; the playbook's rituals section
gives the weekly review's time next to the test-length rule's subject."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from knowledge_platform.config.registry import Registry
from knowledge_platform.ingest.indexing import index_scope
from knowledge_platform.ingest.runtime import IngestRuntime
from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.access import ensure_admin_token
from tests.fakes.clickup_server import ClickUpFake
from tests.integration.test_git_docs import commit, git
from tests.mcp.fixtures import make_settings

CLICKUP_TOKEN = "pk_7_DISAGREE"
RULES = (
    "---\ntitle: Surefoot standing rules\ndate: 2026-11-20\n---\n# Surefoot standing rules\n\n"
    "## Experiments\n"
    "- Every experiment needs a written hypothesis and a primary metric before it launches.\n"
    "- Tests run for at least two full business cycles (usually 14 days) and are never "
    "stopped early.\n"
    "- Test names follow `CLIENT-YYYYMM-short-slug`, so the test log sorts by client and "
    "month.\n\n"
    "## Data\nClient data never leaves the client's scope.\n"
)
PLAYBOOK = {
    "Naming": "# Naming\n\nExperiment naming: `BRAND-YYMM short-slug`, e.g. `HOT-2611 bundle "
    "pdp`.\n",
    "Rituals": "# Rituals\n\nThe weekly experiment review runs every Tuesday at 10:00 in the "
    "ops channel. Bring the test log.\n",
}
HANDBOOK: dict[str, str | bytes | None] = {
    "decisions/0007-monthly-reports.md": (
        '---\ntitle: "ADR 7: monthly client reports"\nstatus: superseded\n'
        "superseded_by: 0008-biweekly-reports.md\ndate: 2026-03-02\n---\n"
        "# ADR 7: monthly client reports\n\n## Decision\nClient performance reports go out on "
        "the first Monday of every month.\n"
    ),
    "decisions/0008-biweekly-reports.md": (
        '---\ntitle: "ADR 8: biweekly client reports"\nstatus: accepted\n'
        "supersedes: [0007-monthly-reports.md]\ndate: 2026-09-14\n---\n"
        "# ADR 8: biweekly client reports\n\n## Decision\nClient reports go out every second "
        "Monday, with a one-page summary on top.\n"
    ),
    "decisions/0009-edge-store.md": (
        '---\ntitle: "ADR 9: Qdrant Edge for the embedded store"\nstatus: accepted\n'
        "date: 2026-10-01\n---\n# ADR 9: Qdrant Edge for the embedded store\n\n## Decision\n"
        "The embedded default keeps its vectors in Qdrant Edge shards.\n"
    ),
}


def _registry(root: Path, fake: ClickUpFake) -> Registry:
    return Registry.model_validate(
        {
            "embedding": {"provider": "local"},
            "store": {"engine": "edge"},
            "answer": {"api_key_env": "KP_TEST_NO_SUCH_KEY"},
            "internal": {
                "sources": {
                    "memory_files": {"path": str(root / "workspace")},
                    "clickup": {
                        "base_url": fake.url("/api/v2"),
                        "docs_base_url": fake.url("/api/v3"),
                        "team_id": "9001",
                        "doc_ids": ["playbook"],
                    },
                    "git_docs": {"repo": str(root / "handbook")},
                }
            },
            "base_dir": root,
        }
    )


def build(root: Path, env: Any) -> Iterator[Runtime]:
    """Index the three sources under `root` and yield a Runtime over them."""
    (root / "workspace").mkdir(parents=True)
    (root / "workspace" / "rules.md").write_text(RULES)
    repo = root / "handbook"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, HANDBOOK, day=5)
    env.setenv("CLICKUP_TOKEN", CLICKUP_TOKEN)
    with ClickUpFake(personal_token=CLICKUP_TOKEN) as fake:
        fake.add_hierarchy("9001", "s1", None, "L1")  # the workspace, with no tasks
        fake.add_doc("9001", "playbook", "Experiment playbook")
        for n, (name, content) in enumerate(PLAYBOOK.items()):
            fake.add_page("playbook", f"p{n}", name, content)
        runtime = IngestRuntime(make_settings(root), registry=_registry(root, fake))
        ensure_admin_token(runtime.settings)
        try:
            index_scope(runtime, "internal")
            yield runtime
        finally:
            runtime.close()
