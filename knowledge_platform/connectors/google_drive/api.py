"""Google API clients built offline, credentials from the registry's secrets, requests through
the platform's HttpClient (transport.py) — its retry policy is the only one."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import google.auth.exceptions
import httplib2
import httpx
from google.oauth2 import credentials as oauth2_credentials
from google.oauth2 import service_account
from google_auth_httplib2 import AuthorizedHttp
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError

from knowledge_platform.connectors.google_drive.transport import HttplibBridge, rate_limited
from knowledge_platform.connectors.http import CredentialRefused, HttpClient
from knowledge_platform.errors import ConfigError, SourceError

if TYPE_CHECKING:
    from google.auth.credentials import Credentials
    from googleapiclient.http import HttpRequest

    from knowledge_platform.connectors.google_drive.settings import GoogleDriveSettings

SCOPES = ["https://www.googleapis.com/auth/drive.readonly"]


class GoogleApiError(SourceError):
    """A Google API refused one request (a 4xx that is no rate limit): 400, 401, 403, 404."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(f"Google API error {status} {reason}: {message}")
        self.status, self.reason, self.message = status, reason, message


def credentials_from(settings: GoogleDriveSettings) -> Credentials:
    """OAuth user credentials (refresh-token exchange at token_uri) or a service account key."""
    def secret(stem: str, what: str) -> str:
        return settings.resolve_secret(stem, owner="google_drive", what=what)

    if settings.auth == "oauth":
        return oauth2_credentials.Credentials(  # type: ignore[no-untyped-call]
            token=None,
            refresh_token=secret("refresh_token", "Google OAuth refresh token"),
            client_id=secret("client_id", "Google OAuth client id"),
            client_secret=secret("client_secret", "Google OAuth client secret"),
            token_uri=settings.token_uri,
        )
    key = secret("service_account_key", "service account key (file path or JSON)")
    source = settings.secret("service_account_key")
    is_json = key.lstrip().startswith("{")
    if not is_json and source.uses_vault():  # a vault holds the key itself, never a path
        raise ConfigError(f"cannot load the service account key from {source}: not the JSON "
                          "key file's content")
    try:
        if is_json:
            creds = service_account.Credentials.from_service_account_info(
                json.loads(key), scopes=SCOPES, subject=settings.delegated_user)
        else:
            creds = service_account.Credentials.from_service_account_file(
                key, scopes=SCOPES, subject=settings.delegated_user)
    except (OSError, ValueError) as exc:  # named by where it came from: the value is secret
        where = f"JSON in {source}" if is_json else f"file named in {source}"
        detail = exc.strerror if isinstance(exc, OSError) else type(exc).__name__
        raise ConfigError(f"cannot load the service account key {where}: {detail}") from None
    return creds.with_token_uri(settings.token_uri)


def _error_detail(exc: HttpError) -> tuple[str, str]:
    """(reason, message) from Google's {"error": {...}} body, tolerating other bodies."""
    try:
        error = json.loads(exc.content.decode("utf-8", "replace"))["error"]
        errors = error.get("errors") or [{}]
        return str(errors[0].get("reason") or error.get("status", "")), str(error.get("message"))
    except (ValueError, KeyError, TypeError, AttributeError):
        return "", str(exc.reason or "")


@functools.lru_cache(maxsize=32)
def _resource(api: str, version: str, endpoint: str, path: str) -> Any:
    """A service resource (e.g. drive v3 `files`), built offline from the discovery document
    shipped with the library and cached per process: building one renders docstrings for every
    method (Sheets' `spreadsheets` takes ~0.7 s). Requests get the authorized HTTP client at
    execute time, so one resource serves any credentials."""
    parent, _, name = path.rpartition(".")
    if path:  # children come from their (cached) parent
        return getattr(_resource(api, version, endpoint, parent), name)()
    return build(
        api,
        version,
        http=httplib2.Http(),  # placeholder, never used: call() passes its own
        static_discovery=True,
        cache_discovery=False,
        client_options={"api_endpoint": endpoint},
    )


class GoogleApi:
    """Drive v3, Sheets v4 and Slides v1 resources sharing one authorized HTTP client, which
    sends through HttpClient (retries, Retry-After, waiting caps, the request count)."""

    def __init__(
        self,
        settings: GoogleDriveSettings,
        credentials: Credentials,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.client = HttpClient.from_settings(
            "google_drive", settings, slow_down=rate_limited, sleep=sleep, clock=clock,
            transport=transport,
        )
        self.bridge = HttplibBridge(self.client)
        self.http = AuthorizedHttp(credentials, http=self.bridge)
        self.settings = settings

    @property
    def requests(self) -> int:
        return self.client.requests

    def close(self) -> None:
        self.client.close()

    @property
    def files(self) -> Any:
        return _resource("drive", "v3", self.settings.drive_endpoint, "files")

    @property
    def changes(self) -> Any:
        return _resource("drive", "v3", self.settings.drive_endpoint, "changes")

    @property
    def channels(self) -> Any:
        return _resource("drive", "v3", self.settings.drive_endpoint, "channels")

    @property
    def spreadsheets(self) -> Any:
        return _resource("sheets", "v4", self.settings.sheets_endpoint, "spreadsheets")

    @property
    def values(self) -> Any:
        return _resource("sheets", "v4", self.settings.sheets_endpoint, "spreadsheets.values")

    @property
    def presentations(self) -> Any:
        return _resource("slides", "v1", self.settings.slides_endpoint, "presentations")

    def download(self, file_id: str, max_bytes: int) -> bytes:
        """An uploaded file's bytes (`files.get` with `alt=media`, shared drives too); past
        `max_bytes` FileTooLargeError, having read at most that much."""
        self.bridge.max_bytes = max_bytes
        try:
            data = self.call(self.files.get_media(fileId=file_id, supportsAllDrives=True))
        finally:
            self.bridge.max_bytes = None
        return data if isinstance(data, bytes) else bytes(data)

    def call(self, request: HttpRequest) -> Any:
        """Execute once (HttpClient has already retried 429s, Drive's 403 rate limits, 5xx and
        dropped connections). Raises GoogleApiError when Google refuses the request, and
        SourceError when the retries ran out or the credentials were refused."""
        try:
            return request.execute(http=self.http)
        except HttpError as exc:
            reason, message = _error_detail(exc)
            if exc.resp.status == 401:  # still refused after google-auth's own refresh
                raise CredentialRefused(f"google_drive: Google refused the credentials (401 "
                                        f"{reason}: {message}); check the google_drive auth "
                                        "settings") from None
            raise GoogleApiError(exc.resp.status, reason, message) from None
        except google.auth.exceptions.RefreshError as exc:
            raise CredentialRefused(
                f"google_drive: Google refused the credentials ({exc}); check the google_drive "
                "auth settings and token_uri"
            ) from None
