"""ClickUp's registry settings."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from knowledge_platform.connectors.http import HttpSettings
from knowledge_platform.secrets.fields import EnvName, VaultRef


class ClickUpSettings(HttpSettings):
    base_url: str = "https://api.clickup.com/api/v2"
    docs_base_url: str = "https://api.clickup.com/api/v3"
    app_url: str = "https://app.clickup.com"
    token_env: EnvName | None = "CLICKUP_TOKEN"
    token_ref: VaultRef | None = None
    #: personal tokens (pk_...) are sent raw, OAuth tokens as `Bearer`; auto decides by prefix.
    token_kind: Literal["auto", "personal", "oauth"] = "auto"
    #: The workspace id: needed for Docs, and for "every space" when nothing else is selected.
    team_id: str | None = None
    space_ids: list[str] = Field(default_factory=list)
    folder_ids: list[str] = Field(default_factory=list)
    list_ids: list[str] = Field(default_factory=list)
    doc_ids: list[str] = Field(default_factory=list)
    overlap_seconds: int = Field(default=120, ge=0)
    decision_tags: list[str] = Field(default_factory=lambda: ["decision"])
    #: Newest comments kept per task (0: no comment requests at all).
    max_comments: int = Field(default=50, ge=0)

    @model_validator(mode="after")
    def _docs_need_workspace(self) -> ClickUpSettings:
        if self.doc_ids and not self.team_id:
            raise ValueError("doc_ids need team_id (the workspace id the docs live in)")
        return self
