import yaml
from typer.testing import CliRunner

from kp.app import app


def test_clients_add_keeps_comments_and_validates(kp_env, tmp_path):
    config = kp_env.config
    config.write_text("# our registry\n" + config.read_text())
    ws = tmp_path / "newco"
    ws.mkdir()
    result = CliRunner().invoke(
        app,
        ["clients", "add", "newco", "--director", "jonas", "--source", f"memory_files:path={ws}"],
    )
    assert result.exit_code == 0, result.output
    text = config.read_text()
    assert text.startswith("# our registry")
    data = yaml.safe_load(text)
    assert data["clients"]["newco"] == {
        "name": "newco",
        "director": "jonas",
        "sources": {"memory_files": {"path": str(ws)}},
    }


def test_clients_add_refuses_bad_input_without_touching_the_file(kp_env):
    before = kp_env.config.read_text()
    runner = CliRunner()
    bad_id = runner.invoke(app, ["clients", "add", "Bad Id", "--director", "x"])
    assert bad_id.exit_code == 2 and "invalid scope" in bad_id.output
    dup = runner.invoke(app, ["clients", "add", "acme", "--director", "x"])
    assert dup.exit_code == 2 and "already" in dup.output
    bad_source = runner.invoke(
        app, ["clients", "add", "z", "--director", "x", "--source", "memory_files"]
    )
    assert bad_source.exit_code == 2 and "path" in bad_source.output
    assert kp_env.config.read_text() == before


REGISTRY = """\
# Our registry: comments, quoting and list indentation are ours to keep.
embedding:
  provider: 'hash'         # deterministic
internal:
  sources:
    memory_files: {path: ws}
    git_docs:
      repo: ws
      globs: ["**/*.md", 'docs/*.md']
clients:
    acme:
        name: "Acme"
        director: maya
        sources: {}

    # next: the principals
principals:
  - name: maya
    token_env: KP_TEST_TOKEN_MAYA
    scopes:    [acme]
"""


def test_clients_add_leaves_every_other_line_byte_for_byte(kp_env, tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "newco").mkdir()
    kp_env.config.write_text(REGISTRY, encoding="utf-8")
    result = CliRunner().invoke(
        app,
        ["clients", "add", "newco", "--director", "jonas", "--source", "memory_files:path=newco"],
    )
    assert result.exit_code == 0, result.output
    after = kp_env.config.read_text(encoding="utf-8")
    block = (
        "    newco:\n      name: newco\n      director: jonas\n      sources:\n"
        "        memory_files:\n          path: newco\n"
    )
    assert after == REGISTRY.replace("        sources: {}\n", "        sources: {}\n" + block)
    assert yaml.safe_load(after)["clients"]["newco"]["sources"] == {
        "memory_files": {"path": "newco"}
    }


def test_clients_add_refuses_a_folder_that_does_not_exist(kp_env, tmp_path):
    before = kp_env.config.read_text()
    result = CliRunner().invoke(
        app,
        [
            "clients",
            "add",
            "newco",
            "--director",
            "jonas",
            "--source",
            "memory_files:path=clients/newco",
        ],
    )
    assert result.exit_code == 2
    assert f"folder {tmp_path / 'clients' / 'newco'} does not exist" in " ".join(
        result.output.split()
    )
    assert kp_env.config.read_text() == before


def test_readme_onboarding_example_runs_as_pasted(tmp_path, monkeypatch):
    """The README's onboarding block, run line by line from the repository root against a copy
    of the demo registry: the folder it creates is the one the relative path names."""
    import re
    import shlex
    import shutil
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    readme = (repo / "README.md").read_text()
    block = re.search(r"\*\*Onboarding a client\.\*\*.*?```bash\n(.*?)```", readme, re.S)
    assert block, "the README's onboarding example is gone"
    root = tmp_path / "repo"
    shutil.copytree(repo / "demo", root / "demo")
    monkeypatch.chdir(root)
    monkeypatch.setenv("KP_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("KP_CONFIG", str(root / "demo" / "registry.yaml"))
    ran = []
    for line in block.group(1).splitlines():
        words = shlex.split(line, comments=True)
        if words[:2] == ["mkdir", "-p"]:
            for folder in words[2:]:
                Path(folder).mkdir(parents=True, exist_ok=True)
        elif words[:1] == ["kp"]:
            result = CliRunner().invoke(app, words[1:])
            assert result.exit_code == 0, result.output
        ran.append(words[0])
    assert ran == ["mkdir", "kp"]
    data = yaml.safe_load((root / "demo" / "registry.yaml").read_text())
    assert (
        data["clients"]["plant_therapy"]["sources"]["memory_files"]["path"]
        == "clients/plant_therapy"
    )


def test_hooks_status_counts_refusals_in_words(kp_env):
    """`kp hooks status` says "once" for one refusal and "N times" for more."""
    from knowledge_platform.connectors.webhooks.events import Rejected
    from knowledge_platform.hooks.queue import open_queue

    queue = open_queue(kp_env.home_dir)
    queue.record_reject("clickup", Rejected(401, "no X-Signature header", code="signature"))
    for _ in range(3):
        queue.record_reject("git", Rejected(409, "replayed delivery", code="replay"))
    result = CliRunner().invoke(app, ["hooks", "status", "--no-check"])
    assert result.exit_code == 0, result.output
    assert "refused clickup 401 signature: once, last" in result.output
    assert "refused git 409 replay: 3 times, last" in result.output
    assert "1 times" not in result.output
