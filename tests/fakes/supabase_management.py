"""A fake of the Supabase Management API's key listing, written from its OpenAPI description
(`v1-get-project-api-keys`): `GET /v1/projects/{ref}/api-keys[?reveal=true]` with
`Authorization: Bearer <management token>` answers a JSON list of
`{name, api_key, id, type: legacy|publishable|secret, prefix, description, hash,
secret_jwt_template, inserted_at, updated_at}`. Legacy `anon`/`service_role` JWTs come back
whole; new secret keys are masked unless `reveal=true`. A bad token is 401, an unknown project
404, each with `{"message": ...}`."""

from __future__ import annotations

import re
from typing import Any

from werkzeug.wrappers import Request, Response

from tests.fakes.http_fake import FakeServer, json_response

_KEYS_PATH = re.compile(r"/v1/projects/([^/]+)/api-keys")


def legacy_key(name: str, jwt: str) -> dict[str, Any]:
    return {
        "name": name,
        "api_key": jwt,
        "type": "legacy",
        "id": name,
        "prefix": None,
        "description": f"Legacy {name} API key",
        "hash": None,
        "secret_jwt_template": None,
        "inserted_at": None,
        "updated_at": None,
    }


def new_key(name: str, value: str, kind: str = "secret") -> dict[str, Any]:
    role = "service_role" if kind == "secret" else "anon"
    return {
        "name": name,
        "api_key": value,
        "type": kind,
        "id": f"id-{name}",
        "prefix": value[: len("sb_secret_") + 4],
        "description": None,
        "hash": "0" * 43,
        "secret_jwt_template": {"role": role},
        "inserted_at": "2025-07-01T10:00:00Z",
        "updated_at": None,
    }


class FakeSupabaseManagement(FakeServer):
    def __init__(self, token: str, projects: dict[str, list[dict[str, Any]]]) -> None:
        super().__init__()
        self.token = token
        self.projects = projects

    def set_key(self, ref: str, name: str, value: str) -> None:
        """Rotate a key: the next listing returns the new value."""
        with self._lock:
            for key in self.projects[ref]:
                if key["name"] == name:
                    key["api_key"] = value

    def handle(self, request: Request) -> Response:
        match = _KEYS_PATH.fullmatch(request.path)
        if match is None:
            return json_response({"message": "Cannot GET " + request.path}, 404)
        if request.headers.get("Authorization") != f"Bearer {self.token}":
            return json_response({"message": "Unauthorized"}, 401)
        if request.method != "GET":
            return json_response({"message": "Method not allowed"}, 405)
        with self._lock:
            keys = self.projects.get(match.group(1))
            if keys is None:
                return json_response({"message": "Project not found"}, 404)
            reveal = request.args.get("reveal") == "true"
            return json_response(
                [k if reveal or k["type"] != "secret" else _masked(k) for k in keys]
            )


def _masked(key: dict[str, Any]) -> dict[str, Any]:
    return {**key, "api_key": key["prefix"] + "·" * 32}
