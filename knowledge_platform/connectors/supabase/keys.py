"""The Supabase service key, fetched at run time through the Management API instead of
living in the environment: `GET /v1/projects/{ref}/api-keys?reveal=true` with a management
(personal access or OAuth) token as bearer returns the project's keys, each
`{name, api_key, type: legacy|publishable|secret, id, prefix, ...}`; the legacy
`service_role` JWT, or a new `sb_secret_...` key by name. Without `reveal`, secret keys come
back masked. The key is returned to the caller and kept nowhere."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import httpx

from knowledge_platform.connectors.http import HttpClient
from knowledge_platform.errors import ConfigError, SourceError
from knowledge_platform.redact import remember

MANAGEMENT_API = "https://api.supabase.com"
SERVICE_ROLE = "service_role"
_PROJECT_REF = re.compile(r"[a-z]{20}")
_MASKS = ("·", "•", "*")


def project_ref_from_url(url: str) -> str | None:
    """`abcdefghijklmnopqrst` from `https://abcdefghijklmnopqrst.supabase.co` (None for a
    custom domain or a local URL: then the registry names the ref)."""
    host = urlsplit(url).hostname or ""
    ref, _, rest = host.partition(".")
    return ref if rest == "supabase.co" and _PROJECT_REF.fullmatch(ref) else None


def fetch_service_key(
    project_ref: str,
    management_token: str,
    *,
    key_name: str = SERVICE_ROLE,
    base_url: str = MANAGEMENT_API,
    timeout: float = 30.0,
    max_retries: int = 4,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.time,
    transport: httpx.BaseTransport | None = None,
) -> str:
    """The project's secret key named `key_name` (default: the legacy `service_role` JWT; a
    new secret key by its name, e.g. `default`). SourceError when the API refuses or the
    project has no such key; the message never holds a key or the token."""
    if not _PROJECT_REF.fullmatch(project_ref):
        raise ConfigError(
            f"supabase: project ref {project_ref[:40]!r} is not a Supabase project "
            "ref (20 lowercase letters, as in https://<ref>.supabase.co)"
        )
    client = HttpClient(
        "supabase",
        headers={"Authorization": f"Bearer {management_token}", "Accept": "application/json"},
        timeout=timeout,
        max_retries=max_retries,
        sleep=sleep,
        clock=clock,
        transport=transport,
        auth_hint="check the Supabase management token (management_token_env or "
        "management_token_ref): it must be allowed to read this project's API keys",
    )
    with client as http:
        response = http.get(
            f"{base_url.rstrip('/')}/v1/projects/{project_ref}/api-keys", params={"reveal": "true"}
        )
    try:
        keys = response.json()
    except ValueError:
        keys = None
    if not isinstance(keys, list) or not all(isinstance(k, dict) for k in keys):
        raise SourceError(
            f"supabase: the Management API's api-keys answer for {project_ref} "
            "is not a list of keys"
        )
    return _pick(keys, key_name, project_ref)


def _pick(keys: list[dict], key_name: str, project_ref: str) -> str:
    found = next((k for k in keys if k.get("name") == key_name), None)
    if found is None:
        names = ", ".join(f"{k.get('name')} ({k.get('type') or 'legacy'})" for k in keys)
        raise SourceError(
            f"supabase: project {project_ref} has no API key named {key_name!r} "
            f"(it has: {names or 'none'}); name a secret key of the project"
        )
    kind = found.get("type") or "legacy"
    if kind == "publishable" or (kind == "legacy" and key_name != SERVICE_ROLE):
        raise SourceError(
            f"supabase: key {key_name!r} of project {project_ref} is a public "
            f"({kind}) key; the connector needs {SERVICE_ROLE} or a secret key"
        )
    value = found.get("api_key")
    if not isinstance(value, str) or not value:
        raise SourceError(f"supabase: key {key_name!r} of project {project_ref} came back empty")
    if any(mark in value for mark in _MASKS):
        raise SourceError(
            f"supabase: key {key_name!r} of project {project_ref} came back "
            "masked; the management token may not reveal secret keys"
        )
    return remember(value)
