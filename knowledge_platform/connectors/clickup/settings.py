"""ClickUp's registry settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field, model_validator

from knowledge_platform.connectors.base import SourceSettings
from knowledge_platform.connectors.claims import check_disjoint
from knowledge_platform.connectors.http import HttpSettings
from knowledge_platform.convert.settings import FileSettings
from knowledge_platform.secrets.fields import EnvName, VaultRef


class ClickUpSettings(HttpSettings):
    base_url: str = "https://api.clickup.com/api/v2"
    docs_base_url: str = "https://api.clickup.com/api/v3"
    app_url: str = "https://app.clickup.com"
    token_env: EnvName | None = "CLICKUP_TOKEN"
    token_ref: VaultRef | None = None
    #: The webhook secret (`kp hooks register`; README "Webhooks"): ClickUp's signing
    #: secret, the Drive channel token, the git host's push-hook secret. None: no webhooks.
    webhook_secret_env: EnvName | None = None
    webhook_secret_ref: VaultRef | None = None
    #: personal tokens (pk_...) are sent raw, OAuth tokens as `Bearer`; auto decides by prefix.
    token_kind: Literal["auto", "personal", "oauth"] = "auto"
    #: The workspace id (needed for Docs; else every workspace the token sees is asked).
    team_id: str | None = None
    #: What the scope reads: spaces (their folders, lists and docs), folders, lists, docs. At
    #: least one; there is no "every space" default (one token reads every client's spaces).
    space_ids: list[str] = Field(default_factory=list)
    folder_ids: list[str] = Field(default_factory=list)
    list_ids: list[str] = Field(default_factory=list)
    doc_ids: list[str] = Field(default_factory=list)
    decision_tags: list[str] = Field(default_factory=lambda: ["decision"])
    #: Newest comments kept per task, each with its replies (0: no comment requests at all).
    max_comments: int = Field(default=50, ge=0)
    #: A comment does not move a task's date_updated: the threads of tasks active within this
    #: many days of the newest activity in the scope are read again on every run ...
    comment_window_days: int = Field(default=7, ge=0)
    #: ... at most this many a run (least recently read first); the rest on the next runs.
    max_thread_rereads: int = Field(default=100, ge=0)
    #: Threads of the quieter tasks read in turn, this many a run (least recently read
    #: first): a comment on a quiet task is seen within ceil(quiet tasks / this) ordinary runs.
    quiet_thread_rereads: int = Field(default=25, ge=0)
    #: Tasks and docs gone from a listing looked up one by one per run (404, archived, moved
    #: out of the scope -> confirmed); the rest wait, counted against the deletion guard.
    max_verifications: int = Field(default=25, ge=0)
    #: Task attachments of the `files` types become documents of their own (one
    #: `GET /task/{id}` per task read: the task listing does not carry attachments).
    attachments: bool = True
    #: Which types, the size cap (default 25 MB, checked against the attachment's `size`
    #: before any download), time and memory per file.
    files: FileSettings = Field(default_factory=FileSettings)
    #: Hosts (and their subdomains) attachments are downloaded from, with the ClickUp token;
    #: the API's own host always is. A file linked from elsewhere (Google Drive...) is not.
    attachment_hosts: list[str] = Field(default_factory=lambda: ["clickup-attachments.com"])
    #: No longer used (every run lists whole lists, so there is no high-water mark to
    #: overlap); still accepted so older registries load.
    overlap_seconds: int | None = Field(default=None, ge=0, deprecated=True)

    @model_validator(mode="after")
    def _docs_need_workspace(self) -> ClickUpSettings:
        if self.doc_ids and not self.team_id:
            raise ValueError("doc_ids need team_id (the workspace id the docs live in)")
        return self

    @model_validator(mode="after")
    def _names_its_containers(self) -> ClickUpSettings:
        if not (self.space_ids or self.folder_ids or self.list_ids or self.doc_ids):
            raise ValueError(
                "name what this scope reads: space_ids, folder_ids, list_ids or doc_ids (e.g. "
                "space_ids: ['90100000001']); there is no 'every space' default, since one "
                "token reads every client's spaces"
            )
        return self

    def containers(self) -> list[tuple[str, str]]:
        """(registry key, id) of every container this scope names."""
        return [
            (key, cid)
            for key in ("space_ids", "folder_ids", "list_ids", "doc_ids")
            for cid in getattr(self, key)
        ]

    @classmethod
    def check_scopes(cls, by_scope: Mapping[str, SourceSettings]) -> None:
        check_disjoint("clickup", {s: cfg.containers() for s, cfg in by_scope.items()})
