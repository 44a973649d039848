"""An independent audit: `mcpscore` (pinned in pyproject.toml) against `kp mcp` over stdio
and over streamable HTTP, in OAuth resource-server mode with a local issuer on https.

- stdio: no rule may fail.
- `kp mcp` over plain http on loopback: only the rules that want HTTPS may fail (the endpoint
  itself, `security_tls_enabled`, and the protected-resource metadata URL it advertises,
  `auth_metadata_https`); production puts a TLS proxy in front (docs/production.md).
- the same HTTP app behind TLS (a throwaway CA the auditor trusts through SSL_CERT_FILE): no
  rule may fail.
The three audits run at once; their scores are printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from knowledge_platform.serve.access import ensure_admin_token
from knowledge_platform.settings import DEMO_CONFIG, Settings
from tests.fakes.oidc_issuer import OidcIssuer
from tests.fakes.tls import LocalTls, local_tls
from tests.procs import free_port, free_ports, listening, stop_group

pytestmark = pytest.mark.e2e
BIN = Path(sys.executable).parent
HTTPS_ON_LOOPBACK = {"security_tls_enabled", "auth_metadata_https"}
SERVE_OVER_TLS = """
import sys, uvicorn
from knowledge_platform.settings import Settings
from mcp_service.app import UVICORN_OPTIONS, http_app
uvicorn.run(http_app(Settings()), **{**UVICORN_OPTIONS, "port": int(sys.argv[1]),
            "ssl_certfile": sys.argv[2], "ssl_keyfile": sys.argv[3]})
"""


def registry(root: Path, public_url: str, issuer: OidcIssuer) -> Path:
    """The demo registry (absolute paths) with the service's public URL and OAuth mode."""
    data = yaml.safe_load(DEMO_CONFIG.read_text())
    for scope in [data["internal"], *data["clients"].values()]:
        for settings in scope["sources"].values():
            for key in ("path", "repo"):
                if key in settings:
                    settings[key] = str((DEMO_CONFIG.parent / settings[key]).resolve())
    data["service"] = {
        "public_url": public_url,
        "website_url": "https://docs.example.com/kb",
        "oauth": {
            "issuer": issuer.issuer,
            "scopes": ["knowledge.read"],
            "jwks_uri": issuer.url("/.well-known/jwks.json"),
        },
    }
    path = root / f"registry-{public_url.split(':')[0]}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@contextmanager
def serving(command: list[str], env: dict[str, str], port: int, log: Path) -> Iterator[None]:
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 120
        while not listening(port):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield
    finally:
        stop_group(proc, 20)


def failures(report: dict[str, Any]) -> dict[str, str]:
    results = [*report["results"], *(report.get("readiness") or {}).get("results", [])]
    return {r["rule_id"]: r["message"] for r in results if not r["passed"]}


def test_mcpscore_fails_nothing_but_https_on_loopback(tmp_path: Path) -> None:
    tls: LocalTls = local_tls(tmp_path / "tls")
    home = tmp_path / "home"
    http_port, tls_port = free_ports(2)
    with OidcIssuer(tls.server_context()) as issuer:
        env = {
            **os.environ,
            "KP_HOME": str(home),
            "SSL_CERT_FILE": str(tls.ca),
            "KP_DAGSTER_URL": f"http://127.0.0.1:{free_port()}",
        }
        http_env = {
            **env,
            "KP_CONFIG": str(registry(tmp_path, f"http://127.0.0.1:{http_port}", issuer)),
        }
        tls_env = {
            **env,
            "KP_CONFIG": str(registry(tmp_path, f"https://127.0.0.1:{tls_port}", issuer)),
        }
        token, _, _ = ensure_admin_token(Settings.model_validate({"KP_HOME": str(home)}))
        audit = [str(BIN / "mcpscore"), "--no-config", "--json"]
        with (
            serving(
                [str(BIN / "kp"), "mcp", "--port", str(http_port)],
                http_env,
                http_port,
                tmp_path / "http.log",
            ),
            serving(
                [sys.executable, "-c", SERVE_OVER_TLS, str(tls_port), str(tls.cert), str(tls.key)],
                tls_env,
                tls_port,
                tmp_path / "tls.log",
            ),
        ):
            runs = {
                "stdio": subprocess.Popen(
                    [
                        *audit,
                        "--env",
                        "KP_HOME",
                        "--env",
                        "KP_CONFIG",
                        "--env",
                        "KP_MODEL_CACHE",
                        "--stdio",
                        str(BIN / "kp"),
                        "mcp",
                        "--transport",
                        "stdio",
                    ],
                    env=http_env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                ),
                "http": subprocess.Popen(
                    [*audit, f"--token={token}", f"http://127.0.0.1:{http_port}/mcp"],
                    env=http_env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                ),
                "https": subprocess.Popen(
                    [*audit, f"--token={token}", f"https://127.0.0.1:{tls_port}/mcp"],
                    env=tls_env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                ),
            }
            reports = {}
            for name, proc in runs.items():
                out, err = proc.communicate(timeout=300)
                assert proc.returncode == 0, (name, err.decode()[-3000:])
                reports[name] = json.loads(out)
    for name, report in reports.items():
        print(
            f"mcpscore {name}: {report['score']}/{report['max_score']}, "
            f"failed: {sorted(failures(report)) or 'none'}"
        )
        assert not report["partial"], (name, report["partial_reason"])
    assert failures(reports["stdio"]) == {}
    assert set(failures(reports["http"])) <= HTTPS_ON_LOOPBACK, failures(reports["http"])
    assert failures(reports["https"]) == {}
