"""The production deployment, as far as this machine can run it (no Docker engine): the
compose file validates with Debian's `docker-compose config`, `.env.example` names every
variable the stack reads, and a Postgres-backed Dagster (deploy/dagster.prod.yaml's storage,
a throwaway PostgreSQL server) records `kp index` and reports it through the webserver's
GraphQL API to the MCP service's status client."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from knowledge_platform.config.registry import load_registry
from knowledge_platform.settings import Settings
from kp.app import app
from mcp_service.dagster_client import DagsterClient
from tests.conftest import write_registry
from tests.procs import free_port, free_ports

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
SERVICES = {"qdrant", "postgres", "dagster-code", "dagster-webserver", "dagster-daemon", "mcp"}
PLATFORM = SERVICES - {"qdrant", "postgres"}


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


# -- the compose file -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    """`docker-compose config` of the repo's compose file with .env made from .env.example."""
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.skip(
            "docker-compose (Debian's v1 binary) is not on PATH: "
            "apt-get install docker-compose to validate docker-compose.yml"
        )
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(REPO / "docker-compose.yml", tmp)
        shutil.copy(REPO / ".env.example", Path(tmp) / ".env")
        done = subprocess.run(  # a clean environment: only .env may feed the interpolation
            [binary, "-f", "docker-compose.yml", "config"],
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=120,
            env={"PATH": os.environ["PATH"], "HOME": tmp},
        )
    assert done.returncode == 0, done.stderr
    return yaml.safe_load(done.stdout)


