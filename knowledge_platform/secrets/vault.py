"""Reading 1Password references at run time, in memory only.

Two ways, chosen per read: the official 1Password SDK (`onepassword-sdk`) when
OP_SERVICE_ACCOUNT_TOKEN is set, else the 1Password CLI (`op read <ref>`) when `op` is on
PATH (signed in, or itself using OP_SERVICE_ACCOUNT_TOKEN). Neither: VaultUnavailableError
saying both ways. Values are kept per process for `ttl` seconds, so a rotated secret is read
again by the next run without a restart; they are never written anywhere, and no message
carries one (messages name the reference and summarise what the vault said)."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from knowledge_platform.errors import (
    VaultReadError,
    VaultTimeoutError,
    VaultUnavailableError,
)
from knowledge_platform.secrets.refs import parse_reference, shown_reference

TOKEN_ENV = "OP_SERVICE_ACCOUNT_TOKEN"


def service_token() -> str:
    """The 1Password service account token from the environment ("" when there is none)."""
    return os.environ.get(TOKEN_ENV, "").strip()


#: Seconds a value read from the vault is reused by this process.
DEFAULT_TTL = 60.0
#: Seconds one read may take (the SDK signs in first; `op` may wait for its daemon).
DEFAULT_TIMEOUT = 20.0
INTEGRATION = ("surefoot-knowledge-platform", "1")
_OP_PREFIX = re.compile(r"^\[(ERROR|WARN)\]\s+\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\s+")
_SYNTAX = ("could not be parsed", "invalid character")
_SUMMARY = 200

#: (service account token, reference) -> the value; the SDK's sign-in plus resolve.
SdkRead = Callable[[str, str], Awaitable[str]]


async def sdk_read(token: str, ref: str) -> str:
    """The 1Password SDK: `Client.authenticate(auth=..., integration_name=...,
    integration_version=...)`, then `client.secrets.resolve(ref)` (both coroutines)."""
    from onepassword import Client

    client = await Client.authenticate(
        auth=token, integration_name=INTEGRATION[0], integration_version=INTEGRATION[1]
    )
    return await client.secrets.resolve(ref)


def sdk_installed() -> bool:
    try:
        import onepassword  # noqa: F401
    except ImportError:
        return False
    return True


def summarise(text: str, hide: Iterable[str] = ()) -> str:
    """One bounded line of what a tool said: its last non-empty line, `op`'s `[ERROR] date`
    prefix dropped, every string in `hide` (values, tokens) masked."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    line = _OP_PREFIX.sub("", lines[-1]) if lines else "no message"
    for secret in hide:
        if secret:
            line = line.replace(secret, "***")
    line = " ".join(line.split())
    return line if len(line) <= _SUMMARY else line[: _SUMMARY - 1] + "…"


class Vault:
    """Reads references through the SDK or `op`, with a per-process TTL cache."""

    def __init__(
        self,
        *,
        ttl: float = DEFAULT_TTL,
        timeout: float = DEFAULT_TIMEOUT,
        clock: Callable[[], float] = time.monotonic,
        sdk: SdkRead | None = None,
    ) -> None:
        self.ttl = ttl
        self.timeout = timeout
        self.clock = clock
        self._sdk = sdk
        self._cache: dict[str, tuple[float, str]] = {}
        self._lock = threading.Lock()
        #: How many reads went to the vault (cache misses), for tests and metadata.
        self.fetches = 0

    def read(self, ref: str) -> str:
        """The value `ref` points to. Raises SecretReferenceError (malformed), VaultUnavailable,
        VaultRead or VaultTimeoutError; every message names the reference, never a value."""
        parse_reference(ref)
        with self._lock:  # one read per reference at a time; others wait for its answer
            hit = self._cache.get(ref)
            if hit is not None and self.clock() - hit[0] < self.ttl:
                return hit[1]
            value = self._fetch(ref)
            self._cache[ref] = (self.clock(), value)
            return value

    def forget(self, ref: str | None = None) -> None:
        """Drop one cached value (e.g. after the service refused it), or all of them."""
        with self._lock:
            if ref is None:
                self._cache.clear()
            else:
                self._cache.pop(ref, None)

    def way(self) -> str | None:
        """ "sdk", "cli" or None: how the next read would go."""
        if service_token() and (self._sdk or sdk_installed()):
            return "sdk"
        return "cli" if shutil.which("op") else None

    def _fetch(self, ref: str) -> str:
        self.fetches += 1
        way = self.way()
        if way == "sdk":
            value = self._read_sdk(ref)
        elif way == "cli":
            value = self._read_cli(shutil.which("op") or "op", ref)
        else:
            raise VaultUnavailableError(
                f"cannot read {shown_reference(ref)}: set {TOKEN_ENV} (a 1Password service "
                "account, read through the onepassword-sdk) or put the 1Password CLI `op` on "
                "PATH, signed in"
            )
        if not value:
            raise VaultReadError(f"{shown_reference(ref)} resolved to an empty value")
        return value

    def _read_sdk(self, ref: str) -> str:
        token = service_token()
        read = self._sdk or sdk_read
        box: dict[str, Any] = {}

        def work() -> None:  # its own event loop: callers may be inside one (the MCP service)
            try:
                box["value"] = asyncio.run(_awaited(read(token, ref)))
            except Exception as exc:
                box["error"] = str(exc)

        worker = threading.Thread(target=work, name="kp-1password-sdk", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if worker.is_alive():
            raise VaultTimeoutError(
                f"1Password SDK did not read {shown_reference(ref)} within {self.timeout:g}s; "
                f"check the network and {TOKEN_ENV}"
            )
        if "error" in box:
            said = summarise(box["error"], hide=[token])
            hint = "; " + _ID_HINT if any(s in said for s in _SYNTAX) else ""
            raise VaultReadError(
                f"1Password SDK could not read {shown_reference(ref)}: {said}{hint}"
            )
        value = box.get("value")
        return value if isinstance(value, str) else ""

    def _read_cli(self, op: str, ref: str) -> str:
        try:
            proc = subprocess.Popen(
                [op, "read", ref],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise VaultUnavailableError(
                f"cannot run {op} to read {shown_reference(ref)}: {exc.strerror}"
            ) from None
        with proc:
            try:
                out, err = proc.communicate(timeout=self.timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                raise VaultTimeoutError(
                    f"op read {shown_reference(ref)} did not answer within {self.timeout:g}s; "
                    f"check that op is signed in (op whoami) or set {TOKEN_ENV}"
                ) from None
        value = out.decode("utf-8", "replace")
        value = value.removesuffix("\n").removesuffix("\r")
        if proc.returncode != 0:
            said = summarise(err.decode("utf-8", "replace"), hide=[value, service_token()])
            hint = "; " + _ID_HINT if any(s in said for s in _SYNTAX) else ""
            raise VaultReadError(
                f"op read {shown_reference(ref)} failed (exit {proc.returncode}): {said}{hint}"
            )
        return value


_ID_HINT = (
    "1Password names in a reference may hold only letters, digits, spaces, -, _ and "
    ".: refer to that vault, item or field by its ID"
)


async def _awaited(value: Awaitable[str]) -> str:
    return await value


_default: Vault | None = None
_default_lock = threading.Lock()


def default_vault() -> Vault:
    """The process's vault (one cache for every caller)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Vault()
        return _default
