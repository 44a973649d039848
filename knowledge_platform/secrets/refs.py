"""Vault references and pasted secrets: what an `op://` reference looks like, and which
values are secrets themselves (so the registry can refuse them where a name belongs).

A 1Password secret reference is `op://<vault>/<item>/[<section>/]<field>[?attribute=...]`;
each part is a name or an ID. Names may hold spaces (`op://Compass/ClickUp - automations/token`).
1Password's own parser allows only letters, digits, spaces, `-`, `_` and `.` in names; a name
with another character (`@`) is accepted here and passed on unchanged, and the vault's answer
says to use the ID instead (see vault.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge_platform.errors import SecretReferenceError

OP_SCHEME = "op://"
REFERENCE_FORM = "op://<vault>/<item>/[<section>/]<field>"
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SHOWN = 120
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

#: Shapes of well-known credentials: (pattern at the start of the value, what it is).
_LITERALS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), what)
    for pattern, what in (
        (r"pk_\d+_[A-Za-z0-9]{8,}", "a ClickUp personal API token"),
        (r"eyJ[\w-]{4,}\.[\w-]{4,}\.", "a JWT (a Supabase anon/service_role key or a token)"),
        (r"sk-[\w-]{12,}", "an OpenAI-style secret key"),
        (r"sb_secret_\w{4,}", "a Supabase secret key"),
        (r"sbp_[0-9a-f]{16,}", "a Supabase access token"),
        (r"ops_[\w-]{16,}", "a 1Password service account token"),
        (r"(ghp|gho|ghs|ghu|github_pat)_\w{16,}", "a GitHub token"),
        (r"GOCSPX-[\w-]{8,}", "a Google OAuth client secret"),
        (r"ya29\.[\w.-]{8,}", "a Google access token"),
        (r"1//[\w-]{16,}", "a Google refresh token"),
        (r"-----BEGIN [A-Z ]*PRIVATE KEY-----", "a private key"),
        (r"\{\s*\"type\"\s*:\s*\"service_account\"", "a Google service account key file"),
    )
)


@dataclass(frozen=True)
class Reference:
    vault: str
    item: str
    section: str | None
    field: str
    attribute: str | None = None


def shown_reference(ref: str) -> str:
    """A reference as it may appear in a message: quoted, control characters escaped, bounded.
    (A reference is an address, not a secret.)"""
    text = ascii(ref)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 4] + "...'"


def is_reference(value: str) -> bool:
    return value.strip().startswith(OP_SCHEME)


def parse_reference(ref: str) -> Reference:
    """The parts of `op://vault/item/[section/]field[?attribute=x]`; SecretReferenceError
    naming what is wrong otherwise."""
    if not ref.startswith(OP_SCHEME):
        raise SecretReferenceError(
            f"a 1Password reference starts with {OP_SCHEME} ({REFERENCE_FORM})"
        )
    if _CONTROL.search(ref):
        raise SecretReferenceError(f"reference {shown_reference(ref)} contains control characters")
    path, _, query = ref[len(OP_SCHEME) :].partition("?")
    parts = path.split("/")
    if len(parts) not in (3, 4) or not all(p.strip() for p in parts):
        raise SecretReferenceError(
            f"reference {shown_reference(ref)} needs a vault, an item and a field: {REFERENCE_FORM}"
        )
    attribute = None
    if query:
        key, _, attribute = query.partition("=")
        if key != "attribute" or not attribute:
            raise SecretReferenceError(
                f"reference {shown_reference(ref)}: the only query "
                "1Password reads here is ?attribute=<name>"
            )
    section = parts[2] if len(parts) == 4 else None
    return Reference(parts[0], parts[1], section, parts[-1], attribute)


def describe_literal(value: str) -> str | None:
    """What kind of credential `value` is, if it has the shape of a well-known one."""
    text = value.strip()
    for pattern, what in _LITERALS:
        if pattern.match(text):
            return what
    return None


def pasted_message(field: str, what: str) -> str:
    """Where a credential (`what`) pasted into registry field `field` (`x_env`/`x_ref`)
    belongs instead."""
    stem = field.removesuffix("_env").removesuffix("_ref")
    return (
        f"{field} holds {what} itself; secrets never go in the registry: store it in "
        f'1Password and write {stem}_ref: "{REFERENCE_FORM}", or export it as an '
        f"environment variable and write its name in {stem}_env"
    )


def check_env_field(field: str, value: str) -> str:
    """`value` as the name of an environment variable in registry field `field` (`x_env`);
    ValueError with where the thing belongs if it is a secret, a reference or no name."""
    stem = field.removesuffix("_env")
    what = describe_literal(value)
    if what:
        raise ValueError(pasted_message(field, what))
    if is_reference(value):
        raise ValueError(
            f"{field} names an environment variable; write the 1Password "
            f"reference as {stem}_ref: {shown_reference(value.strip())}"
        )
    if not ENV_NAME.fullmatch(value):
        raise ValueError(
            f"{field} must name an environment variable (letters, digits and _, "
            "e.g. MY_API_TOKEN); a secret itself never goes in the registry"
        )
    return value


def check_ref_field(field: str, value: str) -> str:
    """`value` as a 1Password reference in registry field `field` (`x_ref`)."""
    what = describe_literal(value)
    if what:
        raise ValueError(pasted_message(field, what))
    value = value.strip()
    if not is_reference(value):
        raise ValueError(
            f"{field} must be a 1Password reference, {REFERENCE_FORM}; "
            f"a secret itself never goes in the registry"
        )
    try:
        parse_reference(value)
    except SecretReferenceError as exc:
        raise ValueError(str(exc)) from None
    return value
