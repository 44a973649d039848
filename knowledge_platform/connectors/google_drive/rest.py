"""The Google REST methods the connector calls, as their reference pages document them:
`api.files.get(fileId=..., fields=...)` builds the request for
`GET {drive_endpoint}files/{fileId}?fields=...`; api.py sends it.

Parameters as Google's client libraries send them: path parameters percent-encoded into the
path, the others as query parameters (None left out, booleans `true`/`false`, a list
repeated: Sheets' `ranges`), `body` as JSON. Each API's endpoint is the registry's
(`drive_endpoint`, `sheets_endpoint`, `slides_endpoint`), so tests point them at the fake."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote


@dataclass(frozen=True)
class Route:
    http_method: str
    #: Relative to the API's endpoint; `{name}` is a path parameter.
    path: str
    #: The answer is the file's bytes, not JSON (files.export, files.get with alt=media).
    media: bool = False
    #: Query parameters the method always sends.
    fixed: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ApiRequest:
    method: str
    url: str
    params: tuple[tuple[str, str], ...]
    body: dict[str, Any] | None = None
    media: bool = False


# Drive v3 (relative to https://www.googleapis.com/drive/v3/)
FILES = {
    "get": Route("GET", "files/{fileId}"),
    "get_media": Route("GET", "files/{fileId}", media=True, fixed=(("alt", "media"),)),
    "list": Route("GET", "files"),
    "export": Route("GET", "files/{fileId}/export", media=True),
}
CHANGES = {
    "getStartPageToken": Route("GET", "changes/startPageToken"),
    "list": Route("GET", "changes"),
    "watch": Route("POST", "changes/watch"),
}
CHANNELS = {"stop": Route("POST", "channels/stop")}
# Sheets v4 and Slides v1 (relative to https://sheets.googleapis.com/, slides.googleapis.com/)
SPREADSHEETS = {"get": Route("GET", "v4/spreadsheets/{spreadsheetId}")}
VALUES = {"batchGet": Route("GET", "v4/spreadsheets/{spreadsheetId}/values:batchGet")}
PRESENTATIONS = {"get": Route("GET", "v1/presentations/{presentationId}")}

_PATH_PARAM = re.compile(r"\{(\w+)\}")


def _text(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


class Resource:
    """One REST resource: each documented method is an attribute building an ApiRequest."""

    def __init__(self, endpoint: str, routes: Mapping[str, Route]) -> None:
        self.base = endpoint if endpoint.endswith("/") else endpoint + "/"
        self.routes = routes

    def __getattr__(self, name: str) -> Callable[..., ApiRequest]:
        try:
            route = self.routes[name]
        except KeyError:
            raise AttributeError(name) from None

        def build(*, body: dict[str, Any] | None = None, **params: Any) -> ApiRequest:
            def fill(match: re.Match[str]) -> str:
                return quote(_text(params.pop(match.group(1))), safe="")

            path = _PATH_PARAM.sub(fill, route.path)
            query = [*route.fixed]
            for key, value in params.items():
                values = value if isinstance(value, list | tuple) else [value]
                query.extend((key, _text(v)) for v in values if v is not None)
            return ApiRequest(route.http_method, self.base + path, tuple(query), body, route.media)

        return build
