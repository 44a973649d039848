"""The website's registry settings."""

from __future__ import annotations

from pydantic import Field

from knowledge_platform.connectors.http import HttpSettings
from knowledge_platform.models import Confidentiality


class WebsiteSettings(HttpSettings):
    base_url: str
    #: Default: the `Sitemap:` lines of robots.txt, else `<base_url>/sitemap.xml`.
    sitemap_url: str | None = None
    user_agent: str = "SurefootKnowledgeBot/1.0"
    max_pages: int = Field(default=500, ge=1)
    confidentiality: Confidentiality = "public"
    #: Path prefixes; empty `include` means every path.
    include: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    max_sitemaps: int = Field(default=50, ge=1)
