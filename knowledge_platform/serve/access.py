"""Who may read what: bearer tokens -> principals -> grants of scopes and confidentiality.

Tokens are never stored or compared in clear: the registry names a token's sha256, the env
var holding it or its 1Password reference (principal_tokens.py), and every candidate is
compared by hash in constant time. The admin principal `compass` (every scope, every
confidentiality) authenticates with the token in `KP_HOME/admin-token`, created 0600 on the
first start of the embedded default.
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from knowledge_platform.config.registry import Registry, hash_token
from knowledge_platform.errors import AccessDeniedError
from knowledge_platform.models import Confidentiality
from knowledge_platform.secrets.vault import Vault
from knowledge_platform.serve.principal_tokens import PrincipalTokens
from knowledge_platform.settings import Settings

ADMIN_PRINCIPAL = "compass"
ADMIN_TOKEN_FILE = "admin-token"
ADMIN_TOKEN_PREFIX = "kpadm_"
Role = Literal["internal", "restricted"]
#: What each role may read: its level and below (public < internal < restricted). Admins
#: read everything (no confidentiality condition at all).
VISIBLE: dict[Role, tuple[Confidentiality, ...]] = {
    "internal": ("public", "internal"),
    "restricted": ("public", "internal", "restricted"),
}
_SHOWN = 40


def shown(value: object) -> str:
    """A caller-supplied string made safe for a one-line message: ASCII-escaped, bounded."""
    text = ascii(value) if isinstance(value, str) else type(value).__name__
    return text if len(text) <= _SHOWN else text[: _SHOWN - 4] + "...'"


@dataclass(frozen=True)
class Grant:
    """What one authenticated principal may read."""

    principal: str
    scopes: tuple[str, ...]
    admin: bool = False
    role: Role = "internal"

    def check_scope(self, scope: object) -> str:
        """The scope itself if granted; AccessDeniedError naming it otherwise.

        Compared exactly against the granted names (never pattern-matched or normalised), so
        `client_*`, `../internal` or a Cyrillic look-alike can never reach a store call. An
        unknown scope and another director's client get the same answer: no existence oracle.
        """
        if not isinstance(scope, str) or not scope:
            raise AccessDeniedError("scope must be a non-empty string, e.g. 'internal'")
        if scope in self.scopes:
            return scope
        hint = "" if scope.isascii() else " (it contains non-ASCII characters)"
        raise AccessDeniedError(
            f"scope {shown(scope)} is not available to {self.principal}{hint}; "
            f"allowed scopes: {', '.join(self.scopes)}"
        )

    def require_admin(self, what: str) -> None:
        if not self.admin:
            raise AccessDeniedError(f"{what} is for admins only; {self.principal} is not one")

    @property
    def confidentiality(self) -> list[str] | None:
        """Values a SearchFilter must allow (None: no condition, for admins)."""
        return None if self.admin else list(VISIBLE[self.role])


def grant_for(
    registry: Registry,
    name: str,
    *,
    admin: bool = False,
    scopes: list[str] | None = None,
    role: Role = "internal",
) -> Grant:
    """Admins get every scope; others get `internal` and the clients they direct, plus any
    scope listed for them that the registry knows."""
    known = registry.scopes
    if admin:
        return Grant(name, tuple(known), admin=True, role="restricted")
    allowed = dict.fromkeys(registry.scopes_of_director(name))
    allowed.update(dict.fromkeys(s for s in scopes or [] if s in known))
    return Grant(name, tuple(allowed), admin=False, role=role)


class Authenticator:
    """Maps bearer tokens to grants. Built once per process from the registry."""

    def __init__(
        self,
        registry: Registry,
        *,
        admin_token: str | None = None,
        env: Mapping[str, str] | None = None,
        vault: Vault | None = None,
        previous: Authenticator | None = None,
    ) -> None:
        self.registry = registry
        self._grants: dict[str, Grant] = {
            ADMIN_PRINCIPAL: grant_for(registry, ADMIN_PRINCIPAL, admin=True)
        }
        self._hashes: list[tuple[str, str]] = []
        for p in registry.principals:
            self._grants[p.name] = grant_for(
                registry, p.name, admin=p.admin, scopes=p.scopes, role=p.role
            )
            if p.token_sha256:
                self._hashes.append((p.token_sha256.lower(), p.name))
        if admin_token:
            self._hashes.append((hash_token(admin_token), ADMIN_PRINCIPAL))
        #: Tokens from the environment or 1Password, re-read when the vault's TTL passes.
        self.tokens = PrincipalTokens(
            registry.principals,
            env=env,
            vault=vault,
            previous=previous.tokens if previous else None,
        )

    @property
    def principals(self) -> list[str]:
        return list(self._grants)

    def authenticate(self, token: str) -> Grant | None:
        """The grant of the principal holding `token`, or None. Every known hash is compared
        (no early exit), so timing does not tell how close a guess was."""
        if not token:
            return None
        digest = hash_token(token).encode()
        found: str | None = None
        for known, name in [*self._hashes, *self.tokens.digests()]:
            if hmac.compare_digest(known.encode(), digest) and found is None:
                found = name
        return self._grants[found] if found else None

    def grant(self, principal: str) -> Grant:
        """The grant of a principal named in configuration (e.g. the stdio default)."""
        try:
            return self._grants[principal]
        except KeyError:
            raise AccessDeniedError(
                f"unknown principal {shown(principal)}; known: {', '.join(self._grants)}"
            ) from None


def admin_token_path(settings: Settings) -> Path:
    return settings.home_dir / ADMIN_TOKEN_FILE


def read_admin_token(settings: Settings) -> str | None:
    try:
        token = admin_token_path(settings).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    return token or None


def ensure_admin_token(settings: Settings) -> tuple[str, Path, bool]:
    """(token, path, created): the admin token, generated with mode 0600 if absent."""
    path = admin_token_path(settings)
    existing = read_admin_token(settings)
    if existing:
        return existing, path, False
    path.parent.mkdir(parents=True, exist_ok=True)
    # a fixed prefix: a token never opens with "-" (token_urlsafe's alphabet has it, 1 in 64),
    # which a CLI's option parser reads as an option ("--token -x..."), and a leaked one is
    # recognisable to a secret scanner
    token = ADMIN_TOKEN_PREFIX + secrets.token_urlsafe(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # an empty file, or another process won the race
        existing = read_admin_token(settings)
        if existing:
            return existing, path, False
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
        os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(token + "\n")
    return token, path, True


class LiveAuthenticator:
    """The Authenticator of whatever registry `registry()` returns: rebuilt when it returns
    another one (a watched registry file changed), so a removed principal's token is refused
    from the next request on and a new one works. Principals whose token source did not change
    keep their digests (no vault read for them)."""

    def __init__(
        self,
        registry: Callable[[], Registry],
        *,
        admin_token: str | None = None,
        env: Mapping[str, str] | None = None,
        vault: Vault | None = None,
    ) -> None:
        self._registry = registry
        self._options = {"admin_token": admin_token, "env": env, "vault": vault}
        self._lock = threading.Lock()
        first = registry()
        self._current = (first, Authenticator(first, admin_token=admin_token, env=env, vault=vault))

    def current(self) -> Authenticator:
        registry = self._registry()
        built_for, authn = self._current
        if registry is not built_for:
            with self._lock:
                built_for, authn = self._current
                if registry is not built_for:
                    authn = Authenticator(registry, previous=authn, **self._options)
                    self._current = (registry, authn)
        return authn

    def authenticate(self, token: str) -> Grant | None:
        return self.current().authenticate(token)

    def grant(self, principal: str) -> Grant:
        return self.current().grant(principal)


def authenticator_for(settings: Settings, registry: Callable[[], Registry]) -> LiveAuthenticator:
    """Tokens of the registry `registry()` returns now, and the admin token under KP_HOME."""
    return LiveAuthenticator(registry, admin_token=read_admin_token(settings))
