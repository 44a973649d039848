"""Authenticity checks, each in constant time over the raw body bytes, before any parsing."""

from __future__ import annotations

import hashlib
import hmac


def hmac_hex(secret: str, body: bytes) -> str:
    """Hex HMAC-SHA256 of `body` keyed with `secret`: ClickUp's X-Signature, GitHub's
    X-Hub-Signature-256 after `sha256=`, Gitea's X-Gitea-Signature."""
    return hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def signature_matches(secret: str, body: bytes, given_hex: str) -> bool:
    """Compared as bytes: a header with non-ASCII characters is a mismatch, not an error."""
    given = given_hex.strip().lower().encode("utf-8", "surrogateescape")
    return hmac.compare_digest(hmac_hex(secret, body).encode("ascii"), given)


def token_matches(secret: str, given: str) -> bool:
    """A shared token sent as is (GitLab's X-Gitlab-Token, Drive's X-Goog-Channel-Token)."""
    return hmac.compare_digest(secret.encode("utf-8"), given.encode("utf-8"))
