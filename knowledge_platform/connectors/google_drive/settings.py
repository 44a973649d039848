"""Google Drive's registry settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field, model_validator

from knowledge_platform.connectors.base import SourceSettings
from knowledge_platform.connectors.claims import check_disjoint
from knowledge_platform.connectors.http import HttpSettings
from knowledge_platform.convert.settings import FileSettings
from knowledge_platform.models import Trust
from knowledge_platform.secrets.fields import EnvName, VaultRef


class GoogleDriveSettings(HttpSettings):
    """Folders (My Drive or inside a shared drive) and whole shared drives to index; the
    transport knobs (timeout_seconds, max_retries, max_wait_seconds, backoff_seconds) are
    HttpSettings', with Drive's slower exports in mind."""

    folder_ids: list[str] = Field(default_factory=list)
    #: Whole shared drives (a shared drive's id is the parent of its top-level items).
    shared_drive_ids: list[str] = Field(default_factory=list)
    drive_endpoint: str = "https://www.googleapis.com/drive/v3/"
    #: Not called today: Docs are exported to markdown through Drive's files.export.
    docs_endpoint: str = "https://docs.googleapis.com/"
    sheets_endpoint: str = "https://sheets.googleapis.com/"
    slides_endpoint: str = "https://slides.googleapis.com/"
    token_uri: str = "https://oauth2.googleapis.com/token"
    auth: Literal["oauth", "service_account"] = "oauth"
    client_id_env: EnvName | None = "GOOGLE_CLIENT_ID"
    client_id_ref: VaultRef | None = None
    client_secret_env: EnvName | None = "GOOGLE_CLIENT_SECRET"
    client_secret_ref: VaultRef | None = None
    refresh_token_env: EnvName | None = "GOOGLE_REFRESH_TOKEN"
    refresh_token_ref: VaultRef | None = None
    #: The service account's JSON key: a file path in the variable, or the JSON itself (as a
    #: 1Password reference holds it).
    service_account_key_env: EnvName | None = "GOOGLE_SERVICE_ACCOUNT_KEY_FILE"
    service_account_key_ref: VaultRef | None = None
    #: The webhook secret (`kp hooks register`; README "Webhooks"): ClickUp's signing
    #: secret, the Drive channel token, the git host's push-hook secret. None: no webhooks.
    webhook_secret_env: EnvName | None = None
    webhook_secret_ref: VaultRef | None = None
    #: Service accounts only: the Workspace user to impersonate (domain-wide delegation).
    delegated_user: str | None = None
    max_sheet_rows: int = Field(100, ge=1, le=10_000)
    page_size: int = Field(1000, ge=1, le=1000)
    max_retries: int = Field(5, ge=0, le=10)
    backoff_seconds: float = Field(1.0, ge=0, le=60)
    timeout_seconds: float = Field(60.0, gt=0)
    trust: Trust = "internal"
    #: Uploads (PDF, DOCX, PPTX, XLSX) converted and indexed: which types, the size cap
    #: (default 25 MB, checked against the listed size before any download), time, memory.
    files: FileSettings = Field(default_factory=FileSettings)

    @model_validator(mode="after")
    def _has_roots(self) -> GoogleDriveSettings:
        if not (self.folder_ids or self.shared_drive_ids):
            raise ValueError("google_drive needs folder_ids or shared_drive_ids")
        return self

    def containers(self) -> list[tuple[str, str]]:
        return [
            *(("folder_ids", f) for f in self.folder_ids),
            *(("shared_drive_ids", d) for d in self.shared_drive_ids),
        ]

    @classmethod
    def check_scopes(cls, by_scope: Mapping[str, SourceSettings]) -> None:
        check_disjoint("google_drive", {s: cfg.containers() for s, cfg in by_scope.items()})
