"""The bearer tokens of principals named by `token_env` / `token_ref`, kept as sha256 digests.

Read when the service starts; when a token comes from 1Password (a `token_ref`, or a
`token_env` whose value is an `op://` reference) it is read again in the background once
the vault's TTL has passed, so a rotated token works within a minute, without a restart. A
read that fails logs one line (never a value) and keeps that principal's last good digest."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence

from knowledge_platform.config.registry import Principal, hash_token
from knowledge_platform.errors import SecretError
from knowledge_platform.secrets.resolve import SecretSource, resolve_optional
from knowledge_platform.secrets.vault import Vault, default_vault

log = logging.getLogger(__name__)


class PrincipalTokens:
    def __init__(
        self,
        principals: Sequence[Principal],
        *,
        env: Mapping[str, str] | None = None,
        vault: Vault | None = None,
        clock: Callable[[], float] = time.monotonic,
        previous: PrincipalTokens | None = None,
    ) -> None:
        """`previous`: the tokens of the registry this one replaces; a principal whose token
        source is unchanged keeps its digest (a reload reads only new or moved tokens)."""
        self._env = os.environ if env is None else env
        self._vault = vault or default_vault()
        self._clock = clock
        self._sources: dict[str, SecretSource] = {
            p.name: p.secret("token")
            for p in principals
            if not p.token_sha256 and (p.token_env or p.token_ref)
        }
        kept = (
            {}
            if previous is None
            else {
                name: digest
                for name, digest in previous._digests.items()
                if previous._sources.get(name) == self._sources.get(name)
            }
        )
        self._digests: dict[str, str] = kept
        self._lock = threading.Lock()
        self._refreshing: threading.Thread | None = None
        self._read_at = clock() if previous is None else previous._read_at
        self.refresh([name for name in self._sources if name not in kept])

    @property
    def from_vault(self) -> bool:
        return any(s.uses_vault(self._env) for s in self._sources.values())

    def digests(self) -> list[tuple[str, str]]:
        """(sha256 hex, principal) for every token that could be read; starts a background
        re-read when vault-held tokens are older than the vault's TTL."""
        if self._clock() - self._read_at >= self._vault.ttl and self.from_vault:
            with self._lock:
                if self._refreshing is None or not self._refreshing.is_alive():
                    self._read_at = self._clock()
                    self._refreshing = threading.Thread(
                        target=self.refresh, daemon=True, name="kp-principal-tokens"
                    )
                    self._refreshing.start()
        return [(digest, name) for name, digest in self._digests.items()]

    def wait(self, timeout: float | None = None) -> None:
        """Wait for a running background re-read (tests)."""
        thread = self._refreshing
        if thread is not None:
            thread.join(timeout)

    def refresh(self, names: Sequence[str] | None = None) -> None:
        """Read every token (or those of `names`) now; a failure keeps the principal's
        previous digest."""
        digests = dict(self._digests)
        for name, source in self._sources.items():
            if names is not None and name not in names:
                continue
            try:
                token = resolve_optional(
                    source,
                    owner=f"principal {name}",
                    what="bearer token",
                    env=self._env,
                    vault=self._vault,
                )
            except SecretError as exc:
                kept = " (keeping the token read before)" if name in digests else ""
                log.warning("%s; %s cannot sign in until it is fixed%s", exc, name, kept)
                continue
            if token:
                digests[name] = hash_token(token)
            else:
                digests.pop(name, None)
        self._digests = digests
