"""Google's REST APIs (Drive v3, Sheets v4, Slides v1) called through the platform's HttpClient
— its retry policy is the only one — with google-auth's credentials from the registry's
secrets; the requests are rest.py's, google-auth's token exchange goes through the same
client (transport.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import google.auth.exceptions
import httpx
from google.oauth2 import credentials as oauth2_credentials
from google.oauth2 import service_account

from knowledge_platform.connectors.google_drive import rest
from knowledge_platform.connectors.google_drive.rest import ApiRequest, Resource
from knowledge_platform.connectors.google_drive.transport import (
    PASS_THROUGH,
    AuthTransport,
    error_detail,
    rate_limited,
)
from knowledge_platform.connectors.http import CredentialRefused, HttpClient
from knowledge_platform.errors import ConfigError, SourceError

if TYPE_CHECKING:
    from google.auth.credentials import Credentials

    from knowledge_platform.connectors.google_drive.settings import GoogleDriveSettings

SCOPES = ["https://www.googleapis.com/auth/drive.readonly"]
#: A 401 is answered by a token refresh and the request sent again, at most this often (as
#: google-auth's own authorized transports do).
MAX_REFRESHES = 2


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
        raise ConfigError(
            f"cannot load the service account key from {source}: not the JSON key file's content"
        )
    try:
        if is_json:
            creds = service_account.Credentials.from_service_account_info(
                json.loads(key), scopes=SCOPES, subject=settings.delegated_user
            )
        else:
            creds = service_account.Credentials.from_service_account_file(
                key, scopes=SCOPES, subject=settings.delegated_user
            )
    except (OSError, ValueError) as exc:  # named by where it came from: the value is secret
        where = f"JSON in {source}" if is_json else f"file named in {source}"
        detail = exc.strerror if isinstance(exc, OSError) else type(exc).__name__
        raise ConfigError(f"cannot load the service account key {where}: {detail}") from None
    return creds.with_token_uri(settings.token_uri)


class GoogleApi:
    """Drive v3, Sheets v4 and Slides v1 resources sharing one HttpClient (retries,
    Retry-After, waiting caps, the request count) and one set of credentials."""

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
            "google_drive",
            settings,
            slow_down=rate_limited,
            sleep=sleep,
            clock=clock,
            transport=transport,
        )
        self.credentials = credentials
        self.auth = AuthTransport(self.client)
        drive = settings.drive_endpoint
        self.files = Resource(drive, rest.FILES)
        self.changes = Resource(drive, rest.CHANGES)
        self.channels = Resource(drive, rest.CHANNELS)
        self.spreadsheets = Resource(settings.sheets_endpoint, rest.SPREADSHEETS)
        self.values = Resource(settings.sheets_endpoint, rest.VALUES)
        self.presentations = Resource(settings.slides_endpoint, rest.PRESENTATIONS)

    @property
    def requests(self) -> int:
        return self.client.requests

    def close(self) -> None:
        self.client.close()

    def download(self, file_id: str, max_bytes: int) -> bytes:
        """An uploaded file's bytes (`files.get` with `alt=media`, shared drives too); past
        `max_bytes` FileTooLargeError, having read at most that much."""
        data: bytes = self.call(
            self.files.get_media(fileId=file_id, supportsAllDrives=True), max_bytes=max_bytes
        )
        return data

    def call(self, request: ApiRequest, *, max_bytes: int | None = None) -> Any:
        """Send once (HttpClient has already retried 429s, Drive's 403 rate limits, 5xx and
        dropped connections): the answer's JSON, or its bytes for a media request. Raises
        GoogleApiError when Google refuses the request, and SourceError when the retries ran
        out or the credentials were refused."""
        response = self._send(request, max_bytes)
        if response.status_code == 401:  # still refused after refreshing the token
            reason, message = error_detail(response.content) or ("", response.reason_phrase)
            raise CredentialRefused(
                f"google_drive: Google refused the credentials (401 "
                f"{reason}: {message}); check the google_drive auth "
                "settings"
            )
        if not 200 <= response.status_code < 300:
            reason, message = error_detail(response.content) or ("", response.reason_phrase)
            raise GoogleApiError(response.status_code, reason, message)
        if request.media:
            return response.content
        if not response.content:  # channels.stop answers 204
            return {}
        try:
            return response.json()
        except ValueError:
            raise SourceError(
                f"google_drive: {request.method} {response.url.path} returned "
                f"malformed JSON (HTTP {response.status_code})"
            ) from None

    def _send(self, request: ApiRequest, max_bytes: int | None) -> httpx.Response:
        headers: dict[str, str] = {}
        content = None
        if request.body is not None:
            headers["content-type"] = "application/json"
            content = json.dumps(request.body).encode()
        refreshes = 0
        while True:
            try:
                if refreshes:
                    self.credentials.refresh(self.auth)
                # a token (fetched when there is none or it expired) in `authorization`
                self.credentials.before_request(self.auth, request.method, request.url, headers)
            except google.auth.exceptions.RefreshError as exc:
                raise CredentialRefused(
                    f"google_drive: Google refused the credentials ({exc}); check the "
                    "google_drive auth settings and token_uri"
                ) from None
            response = self.client.request(
                request.method,
                request.url,
                params=list(request.params),
                headers=headers,
                content=content,
                allow=PASS_THROUGH,
                max_bytes=max_bytes,
            )
            if response.status_code != 401 or refreshes == MAX_REFRESHES:
                return response
            refreshes += 1
