"""A fake Google: OAuth token endpoint, Drive v3, Sheets v4 and Slides v1, on a loopback port.

Serves what Google documents for these calls (tests/fakes/google_drive_api.py says which
facts), with Google's URL layout, JSON shapes and error bodies. Point a connector at it with
`endpoints()`. Tests change Drive through DriveState's actions (each logs a Drive change),
inject failures with `fail_next` (status, reason, optional headers such as Retry-After) or
`outage` (every API answers 503; the token endpoint stays up), assert on `requests` and
`token_grants`, and `reset()` between tests to reuse one server.
"""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import dataclass
from typing import Any

from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map, Rule
from werkzeug.serving import WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response

from tests.fakes.google_content import ContentApi, FakeFile, GoogleApiError, json_response
from tests.fakes.google_drive_api import ChangeEntry, DriveApi
from tests.fakes.google_drive_state import DriveState
from tests.fakes.google_drive_watch import DriveWatchMixin


@dataclass
class LoggedRequest:
    method: str
    path: str
    args: dict[str, list[str]]

    def arg(self, name: str) -> str | None:
        values = self.args.get(name)
        return values[0] if values else None


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


class FakeGoogle(DriveWatchMixin, DriveState, DriveApi, ContentApi):
    def __init__(
        self,
        client_id: str = "fake-client",
        client_secret: str = "fake-secret",
        refresh_token: str = "fake-refresh",
    ) -> None:
        self.client_id, self.client_secret, self.refresh_token = (
            client_id,
            client_secret,
            refresh_token,
        )
        self.reset()
        self._lock = threading.Lock()
        self._url_map = Map(
            [
                Rule("/token", endpoint="token", methods=["POST"]),
                Rule("/drive/v3/files", endpoint="files_list"),
                Rule("/drive/v3/files/<file_id>", endpoint="files_get"),
                Rule("/drive/v3/files/<file_id>/export", endpoint="files_export"),
                Rule("/drive/v3/changes/startPageToken", endpoint="start_token"),
                Rule("/drive/v3/changes", endpoint="changes_list"),
                Rule("/drive/v3/changes/watch", endpoint="changes_watch", methods=["POST"]),
                Rule("/drive/v3/channels/stop", endpoint="channels_stop", methods=["POST"]),
                Rule("/v4/spreadsheets/<file_id>", endpoint="sheet_get"),
                Rule("/v4/spreadsheets/<file_id>/values:batchGet", endpoint="values_batch"),
                Rule("/v4/spreadsheets/<file_id>/values/<path:a1>", endpoint="values_get"),
                Rule("/v1/presentations/<file_id>", endpoint="presentation_get"),
            ]
        )
        self._server = make_server(
            "127.0.0.1", 0, self._wsgi, threaded=True, request_handler=_QuietHandler
        )
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def reset(self) -> None:
        """Forget all files, changes, tokens, injected failures and logged requests."""
        self.files: dict[str, FakeFile] = {}
        self.changes: list[ChangeEntry] = []  # position + 1 = page token
        self.requests: list[LoggedRequest] = []
        self.tokens: set[str] = set()
        self.token_grants: list[str] = []
        self.outage = False
        # (status, reason, path part, headers); `forever` ones are never used up
        self._failures: list[tuple[int, str, str, dict[str, str]]] = []
        self._seq = 0
        self.freeze_clock = False
        self.page_cap: int | None = None
        self.short_pages = False
        self.all_drives_incomplete = True
        self.max_parents_per_query: int | None = None
        self.incomplete_folders: set[str] = set()
        self.export_limit = 10 * 1024 * 1024  # Drive's documented 10 MB export cap
        self._init_watch()

    # lifecycle ---------------------------------------------------------------------------
    def start(self) -> FakeGoogle:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeGoogle:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    def env(self) -> dict[str, str]:
        """The environment variables the connector reads its OAuth client from, set to the
        client this fake accepts."""
        return {
            "GOOGLE_CLIENT_ID": self.client_id,
            "GOOGLE_CLIENT_SECRET": self.client_secret,
            "GOOGLE_REFRESH_TOKEN": self.refresh_token,
        }

    def endpoints(self) -> dict[str, str]:
        """Connector settings that point every API at this fake."""
        base = self.base_url
        return {
            "drive_endpoint": f"{base}/drive/v3/",
            "sheets_endpoint": f"{base}/",
            "slides_endpoint": f"{base}/",
            "docs_endpoint": f"{base}/",
            "token_uri": f"{base}/token",
        }

    def fail_next(
        self,
        count: int = 1,
        status: int = 429,
        reason: str = "rateLimitExceeded",
        path_part: str = "",
        headers: dict[str, str] | None = None,
    ) -> None:
        """The next `count` API requests whose path holds `path_part` answer this error."""
        self._failures.extend([(status, reason, path_part, headers or {})] * count)

    def revoke_tokens(self) -> None:
        self.tokens.clear()

    def clear_failures(self) -> None:
        """Drop the failures `fail_next` queued and no request has met yet."""
        self._failures.clear()

    def calls(self, path_part: str) -> list[LoggedRequest]:
        return [r for r in self.requests if path_part in r.path]

    # HTTP ---------------------------------------------------------------------------------
    def _wsgi(self, environ: Any, start_response: Any) -> Any:
        request = Request(environ)
        with self._lock:
            try:
                response = self._dispatch(request)
            except HTTPException as exc:
                response = exc.get_response()
        return response(environ, start_response)

    def _dispatch(self, request: Request) -> Response:
        self.requests.append(
            LoggedRequest(request.method, request.path, request.args.to_dict(flat=False))
        )
        endpoint, values = self._url_map.bind_to_environ(request.environ).match()
        if endpoint == "token":  # a separate Google service: `outage` leaves it up
            self._inject(request, token=True)
            return self._token(request)
        if self.outage:
            raise GoogleApiError(503, "The service is currently unavailable.", "backendError")
        header = request.headers.get("Authorization", "")
        if header.removeprefix("Bearer ") not in self.tokens:
            raise GoogleApiError(
                401, "Request had invalid authentication credentials.", "authError"
            )
        self._inject(request)
        return getattr(self, f"_{endpoint}")(request, **values)

    def _inject(self, request: Request, token: bool = False) -> None:
        """Raise the first injected failure for this path (the token endpoint only takes
        the ones that name it)."""
        for i, (status, reason, part, headers) in enumerate(self._failures):
            if part in request.path and (part or not token):
                del self._failures[i]
                raise GoogleApiError(status, f"Injected failure: {reason}", reason, headers)

    def _token(self, request: Request) -> Response:
        form = request.form
        grant = form.get("grant_type", "")
        self.token_grants.append(grant)
        if grant == "refresh_token":
            if (form.get("client_id"), form.get("client_secret")) != (
                self.client_id,
                self.client_secret,
            ):
                return json_response(
                    {
                        "error": "invalid_client",
                        "error_description": "The OAuth client was not found.",
                    },
                    401,
                )
            if form.get("refresh_token") != self.refresh_token:
                return json_response(
                    {
                        "error": "invalid_grant",
                        "error_description": "Token has been expired or revoked.",
                    },
                    400,
                )
        elif grant == "urn:ietf:params:oauth:grant-type:jwt-bearer":
            parts = form.get("assertion", "").split(".")
            claims = (
                json.loads(base64.urlsafe_b64decode(parts[1] + "==")) if len(parts) == 3 else {}
            )
            if not (claims.get("aud") and claims.get("iss") and claims.get("scope")):
                return json_response(
                    {"error": "invalid_grant", "error_description": "Bad JWT."}, 400
                )
        else:
            return json_response({"error": "unsupported_grant_type"}, 400)
        token = f"fake-access-{len(self.token_grants)}"
        self.tokens.add(token)
        return json_response(
            {
                "access_token": token,
                "expires_in": 3599,
                "token_type": "Bearer",
                "scope": "https://www.googleapis.com/auth/drive.readonly",
            }
        )
