"""`kp up`: Dagster (webserver + daemon via `dagster dev`) and the MCP service as child
process groups; Ctrl-C or TERM stops every one of them. Runs a crash, a reboot or the stop
left without a process are marked failed and their pool slots freed, before Dagster starts
and after it stops (and, while it runs, by `runs_reaper_sensor`)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from knowledge_platform.errors import ConfigError
from knowledge_platform.settings import REPO_ROOT, URLS_FILE, Settings
from kp.indexing import ensure_dagster_home

console = Console(stderr=True)


def child_env(settings: Settings) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "KP_HOME": str(settings.home_dir),
            "KP_CONFIG": str(settings.config.resolve()),
            "KP_MODEL_CACHE": str(settings.models_dir),
            "DAGSTER_HOME": str(settings.dagster_home),
        }
    )
    return env


def _spawn(args: list[str], env: dict[str, str], log: Path, cwd: Path) -> subprocess.Popen[bytes]:
    log.parent.mkdir(parents=True, exist_ok=True)
    handle = log.open("ab")
    return subprocess.Popen(
        args,
        cwd=cwd,
        env=env,
        stdout=handle,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )


def _stop(procs: list[subprocess.Popen[bytes]], grace: float = 20.0) -> None:
    for proc in procs:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        # Whatever is left of the group (run workers, code servers) goes too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)


def check_ports(host: str, ports: dict[str, tuple[str, int]]) -> None:
    """ConfigError naming the first port that cannot be bound on `host` and the option that
    moves it ({what: (option, port)}). Bound as the servers bind (SO_REUSEADDR), so a port
    left in TIME_WAIT by a stopped server is not taken for busy."""
    (first, (option, port)), *rest = ports.items()
    for what, (other, same) in rest:
        if same == port:
            raise ConfigError(
                f"{first} and {what} both asked for port {port}; give {option} "
                f"and {other} different ports"
            )
    from mcp_service.workers import listener  # the MCP service's own bind

    for what, (option, port) in ports.items():
        try:
            listener(host, port).close()
        except OSError as exc:
            raise ConfigError(
                f"port {port} on {host} ({what}) is not free: {exc.strerror}; "
                f"stop what uses it or pass {option} <another port>; "
                "nothing was started"
            ) from None


def record_urls(settings: Settings, urls: dict[str, str]) -> Path:
    """Write where this platform serves under KP_HOME: `kp status` and the others read it."""
    path = settings.home_dir / URLS_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(urls, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def client_host(host: str) -> str:
    """The address a client on this machine uses for a server bound to `host`."""
    if host in ("0.0.0.0", ""):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def reap_runs(settings: Settings, when: str) -> None:
    """Mark runs whose process is gone failed and free their pool slots (assets/reaper.py):
    at start, what a crash or a reboot left; at stop, the runs the stop interrupted."""
    from dagster import DagsterInstance

    from assets.reaper import reap

    with DagsterInstance.from_config(str(settings.dagster_home)) as instance:
        for item in reap(instance):
            console.print(f"[yellow]{when}: {escape(item.line())}[/yellow]")


def run_platform(settings: Settings, *, host: str, dagster_port: int, mcp_port: int) -> int:
    from knowledge_platform.runtime import Runtime
    from knowledge_platform.serve.access import ensure_admin_token

    check_ports(
        host,
        {"Dagster UI": ("--dagster-port", dagster_port), "MCP service": ("--mcp-port", mcp_port)},
    )
    settings.home_dir.mkdir(parents=True, exist_ok=True)
    ensure_dagster_home(settings)
    reap_runs(settings, "before starting")
    _, token_path, created = ensure_admin_token(settings)
    console.print(f"admin token ({'created' if created else 'existing'}): {token_path}")
    console.print("preparing the embedding model …")
    runtime = Runtime(settings)
    _ = runtime.embedder  # builds the ONNX files once; children load them
    env = child_env(settings)
    where = client_host(host)
    urls = {"dagster": f"http://{where}:{dagster_port}", "mcp": f"http://{where}:{mcp_port}/mcp"}
    # The MCP service reads index status from this Dagster, whatever port it was given, and
    # so does every `kp` command run later against this KP_HOME.
    env["KP_DAGSTER_URL"] = urls["dagster"]
    record_urls(settings, urls)
    logs = settings.home_dir / "logs"
    dagster_bin = str(Path(sys.executable).with_name("dagster"))
    dagster = [
        dagster_bin,
        "dev",
        "-w",
        str(REPO_ROOT / "workspace.yaml"),
        "-h",
        host,
        "-p",
        str(dagster_port),
    ]
    mcp = [
        sys.executable,
        "-m",
        "kp",
        "mcp",
        "--transport",
        "http",
        "--host",
        host,
        "--port",
        str(mcp_port),
    ]
    # Dagster runs from its own home so it never mistakes the repo's dagster.yaml template
    # for the instance config; the MCP service from the repository.
    procs = {
        "dagster": _spawn(dagster, env, logs / "dagster.log", settings.dagster_home),
        "mcp": _spawn(mcp, env, logs / "mcp.log", REPO_ROOT),
    }
    stopping = False

    def _on_signal(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    console.print(f"Dagster UI   {urls['dagster']}   (log {logs / 'dagster.log'})")
    console.print(f"MCP service  {urls['mcp']}   (log {logs / 'mcp.log'})")
    console.print(
        "the registry sensor indexes every configured source on first start; "
        "Ctrl-C stops everything"
    )
    code = 0
    while not stopping:
        dead = [name for name, p in procs.items() if p.poll() is not None]
        if dead:
            console.print(f"[red]a child process exited ({dead[0]}); stopping[/red]")
            code = 1
            break
        time.sleep(0.5)
    _stop(list(procs.values()))
    reap_runs(settings, "after stopping")
    return code
