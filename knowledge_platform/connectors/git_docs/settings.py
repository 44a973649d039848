"""Git docs' registry settings."""

from __future__ import annotations

import re

from pydantic import Field

from knowledge_platform.connectors.base import SourceSettings
from knowledge_platform.convert.settings import FileSettings
from knowledge_platform.models import Kind, Trust
from knowledge_platform.secrets.fields import EnvName, VaultRef

SHA = re.compile(r"^[0-9a-fA-F]{4,64}$")  # SHA-1 or SHA-256, maybe abbreviated


class GitDocsSettings(SourceSettings):
    #: A local path (read in place) or a clone URL (bare clone under cache_dir).
    repo: str
    branch: str = Field("HEAD", pattern=r"^[^-\s][^\s]*$")
    #: The webhook secret (`kp hooks register`; README "Webhooks"): ClickUp's signing
    #: secret, the Drive channel token, the git host's push-hook secret. None: no webhooks.
    webhook_secret_env: EnvName | None = None
    webhook_secret_ref: VaultRef | None = None
    globs: list[str] = Field(default_factory=lambda: ["**/*.md"])
    exclude_globs: list[str] = Field(default_factory=list)
    #: Build from exactly this commit (`kp index --at <sha>`) instead of the branch tip.
    at_sha: str | None = Field(None, pattern=SHA.pattern)
    cache_dir: str | None = None
    trust: Trust = "internal"
    #: Path prefix -> kind; matches at the start of the path or after any `/`. First wins.
    kind_rules: dict[str, Kind] = Field(
        default_factory=lambda: {
            "decisions/": "decision",
            "adr/": "decision",
            "runbooks/": "runbook",
        }
    )
    default_kind: Kind = "doc"
    #: e.g. "https://github.com/acme/handbook/blob/{sha}/{path}" ({sha}, {head}, {path}).
    url_template: str | None = None
    max_file_bytes: int = Field(2_000_000, gt=0)
    #: PDF/DOCX/PPTX/XLSX files the globs select are converted (types, size cap, limits).
    files: FileSettings = Field(default_factory=FileSettings)
    timeout_seconds: float = Field(300.0, gt=0)
