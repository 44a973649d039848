"""Host and Origin validation in front of every HTTP route (`/mcp`, `/hooks/*`, the OAuth
metadata): a web page in a browser on this machine must not reach the service by DNS
rebinding (a foreign name resolving to 127.0.0.1) or by a cross-origin request.

Allowed: loopback names and addresses (the embedded default, health checks), the host of the
registry's `service.public_url` and `service.allowed_hosts`; as Origin, public_url's origin,
`service.allowed_origins`, and loopback origins when the request came to a loopback host. A
request without Origin (every non-browser client) is judged by its Host alone. Anything else
is refused with 403 and one line naming the setting that would allow it. The settings are
read per request from the live registry, so an edit applies without a restart."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from knowledge_platform.config.edge_settings import loopback, origin_of
from knowledge_platform.config.hook_settings import ServiceConfig
from knowledge_platform.serve.access import shown


def host_name(host: str) -> str:
    """The name in a Host header value (`name`, `name:port`, `[v6]:port`), lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def refusal(service: ServiceConfig, host: str | None, origin: str | None) -> str | None:
    """Why a request with these Host and Origin headers is refused, or None."""
    public = urlsplit(service.public_url) if service.public_url else None
    name = host_name(host or "")
    known = {*service.allowed_hosts, *([public.hostname] if public and public.hostname else [])}
    if not name or not (loopback(name) or name in known):
        return (
            f"host {shown(name)} is not one this service answers to: set "
            "service.public_url in the registry to the URL clients use, or add the host "
            "to service.allowed_hosts"
        )
    if origin is None:
        return None
    try:
        wanted = origin_of(origin)
    except ValueError:
        wanted = None
    allowed = {
        *service.allowed_origins,
        *([origin_of(service.public_url)] if service.public_url else []),
    }
    origin_host = host_name(urlsplit(wanted).netloc) if wanted else ""
    if wanted and (wanted in allowed or (loopback(origin_host) and loopback(name))):
        return None
    return (
        f"origin {shown(origin)} may not call this service: add it to "
        "service.allowed_origins in the registry (public_url's origin and loopback are "
        "allowed)"
    )


class HostOriginGuard:
    """ASGI middleware applying `refusal` to every HTTP request."""

    def __init__(self, app: ASGIApp, service: Callable[[], ServiceConfig]) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k: v.decode("latin-1") for k, v in scope["headers"] if k in (b"host", b"origin")}
        reason = refusal(self.service(), headers.get(b"host"), headers.get(b"origin"))
        if reason is None:
            await self.app(scope, receive, send)
            return
        body = (reason + "\n").encode()
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
