"""Git docs' registry settings."""

from __future__ import annotations

import re
from collections.abc import Mapping

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

    def containers(self) -> list[tuple[str, str]]:
        """Each glob as `<repo>\n<glob>`: the registry hands every scope the others' globs
        (`foreign_globs`), and a file goes to the scope whose glob names it most narrowly."""
        return [("globs", f"{self.repo.rstrip('/')}\n{g}") for g in self.globs]

    def foreign_globs(self) -> list[str]:
        """Other scopes' globs on this same repository."""
        prefix = f"{self.repo.rstrip('/')}\n"
        return sorted(c[len(prefix) :] for c in self.elsewhere if c.startswith(prefix))

    @classmethod
    def check_scopes(cls, by_scope: Mapping[str, SourceSettings]) -> None:
        """A repository several scopes read (one credential reads all of it) is read by each
        through globs it names: the default `**/*.md` would put every scope's files in each."""
        mine = cls.mine(by_scope)
        readers: dict[str, list[str]] = {}
        for scope, cfg in mine.items():
            readers.setdefault(cfg.repo.rstrip("/"), []).append(scope)
        for repo, scopes in readers.items():
            implicit = [s for s in scopes if "globs" not in mine[s].model_fields_set]
            if len(scopes) > 1 and implicit:
                raise ValueError(
                    f"{repo} is read by {', '.join(scopes)}; {implicit[0]} must name its globs "
                    "(e.g. globs: ['handbook/**/*.md']): the default **/*.md would read every "
                    "scope's files"
                )
