"""How the server presents itself to clients: its display title, website and icon."""

from __future__ import annotations

import base64

from mcp_types import Icon

from knowledge_platform.config.hook_settings import ServiceConfig

TITLE = "Surefoot knowledge platform"
#: A small book mark, inline so no client fetches anything to show it.
_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">'
    '<rect width="64" height="64" rx="12" fill="#1f4e79"/>'
    '<path d="M18 14h22l8 8v28H18z" fill="#fff"/>'
    '<path d="M24 30h18M24 37h18M24 44h12" stroke="#1f4e79" stroke-width="3"/></svg>'
)
ICONS = [
    Icon(
        src="data:image/svg+xml;base64," + base64.b64encode(_SVG.encode()).decode(),
        mime_type="image/svg+xml",
        sizes=["any"],
    )
]


def website(service: ServiceConfig) -> str | None:
    """serverInfo.websiteUrl: the registry's `service.website_url`, else its public URL."""
    return service.website_url or service.public_url
