"""Resolving a secret named in settings: an environment variable (`*_env`), whose value may
itself be an `op://` reference (the `op run` convention), or a 1Password reference (`*_ref`).
The value lives in memory only; errors are one line naming where the secret was looked for."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from knowledge_platform.errors import SecretError
from knowledge_platform.redact import remember
from knowledge_platform.secrets.refs import is_reference
from knowledge_platform.secrets.vault import Vault, default_vault


@dataclass(frozen=True)
class SecretSource:
    """Where one secret lives. `ref` wins over `env`; `field` is the settings stem (`token`
    for `token_env`/`token_ref`), used in messages; None when the settings have no `_ref`."""

    env: str | None = None
    ref: str | None = None
    field: str | None = None

    def __str__(self) -> str:
        """Where to put the secret, for messages: the reference, or `$VARIABLE`."""
        return self.ref or f"${self.env}"

    def uses_vault(self, env: Mapping[str, str] | None = None) -> bool:
        if self.ref:
            return True
        value = (os.environ if env is None else env).get(self.env or "", "")
        return is_reference(value)


def resolve_optional(
    source: SecretSource,
    *,
    owner: str,
    what: str,
    env: Mapping[str, str] | None = None,
    vault: Vault | None = None,
) -> str | None:
    """The secret, or None when it is named by an environment variable that is not set.
    A reference that cannot be read raises (SecretError subclasses), prefixed by `owner`.
    The value is remembered as a secret: no core error message will show it."""
    if source.ref:
        return remember(_from_vault(source.ref, owner, what, vault))
    if not source.env:
        return None
    value = (os.environ if env is None else env).get(source.env, "").strip()
    if not value:
        return None
    if is_reference(value):
        return remember(_from_vault(value, owner, f"{what} (reference in ${source.env})", vault))
    return remember(value)


def resolve_secret(
    source: SecretSource,
    *,
    owner: str,
    what: str,
    env: Mapping[str, str] | None = None,
    vault: Vault | None = None,
) -> str:
    """The secret; SecretError naming the variable (or reference) when there is none."""
    value = resolve_optional(source, owner=owner, what=what, env=env, vault=vault)
    if value is not None:
        return value
    if not source.env:
        raise SecretError(
            f"{owner}: no {what} configured; name an environment variable or "
            "a 1Password reference for it"
        )
    ref_hint = f", or name a 1Password reference in {source.field}_ref" if source.field else ""
    raise SecretError(
        f"{owner}: environment variable {source.env} is not set; put the {what} "
        f"there (or an op:// reference to it){ref_hint}"
    )


def _from_vault(ref: str, owner: str, what: str, vault: Vault | None) -> str:
    try:
        return (vault or default_vault()).read(ref.strip())
    except SecretError as exc:
        raise type(exc)(f"{owner}: {what}: {exc}") from None
