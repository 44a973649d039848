import yaml
from typer.testing import CliRunner

from kp.app import app


def test_clients_add_keeps_comments_and_validates(kp_env, tmp_path):
    config = kp_env.config
    config.write_text("# our registry\n" + config.read_text())
    ws = tmp_path / "newco"
    ws.mkdir()
    result = CliRunner().invoke(app, ["clients", "add", "newco", "--director", "jonas",
                                      "--source", f"memory_files:path={ws}"])
    assert result.exit_code == 0, result.output
    text = config.read_text()
    assert text.startswith("# our registry")
    data = yaml.safe_load(text)
    assert data["clients"]["newco"] == {"name": "newco", "director": "jonas",
                                        "sources": {"memory_files": {"path": str(ws)}}}


def test_clients_add_refuses_bad_input_without_touching_the_file(kp_env):
    before = kp_env.config.read_text()
    runner = CliRunner()
    bad_id = runner.invoke(app, ["clients", "add", "Bad Id", "--director", "x"])
    assert bad_id.exit_code == 2 and "invalid scope" in bad_id.output
    dup = runner.invoke(app, ["clients", "add", "acme", "--director", "x"])
    assert dup.exit_code == 2 and "already" in dup.output
    bad_source = runner.invoke(app, ["clients", "add", "z", "--director", "x", "--source",
                                     "memory_files"])
    assert bad_source.exit_code == 2 and "path" in bad_source.output
    assert kp_env.config.read_text() == before
