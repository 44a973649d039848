"""The registry: one YAML file naming scopes, their sources, the embedder, the store and who
may read what. Validated with pydantic; a bad file fails with the field and the reason."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from knowledge_platform.config.hook_settings import ServiceConfig
from knowledge_platform.connectors.base import SourceSettings
from knowledge_platform.connectors.catalog import connector_class, spec
from knowledge_platform.connectors.spec import poll_cron
from knowledge_platform.errors import ConfigError, StoreError
from knowledge_platform.secrets.fields import EnvName, SecretFields, VaultRef
from knowledge_platform.secrets.refs import describe_literal, pasted_message
from knowledge_platform.store.base import collection_name

INTERNAL = "internal"
_PATH_KEYS = ("path", "repo", "cache_dir")
#: Values that are addresses, not paths: `scheme://...` and scp-like `user@host:path`.
_REMOTE = re.compile(r"^([a-z][a-z0-9+.-]*://|[\w.-]+@[\w.-]+:)")
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EmbeddingConfig(_Strict, SecretFields):
    provider: Literal["local", "openai", "hash"] = "local"
    #: local: all-MiniLM-L6-v2-int8 (default, dynamic int8) or all-MiniLM-L6-v2 (fp32);
    #: openai: text-embedding-3-small (default) or another embedding model.
    model: str | None = None
    #: openai: the API key's environment variable, or its 1Password reference.
    api_key_env: EnvName | None = "OPENAI_API_KEY"
    api_key_ref: VaultRef | None = None
    base_url: str | None = None
    #: openai: per-request timeout, retries (the openai SDK's: 429/5xx/timeouts, honouring
    #: Retry-After) and texts per request.
    timeout_seconds: float = Field(default=60.0, gt=0, le=600)
    max_retries: int = Field(default=5, ge=0, le=20)
    batch_size: int = Field(default=100, ge=1, le=2048)


class StoreConfig(_Strict, SecretFields):
    engine: Literal["edge", "qdrant"] = "edge"
    #: qdrant: the server URL and API key, each from an environment variable or 1Password.
    url_env: EnvName | None = "QDRANT_URL"
    url_ref: VaultRef | None = None
    api_key_env: EnvName | None = "QDRANT_API_KEY"
    api_key_ref: VaultRef | None = None


class AnswerConfig(_Strict, SecretFields):
    #: The OpenAI key for knowledge_ask synthesis (none set: extractive answers).
    api_key_env: EnvName | None = "OPENAI_API_KEY"
    api_key_ref: VaultRef | None = None
    base_url: str | None = None
    model: str = "gpt-4o-mini"
    #: chat model: per-request timeout and retries (the openai SDK's, honouring Retry-After).
    timeout_seconds: float = Field(default=60.0, gt=0, le=600)
    max_retries: int = Field(default=2, ge=0, le=10)
    #: Extractive answers: the lowest sentence score that counts as an answer (default: the
    #: threshold calibrated for the local model, answers/relevance.py MIN_SCORE).
    min_score: float | None = Field(default=None, ge=0, le=1)


class GoldenQuestion(_Strict):
    """A retrieval smoke test: `question` must find `expect_title` in the top 5 of the scope;
    evaluated by the check of `source`'s collection."""

    question: str
    expect_title: str
    source: str = "memory_files"


class ScopeConfig(_Strict):
    name: str = ""
    director: str | None = None
    sources: dict[str, dict[str, Any]] = Field(default_factory=dict)
    golden_questions: list[GoldenQuestion] = Field(default_factory=list)


class Principal(_Strict, SecretFields):
    name: str
    #: sha256 hex of the bearer token; or the env var holding the token itself; or its
    #: 1Password reference.
    token_sha256: str | None = None
    token_env: EnvName | None = None
    token_ref: VaultRef | None = None
    admin: bool = False
    scopes: list[str] = Field(default_factory=list)
    role: Literal["internal", "restricted"] = "internal"

    @field_validator("token_sha256")
    @classmethod
    def _digest(cls, value: str | None) -> str | None:
        if value is not None and not _SHA256.fullmatch(value):
            raise ValueError(
                "token_sha256 must be the sha256 hex digest of the token (64 hex "
                "digits); the token itself goes in token_env or token_ref"
            )
        return value

    @property
    def has_token(self) -> bool:
        return bool(self.token_sha256 or self.token_env or self.token_ref)


