"""Secrets in settings models, declared the same way everywhere.

A secret `X` is a pair of optional fields: `X_env: EnvName | None` (an environment variable
that holds the value, or an `op://` reference to it) and `X_ref: VaultRef | None` (a
1Password reference). A model that has such pairs subclasses `SecretFields`, which refuses
both at once when both were written, and resolves one with `resolve_secret("X", ...)`:

    class ClickUpSettings(HttpSettings, SecretFields):
        token_env: EnvName | None = "CLICKUP_TOKEN"
        token_ref: VaultRef | None = None

    token = settings.resolve_secret("token", owner="clickup", what="ClickUp API token")

Both field types refuse a pasted credential (a ClickUp `pk_` token, a JWT, an `sk-` key,
`sb_secret_`, ...) with a message saying where it belongs, and never repeat the value."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ValidationInfo, model_validator

from knowledge_platform.secrets.refs import check_env_field, check_ref_field
from knowledge_platform.secrets.resolve import SecretSource, resolve_optional, resolve_secret
from knowledge_platform.secrets.vault import Vault


def _env_name(value: str, info: ValidationInfo) -> str:
    return check_env_field(info.field_name or "secret_env", value)


def _vault_ref(value: str, info: ValidationInfo) -> str:
    return check_ref_field(info.field_name or "secret_ref", value)


#: The name of an environment variable holding a secret (or an op:// reference to it).
EnvName = Annotated[str, AfterValidator(_env_name)]
#: A 1Password reference, `op://<vault>/<item>/[<section>/]<field>`.
VaultRef = Annotated[str, AfterValidator(_vault_ref)]


def _is(annotation: Any, kind: Any) -> bool:
    return annotation == kind or kind in typing.get_args(annotation)


def secret_names(model: type[BaseModel]) -> list[str]:
    """The stems of a model's secrets: every field typed VaultRef named `<stem>_ref`."""
    return [
        name.removesuffix("_ref")
        for name, field in model.model_fields.items()
        if name.endswith("_ref") and _is(field.annotation, VaultRef)
    ]


class SecretFields(BaseModel):
    """Mixin for settings models that declare `<stem>_env` / `<stem>_ref` pairs."""

    @model_validator(mode="after")
    def _env_or_ref(self) -> Any:
        for stem in secret_names(type(self)):
            env_given = f"{stem}_env" in self.model_fields_set and getattr(
                self, f"{stem}_env", None
            )
            if env_given and getattr(self, f"{stem}_ref"):
                raise ValueError(f"give {stem}_env or {stem}_ref, not both")
        return self

    def secret(self, stem: str) -> SecretSource:
        """Where secret `stem` lives: the reference if one is given, else the variable."""
        ref = getattr(self, f"{stem}_ref", None)
        env = None if ref else getattr(self, f"{stem}_env", None)
        field = stem if f"{stem}_ref" in type(self).model_fields else None
        return SecretSource(env=env, ref=ref, field=field)

    def resolve_secret(
        self,
        stem: str,
        *,
        owner: str,
        what: str,
        env: Mapping[str, str] | None = None,
        vault: Vault | None = None,
    ) -> str:
        """The value of secret `stem` (raises a one-line SecretError when there is none)."""
        return resolve_secret(self.secret(stem), owner=owner, what=what, env=env, vault=vault)

    def resolve_optional_secret(
        self,
        stem: str,
        *,
        owner: str,
        what: str,
        env: Mapping[str, str] | None = None,
        vault: Vault | None = None,
    ) -> str | None:
        """The value, or None when its environment variable is not set."""
        return resolve_optional(self.secret(stem), owner=owner, what=what, env=env, vault=vault)