def test_compose_config_has_every_service_pinned_and_supervised(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == SERVICES
    assert re.fullmatch(r"qdrant/qdrant:v1\.\d+\.\d+", services["qdrant"]["image"])
    assert re.fullmatch(r"postgres:\d+\.\d+-\w+", services["postgres"]["image"])
    for name, svc in services.items():
        assert svc["restart"] == "unless-stopped", name
        assert svc["healthcheck"]["test"][0] in ("CMD", "CMD-SHELL"), name
    for name in PLATFORM:
        svc = services[name]
        assert svc["image"] == "kp-platform:latest" and "build" in svc, name
        # env_file .env reached the container environment
        assert svc["environment"]["QDRANT_URL"] == "http://qdrant:6333", name
    env = services["qdrant"]["environment"]
    assert env["QDRANT__SERVICE__API_KEY"] == services["mcp"]["environment"]["QDRANT_API_KEY"]
    assert "qdrant-storage:/qdrant/storage:rw" in services["qdrant"]["volumes"]
    assert "postgres-data:/var/lib/postgresql/data:rw" in services["postgres"]["volumes"]
    assert "pg_isready" in " ".join(services["postgres"]["healthcheck"]["test"])

    healthy = {"condition": "service_healthy"}
    assert services["dagster-code"]["depends_on"] == {"postgres": healthy, "qdrant": healthy}
    for name in ("dagster-webserver", "dagster-daemon"):
        assert services[name]["depends_on"] == {"postgres": healthy, "dagster-code": healthy}
    assert services["mcp"]["depends_on"]["qdrant"] == healthy

    code = " ".join(services["dagster-code"]["command"])
    assert "dagster api grpc -h 0.0.0.0 -p 4000 -m assets.definitions -a defs" in code
    mcp = " ".join(services["mcp"]["command"])
    assert mcp.startswith("kp mcp --transport http --host 0.0.0.0")


def test_compose_instance_and_workspace_agree(compose: dict[str, Any]) -> None:
    """Names the three files share: the run launcher's network and volumes_from container,
    the grpc code location's host and port."""
    services = compose["services"]
    launcher = load(DEPLOY / "dagster.prod.yaml")["run_launcher"]
    assert launcher["class"] == "DockerRunLauncher"
    assert launcher["config"]["network"] in {n["name"] for n in compose["networks"].values()}
    assert launcher["config"]["container_kwargs"]["volumes_from"] == [
        services["dagster-code"]["container_name"]
    ]
    (location,) = load(DEPLOY / "workspace.prod.yaml")["load_from"]
    grpc = location["grpc_server"]
    assert grpc["host"] in services
    assert str(grpc["port"]) in services[grpc["host"]]["command"]


def test_dockerfile_base_is_pinned_and_copies_what_exists() -> None:
    lines = (REPO / "Dockerfile").read_text().splitlines()
    (base,) = (ln.split()[1] for ln in lines if ln.startswith("FROM "))
    assert re.fullmatch(r"python:3\.11\.\d+-slim-\w+", base)
    sources = [src for ln in lines if ln.startswith("COPY ") for src in ln.split()[1:-1]]
    assert "deploy/dagster.prod.yaml" in sources
    assert all((REPO / src).exists() for src in sources), sources


def referenced_variables() -> set[str]:
    names = set(re.findall(r"(?<!\$)\$\{(\w+)", (REPO / "docker-compose.yml").read_text()))
    instance = (DEPLOY / "dagster.prod.yaml").read_text()
    names |= set(re.findall(r"env: (\w+)", instance))
    names |= set(load(DEPLOY / "dagster.prod.yaml")["run_launcher"]["config"]["env_vars"])
    registry = load_registry(DEPLOY / "registry.example.yaml")
    names |= {
        registry.embedding.api_key_env,
        registry.store.url_env,
        registry.store.api_key_env,
        registry.answer.api_key_env,
    }
    names |= {p.token_env for p in registry.principals if p.token_env}
    names |= {str(f.validation_alias) for f in Settings.model_fields.values()}
    return names | {"DAGSTER_HOME"}


def test_env_example_names_every_variable_the_stack_reads() -> None:
    text = (REPO / ".env.example").read_text()
    assigned = set(re.findall(r"^(\w+)=", text, re.MULTILINE))
    missing = {n for n in referenced_variables() - assigned if not re.search(rf"\b{n}=", text)}
    assert not missing, f".env.example does not mention {sorted(missing)}"


def test_registry_example_is_the_production_setup() -> None:
    registry = load_registry(DEPLOY / "registry.example.yaml")
    assert registry.store.engine == "qdrant"
    assert (registry.store.url_env, registry.store.api_key_env) == ("QDRANT_URL", "QDRANT_API_KEY")
    assert registry.embedding.provider == "openai"


# -- a Postgres-backed Dagster ----------------------------------------------------------------

PG_USER, PG_PASSWORD, PG_DB = "kp", "kp-test-password", "dagster"


@dataclass
class Postgres:
    port: int

    def env(self) -> dict[str, str]:
        return {
            "DAGSTER_PG_USERNAME": PG_USER,
            "DAGSTER_PG_PASSWORD": PG_PASSWORD,
            "DAGSTER_PG_HOSTNAME": "127.0.0.1",
            "DAGSTER_PG_DB": PG_DB,
            "DAGSTER_PG_PORT": str(self.port),
        }

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        import psycopg2

        with (
            contextlib.closing(
                psycopg2.connect(
                    host="127.0.0.1",
                    port=self.port,
                    user=PG_USER,
                    password=PG_PASSWORD,
                    dbname=PG_DB,
                )
            ) as conn,
            conn.cursor() as cur,
        ):
            cur.execute(sql)
            return cur.fetchall()


def pg_bindir() -> Path | None:
    """The newest Debian-packaged server's bin directory, else wherever initdb is on PATH."""
    versions = [
        p for p in Path("/usr/lib/postgresql").glob("*/bin/initdb") if p.parts[-3].isdigit()
    ]
    if versions:
        return max(versions, key=lambda p: int(p.parts[-3])).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@pytest.fixture
def postgres() -> Iterator[Postgres]:
    """A throwaway PostgreSQL server on a free port (as the `postgres` user when root)."""
    if not all(importlib.util.find_spec(m) for m in ("dagster_postgres", "psycopg2")):
        pytest.skip(
            "the production extra is not installed: KP_EXTRAS='dev production' "
            "scripts/bootstrap (scripts/test and CI install it)"
        )
    bindir = pg_bindir()
    if bindir is None:
        pytest.skip(
            "PostgreSQL server binaries (initdb, pg_ctl) not found: "
            "apt-get install postgresql to run the Postgres-backed Dagster test"
        )
    root = Path(tempfile.mkdtemp(prefix="kp-pg-"))
    as_owner: list[str] = []
    pwfile = root / "pw"
    pwfile.write_text(PG_PASSWORD)
    if os.geteuid() == 0:  # initdb refuses root; the data dir must belong to the server
        as_owner = ["runuser", "-u", "postgres", "--"]
        for path in (root, pwfile):
            shutil.chown(path, "postgres")
    data, port = root / "data", free_port()

    def pg(*args: str, check: bool = True) -> None:
        done = subprocess.run([*as_owner, *args], capture_output=True, text=True, timeout=120)
        if check and done.returncode != 0:
            raise AssertionError(f"{Path(args[0]).name} failed: {done.stderr or done.stdout}")

    try:
        pg(
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            PG_USER,
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            f"--pwfile={pwfile}",
            "-E",
            "UTF8",
            "--no-sync",
        )
        pg(
            str(bindir / "pg_ctl"),
            "-D",
            str(data),
            "-l",
            str(root / "server.log"),
            "-w",
            "-t",
            "60",
            "-o",
            f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off",
            "start",
        )
        subprocess.run(
            [str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", PG_USER, PG_DB],
            check=True,
            capture_output=True,
            timeout=60,
            env={**os.environ, "PGPASSWORD": PG_PASSWORD},
        )
        yield Postgres(port)
    finally:
        pg(str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop", check=False)
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def spawn(args: list[str], cwd: Path, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A process group, stopped on exit (TERM, then KILL)."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            args, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            yield proc
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def wait_for(
    ready: Callable[[], bool],
    proc: subprocess.Popen[bytes],
    log: Path,
    what: str,
    timeout: float = 300,
) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if proc.poll() is not None or time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-3000:]
            raise AssertionError(f"{what}:\n{tail}")
        time.sleep(2)


def compose_command(service: str) -> list[str]:
    """The service's command from docker-compose.yml, bound to loopback on a free port."""
    command = [str(c) for c in load(REPO / "docker-compose.yml")["services"][service]["command"]]
    return [c.replace("0.0.0.0", "127.0.0.1") for c in command]


def test_postgres_backed_dagster_records_kp_index_and_reports_it(
    postgres: Postgres, tmp_path: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in {**postgres.env(), "KP_IMAGE": "kp-platform:test"}.items():
        monkeypatch.setenv(key, value)

    # The production instance file as it is: Postgres storage, queued runs, Docker launcher
    # (constructed, never started: there is no Docker engine here).
    from dagster import DagsterInstance

    # Only its /data paths (the containers' KP_HOME) move under tmp_path.
    prod = yaml.safe_load(
        (DEPLOY / "dagster.prod.yaml").read_text().replace("/data/", f"{tmp_path}/data/")
    )
    (tmp_path / "prod").mkdir()
    (tmp_path / "prod" / "dagster.yaml").write_text(yaml.safe_dump(prod))
    with DagsterInstance.from_config(str(tmp_path / "prod")) as instance:
        kinds = {
            type(instance.run_storage).__name__,
            type(instance.event_log_storage).__name__,
            type(instance.run_coordinator).__name__,
            type(instance.run_launcher).__name__,
            type(instance.compute_log_manager).__name__,
        }
        assert kinds == {
            "PostgresRunStorage",
            "PostgresEventLogStorage",
            "QueuedRunCoordinator",
            "DockerRunLauncher",
            "LocalComputeLogManager",
        }

    # The same storage with runs launched in-process instead of in containers.
    home = tmp_path / "home"
    dagster_home = home / "dagster"
    dagster_home.mkdir(parents=True)
    local = {k: v for k, v in prod.items() if k != "run_launcher"}
    (dagster_home / "dagster.yaml").write_text(yaml.safe_dump(local))
    registry = {
        "embedding": {"provider": "hash"},
        "store": {"engine": "edge"},
        "internal": {"sources": {"memory_files": {"path": str(workspace)}}},
    }
    # One file that cannot be read: the run succeeds, the warning check reaches the status.
    (workspace / "broken.md").write_bytes(b"\xff\xfe not UTF-8")
    monkeypatch.setenv("KP_HOME", str(home))
    monkeypatch.setenv("KP_CONFIG", str(write_registry(tmp_path / "registry.yaml", registry)))
    monkeypatch.setenv("DAGSTER_HOME", str(dagster_home))

    # The code location as compose serves it (dagster-code's command) and the production
    # workspace file pointing at it; the code server boots while `kp index` runs.
    grpc_port, web_port = free_ports(2)
    code = compose_command("dagster-code")
    code[code.index("-p") + 1] = str(grpc_port)
    ws = load(DEPLOY / "workspace.prod.yaml")
    ws["load_from"][0]["grpc_server"].update(host="127.0.0.1", port=grpc_port)
    (dagster_home / "workspace.yaml").write_text(yaml.safe_dump(ws))
    bindir = Path(sys.executable).parent
    code_log, web_log = tmp_path / "code.log", tmp_path / "webserver.log"
    pair = ("memory_files", "internal")
    # Dagster's CLI loads `.env` from its working directory (the one docs/production.md has
    # users create in the checkout): the code server runs from the instance directory, so a
    # user's .env never changes this test (its DAGSTER_PG_HOSTNAME=postgres once did).
    with spawn([str(bindir / code[0]), *code[1:]], dagster_home, code_log) as code_proc:
        result = CliRunner().invoke(app, ["index", "--scope", "internal"])
        assert result.exit_code == 0, result.output
        ((runs,),) = postgres.query("SELECT count(*) FROM runs WHERE status = 'SUCCESS'")
        assert runs == 1

        health = [str(bindir / "dagster"), "api", "grpc-health-check", "-p", str(grpc_port)]
        wait_for(
            lambda: subprocess.run(health, capture_output=True).returncode == 0,
            code_proc,
            code_log,
            "the code server never became healthy",
        )
        web = [
            str(bindir / "dagster-webserver"),
            "-h",
            "127.0.0.1",
            "-p",
            str(web_port),
            "-w",
            str(dagster_home / "workspace.yaml"),
        ]
        with spawn(web, dagster_home, web_log) as web_proc:
            client = DagsterClient(f"http://127.0.0.1:{web_port}", timeout=30)
            statuses = []

            def reported() -> bool:
                statuses.append(client.index_status([pair]))
                (entry,) = statuses[-1].sources
                return bool(entry.last_materialization and entry.run_id)

            wait_for(reported, web_proc, web_log, "no materialization reported")
    ((run_id,),) = postgres.query("SELECT run_id FROM runs")
    (entry,) = statuses[-1].sources
    assert entry.run_id == run_id
    assert (entry.source, entry.scope) == pair
    assert entry.failing_checks == ["memory_files_pull_complete"]
    assert statuses[-1].health == (
        "degraded: memory_files/internal: check memory_files_pull_complete failing"
    )