class Registry(_Strict):
    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    answer: AnswerConfig = Field(default_factory=AnswerConfig)
    #: The MCP service as sources see it: public_url for webhooks, the hooks' limits.
    service: ServiceConfig = Field(default_factory=ServiceConfig)
    deletion_guard: float = Field(default=0.3, gt=0, le=1)
    #: Where "today", "last week" and "in March" are decided (questions' time expressions,
    #: recent memory); an IANA name.
    timezone: str = "America/New_York"
    #: Minutes between ordinary runs per source, overriding the source's own default
    #: (SourceSpec.poll_minutes); 0 turns its incremental schedule off.
    poll_minutes: dict[str, int] = Field(default_factory=dict)
    internal: ScopeConfig = Field(default_factory=ScopeConfig)
    clients: dict[str, ScopeConfig] = Field(default_factory=dict)
    principals: list[Principal] = Field(default_factory=list)
    #: Where the file was read from; relative paths in source settings resolve against it.
    base_dir: Path = Field(default=Path("."), exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _legacy_keys(cls, data: Any) -> Any:
        """`clickup_interval_minutes: N` (older registries) is `poll_minutes: {clickup: N}`."""
        if isinstance(data, dict) and "clickup_interval_minutes" in data:
            data = dict(data)
            minutes = data.pop("clickup_interval_minutes")
            data["poll_minutes"] = {"clickup": minutes, **(data.get("poll_minutes") or {})}
        return data

    @field_validator("timezone")
    @classmethod
    def _timezone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(
                f"unknown timezone {value!r}; use an IANA name such as America/New_York"
            ) from None
        return value

    @field_validator("poll_minutes")
    @classmethod
    def _poll_minutes(cls, value: dict[str, int]) -> dict[str, int]:
        for source, minutes in value.items():
            spec(source)  # an unknown source name is an error
            if minutes == 0:
                continue
            try:
                poll_cron(minutes)
            except ValueError as exc:
                raise ValueError(f"poll_minutes.{source}: {exc}") from None
            if minutes < 5:
                raise ValueError(f"poll_minutes.{source}: at least 5 minutes")
        return value

    @model_validator(mode="after")
    def _principal_tokens(self) -> Registry:
        """A principal signs in with a static token, or, when service.oauth is set, may sign
        in through the authorization server alone."""
        for p in self.principals:
            if not p.has_token and self.service.oauth is None:
                raise ValueError(
                    f"principals.{p.name}: give token_sha256, token_env or "
                    "token_ref (or configure service.oauth to sign in with it)"
                )
        return self

    @field_validator("clients")
    @classmethod
    def _client_ids(cls, clients: dict[str, ScopeConfig]) -> dict[str, ScopeConfig]:
        for cid, cfg in clients.items():
            if cid == INTERNAL:
                raise ValueError("'internal' is a scope of its own, not a client id")
            try:
                collection_name(cid)
            except StoreError as exc:
                raise ValueError(str(exc)) from None
            if not cfg.director:
                raise ValueError(f"client {cid!r} needs an account director")
        return clients

    @property
    def scopes(self) -> list[str]:
        return [INTERNAL, *self.clients]

    def scope(self, scope: str) -> ScopeConfig:
        if scope == INTERNAL:
            return self.internal
        try:
            return self.clients[scope]
        except KeyError:
            raise ConfigError(f"unknown scope {scope!r}; known: {', '.join(self.scopes)}") from None

    def sources_for(self, scope: str) -> list[str]:
        return list(self.scope(scope).sources)

    def scopes_for(self, source: str) -> list[str]:
        """The scopes whose entry configures `source`, in registry order."""
        return [scope for scope in self.scopes if source in self.scope(scope).sources]

    @property
    def sources(self) -> list[str]:
        """Every source configured for at least one scope, in catalog order of appearance."""
        seen: dict[str, None] = {}
        for scope in self.scopes:
            seen.update(dict.fromkeys(self.scope(scope).sources))
        return list(seen)

    def source_settings(self, source: str, scope: str) -> SourceSettings:
        """The scope's settings of `source`, knowing the containers other scopes name for it
        (`SourceSettings.elsewhere`: never read by this scope)."""
        settings = self._validated(source, scope)
        if not settings.containers():
            return settings
        others = [s for s in self.scopes if s != scope and source in self.scope(s).sources]
        return settings.with_elsewhere(
            frozenset(
                cid for other in others for _, cid in self._validated(source, other).containers()
            )
        )

    def _validated(self, source: str, scope: str) -> SourceSettings:
        raw = self.scope(scope).sources.get(source)
        if raw is None:
            raise ConfigError(f"source {source!r} is not configured for scope {scope!r}")
        where = f"{_scope_path(scope)}.sources.{source}"
        _refuse_pasted_secrets(raw or {}, where)
        resolved = {k: self._resolve_path(k, v) for k, v in (raw or {}).items()}
        cls = connector_class(source)
        try:
            # The scope and the registry's client ids are validation context: a setting may
            # depend on them (a Supabase table says which of its rows are the scope's).
            return cls.settings_model.model_validate(
                resolved, context={"scope": scope, "clients": tuple(self.clients)}
            )
        except ValidationError as exc:
            raise ConfigError(_describe(exc, where)) from None

    def _resolve_path(self, key: str, value: Any) -> Any:
        if key in _PATH_KEYS and isinstance(value, str) and not _REMOTE.match(value):
            path = Path(os.path.expandvars(value)).expanduser()
            return str(path if path.is_absolute() else (self.base_dir / path).resolve())
        return value

    def poll_minutes_for(self, source: str) -> int | None:
        """Minutes between ordinary runs of `source` (None: no incremental schedule)."""
        minutes = self.poll_minutes.get(source, spec(source).poll_minutes)
        return minutes or None

    def scopes_of_director(self, director: str) -> list[str]:
        return [INTERNAL, *(cid for cid, c in self.clients.items() if c.director == director)]


def _scope_path(scope: str) -> str:
    return INTERNAL if scope == INTERNAL else f"clients.{scope}"


def _refuse_pasted_secrets(settings: dict[str, Any], where: str) -> None:
    """A credential pasted into a source's `*_env` / `*_ref` key is refused before the
    connector's own model sees it (whichever types that model gives those keys)."""
    for key, value in settings.items():
        what = describe_literal(value) if isinstance(value, str) else None
        if what and key.endswith(("_env", "_ref")):
            raise ConfigError(f"{where}.{key}: {pasted_message(key, what)}")


def _describe(exc: ValidationError, prefix: str = "") -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    where = ".".join(p for p in (prefix, loc) if p)
    more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
    return f"{where}: {err['msg']}{more}"


def parse_registry(data: Any, base_dir: Path, origin: str = "registry") -> Registry:
    if not isinstance(data, dict):
        raise ConfigError(f"{origin}: expected a mapping at the top level")
    try:
        registry = Registry.model_validate({**data, "base_dir": base_dir})
    except ValidationError as exc:
        raise ConfigError(f"{origin}: {_describe(exc)}") from None
    by_source: dict[str, dict[str, SourceSettings]] = {}
    for scope in registry.scopes:
        for source in registry.sources_for(scope):
            try:
                by_source.setdefault(source, {})[scope] = registry.source_settings(source, scope)
            except ConfigError as exc:
                raise ConfigError(f"{origin}: {exc}") from None
    for source, by_scope in by_source.items():
        try:
            connector_class(source).settings_model.check_scopes(by_scope)
        except ValueError as exc:
            raise ConfigError(f"{origin}: {source}: {exc}") from None
    return registry


def load_registry(path: Path) -> Registry:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read registry {path}: {exc.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc.__class__.__name__})") from None
    return parse_registry(data, path.resolve().parent, origin=str(path))


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
