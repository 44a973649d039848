"""git's push side. Push events: GitHub (`X-Hub-Signature-256: sha256=<hex HMAC>`), Gitea (the same
header, or `X-Gitea-Signature: <hex>`), GitLab (`X-Gitlab-Token` equal to the secret). A push
queues a run of every git_docs scope whose secret authenticated it, whose branch it moved
(`branch`, or the repository's default branch for `HEAD`) and, when the scope's `repo` is a
URL, whose repository it is. A scope pinned to a commit (`at_sha`) ignores pushes. A git
host's API is not in the registry: `kp hooks register` prints what to configure on it."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any, cast

from knowledge_platform.connectors.base import SourceSettings
from knowledge_platform.connectors.git_docs.settings import GitDocsSettings
from knowledge_platform.connectors.webhooks.contract import (
    Outcome,
    Registering,
    Registration,
    needs_secret,
    secret_location,
)
from knowledge_platform.connectors.webhooks.events import Accepted, HookEvent, Rejected
from knowledge_platform.connectors.webhooks.parsing import Context, no_secret, parse_json
from knowledge_platform.connectors.webhooks.verify import signature_matches, token_matches

RENEWS = False
#: provider -> (event header, delivery id header)
PROVIDERS = {
    "github": ("x-github-event", "x-github-delivery"),
    "gitea": ("x-gitea-event", "x-gitea-delivery"),
    "gitlab": ("x-gitlab-event", "x-gitlab-event-uuid"),
}
PUSH = {"push", "Push Hook"}
_URL_KEYS = (
    "clone_url",
    "ssh_url",
    "html_url",
    "git_url",
    "url",
    "git_http_url",
    "git_ssh_url",
    "web_url",
    "http_url",
    "homepage",
)


def _provider(headers: Mapping[str, str]) -> str:
    for name, (event_header, _) in PROVIDERS.items():
        if event_header in headers:
            return name
    raise Rejected(
        400,
        "malformed: not a GitHub, Gitea or GitLab event (no X-GitHub-Event, "
        "X-Gitea-Event or X-Gitlab-Event header)",
        code="malformed",
    )


def _authentic(ctx: Context, provider: str, headers: Mapping[str, str], body: bytes) -> list[str]:
    """The scopes whose git_docs webhook secret authenticates this delivery."""
    secrets = ctx.secrets("git_docs")
    if provider == "gitlab":
        token = headers.get("x-gitlab-token")
        if not token:
            raise Rejected(401, "unsigned: no X-Gitlab-Token header", code="unsigned")
        if not secrets:
            raise no_secret("git_docs")
        scopes = [scope for scope, secret in secrets if token_matches(secret, token)]
        what = "X-Gitlab-Token"
    else:
        signed = headers.get("x-hub-signature-256")
        given = (
            signed.removeprefix("sha256=")
            if signed and signed.startswith("sha256=")
            else headers.get("x-gitea-signature")
        )
        if not given:
            raise Rejected(
                401, "unsigned: no X-Hub-Signature-256 (sha256=...) header", code="unsigned"
            )
        if not secrets:
            raise no_secret("git_docs")
        scopes = [scope for scope, secret in secrets if signature_matches(secret, body, given)]
        what = "the signature"
    if not scopes:
        raise Rejected(
            401, f"{what} does not match the git_docs webhook secret of any scope", code="signature"
        )
    return scopes


def normal_repo(url: str) -> str:
    """github.com/acme/handbook for https://github.com/acme/handbook.git, git@github.com:acme/
    handbook.git, ssh://git@github.com/acme/handbook ..."""
    text = re.sub(r"^[a-z][a-z0-9+.-]*://", "", url.strip().lower())
    text = re.sub(r"^[^@/]+@", "", text)
    text = re.sub(r"^([^/:]+):(?!\d+/)", r"\1/", text)
    return text.removesuffix("/").removesuffix(".git")


def _repos(data: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    for key in ("repository", "project"):
        part = data.get(key)
        if isinstance(part, dict):
            found.update(normal_repo(v) for k in _URL_KEYS if isinstance(v := part.get(k), str))
    return found


def _default_branch(data: dict[str, Any]) -> str | None:
    for key in ("repository", "project"):
        part = data.get(key)
        if isinstance(part, dict) and isinstance(part.get("default_branch"), str):
            return part["default_branch"]
    return None


def _follows(cfg: GitDocsSettings, ref: str, data: dict[str, Any]) -> bool:
    if cfg.at_sha:
        return False
    branch = _default_branch(data) if cfg.branch == "HEAD" else cfg.branch
    if branch is not None and ref != f"refs/heads/{branch.removeprefix('refs/heads/')}":
        return False
    if re.match(r"^([a-z][a-z0-9+.-]*://|[\w.-]+@[\w.-]+:)", cfg.repo):
        return normal_repo(cfg.repo) in _repos(data)
    return True  # a local path: the secret names the scope


def parse(ctx: Context, headers: Mapping[str, str], body: bytes) -> Accepted:
    provider = _provider(headers)
    scopes = _authentic(ctx, provider, headers, body)
    event_header, delivery_header = PROVIDERS[provider]
    kind = headers.get(event_header, "")
    if kind not in PUSH:
        return Accepted(
            [], note=f"{provider} {kind or 'event'}: only pushes are read; nothing queued"
        )
    data = parse_json(body)
    ref = data.get("ref")
    if not isinstance(ref, str) or not ref.startswith("refs/"):
        raise Rejected(400, "malformed: a push without a 'ref'", code="malformed")
    follow = [
        scope
        for scope in scopes
        if _follows(cast(GitDocsSettings, ctx.settings("git_docs", scope)), ref, data)
    ]
    if not follow:
        return Accepted(
            [], note=f"push to {ref}: no scope follows that branch and repository; nothing queued"
        )
    delivery = headers.get(delivery_header) or hashlib.sha256(body).hexdigest()[:32]
    return Accepted(
        [HookEvent(f"git:{provider}:{delivery}@{scope}", "git_docs", scope) for scope in follow],
        note=f"push to {ref}",
    )


def register(job: Registering) -> tuple[list[Outcome], list[Registration]]:
    cfg, scope, endpoint = cast(GitDocsSettings, job.settings), job.scope, job.endpoint
    where = secret_location(cfg)
    if where is None:
        return [needs_secret("git_docs", scope)], job.known
    branch = "the default branch" if cfg.branch == "HEAD" else cfg.branch
    message = (
        f"git_docs:{scope}: on the host of {cfg.repo}, add a webhook: URL {endpoint}, "
        f"content type application/json, secret = the value of {where}, event push "
        f"(GitHub/Gitea sign it; GitLab sends it as X-Gitlab-Token); pushes to "
        f"{branch} are read"
    )
    reg = Registration(
        source="git_docs",
        scope=scope,
        kind="git_hook",
        id=endpoint,
        endpoint=endpoint,
        secret=where,
        location=cfg.repo,
        created_at=job.now,
    )
    return [Outcome("git_docs", scope, "instructions", message)], [reg]


def health(settings: SourceSettings, reg: Registration, now: float, ask: bool) -> tuple[str, str]:
    del settings, reg, now, ask
    return "ok", "configured on the git host (not checked)"
