"""The memory-files asset graph end to end on an ephemeral Dagster instance."""

from __future__ import annotations

from knowledge_platform.runtime import Runtime


def _search(settings, query, scope="internal"):
    runtime = Runtime(settings)
    try:
        return runtime.retriever.search(scope, query, limit=5)
    finally:
        runtime.close()


def test_materialize_indexes_workspace_and_passes_check(run_assets, kp_env):
    result = run_assets("memory_files")
    assert result.success
    raw = run_assets.metadata(result, "raw")
    coll = run_assets.metadata(result, "collection")
    assert raw["documents"] == 2
    assert coll["added"] > 0 and coll["deleted"] == 0
    checks = result.get_asset_check_evaluations()
    assert {c.check_name: c.passed for c in checks} == {
        "memory_files_collection_matches_chunks": True,
        "memory_files_deletions_within_guard": True,
        "memory_files_pull_complete": True,
        "memory_files_single_embedding_model": True,
        "memory_files_golden_questions": True,
    }
    hits = _search(kp_env, "how long does every experiment run")
    assert hits and hits[0].chunk.title == "Standing rules"
    assert hits[0].chunk.source == "memory_files" and hits[0].chunk.scope == "internal"


def test_rerun_with_nothing_changed_embeds_nothing(run_assets):
    first = run_assets("memory_files")
    second = run_assets("memory_files")
    emb = run_assets.metadata(second, "embeddings")
    coll = run_assets.metadata(second, "collection")
    assert run_assets.metadata(second, "chunks")["reused_documents"] == 2
    assert emb["embedded"] == 0
    assert emb["cached"] == run_assets.metadata(first, "embeddings")["embedded"]
    assert (coll["added"], coll["updated"], coll["deleted"]) == (0, 0, 0)


def test_editing_one_section_reembeds_only_that_chunk(run_assets, workspace):
    run_assets("memory_files")
    rules = workspace / "rules.md"
    rules.write_text(rules.read_text().replace("fourteen days", "twenty-one days"))
    result = run_assets("memory_files")
    assert run_assets.metadata(result, "chunks")["reused_documents"] == 1
    assert run_assets.metadata(result, "embeddings")["embedded"] == 1
    assert run_assets.metadata(result, "collection")["added"] == 0


def test_deleting_a_file_removes_its_points(run_assets, workspace, kp_env):
    run_assets("memory_files")
    (workspace / "memory" / "2026-11-20.md").unlink()
    result = run_assets("memory_files")
    coll = run_assets.metadata(result, "collection")
    assert coll["deleted"] > 0
    runtime = Runtime(kp_env)
    try:
        titles = {c.title for c in runtime.store.scroll("internal")}
    finally:
        runtime.close()
    assert titles == {"Standing rules"}


def test_an_emptied_source_trips_the_guard_and_keeps_the_index(run_assets, workspace, kp_env):
    run_assets("memory_files")
    runtime = Runtime(kp_env)
    before = runtime.store.count("internal")
    for path in workspace.rglob("*.md"):
        path.unlink()
    result = run_assets("memory_files", raise_on_error=False)
    # The run goes on (nothing else changed); the inferred deletions are held and the
    # deletion check fails saying how many and why.
    assert result.success
    assert run_assets.metadata(result, "raw")["deletions_held"] == 2
    evaluation = next(
        c
        for c in result.get_asset_check_evaluations()
        if c.check_name == "memory_files_deletions_within_guard"
    )
    assert evaluation.passed is False
    assert "2 deletions held: the pull would remove all 2 documents" in (
        evaluation.description or ""
    )
    assert runtime.store.count("internal") == before
    runtime.close()
    forced = run_assets("memory_files", tags={"kp/full_reconcile": "true"}, raise_on_error=False)
    assert run_assets.metadata(forced, "collection")["points"] == 0
    # An empty scope can no longer answer its golden question: that check says so.
    checks = {c.check_name: c.passed for c in forced.get_asset_check_evaluations()}
    assert checks["memory_files_golden_questions"] is False
    assert checks["memory_files_collection_matches_chunks"] is True
