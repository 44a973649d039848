"""`kp up` records its URLs under KP_HOME; settings read the Dagster URL from there unless
KP_DAGSTER_URL says otherwise."""

import json

from knowledge_platform.settings import URLS_FILE, Settings


def test_the_recorded_dagster_url_is_used_and_an_explicit_one_wins(tmp_path, monkeypatch):
    monkeypatch.delenv("KP_DAGSTER_URL", raising=False)
    monkeypatch.setenv("KP_HOME", str(tmp_path))
    assert Settings().dagster_url == "http://127.0.0.1:3000"  # nothing recorded
    (tmp_path / URLS_FILE).write_text(
        json.dumps({"dagster": "http://127.0.0.1:3100", "mcp": "http://127.0.0.1:8101/mcp"})
    )
    assert Settings().dagster_url == "http://127.0.0.1:3100"
    monkeypatch.setenv("KP_DAGSTER_URL", "http://dagster.internal:3000")
    assert Settings().dagster_url == "http://dagster.internal:3000"
    monkeypatch.delenv("KP_DAGSTER_URL")
    (tmp_path / URLS_FILE).write_text("{not json")
    assert Settings().dagster_url == "http://127.0.0.1:3000"
