"""ClickUp Docs (API v3): one document per page of each configured doc, markdown content so the
chunker splits it by section. One request for the doc's name and one for its whole page tree;
pages are diffed against the versions (`date_updated`) kept in the cursor."""

from __future__ import annotations

from typing import TYPE_CHECKING

from knowledge_platform.connectors.base import Skipped
from knowledge_platform.connectors.clickup.render import flatten_pages, ms_to_date
from knowledge_platform.connectors.http import HttpClient
from knowledge_platform.models import Document

if TYPE_CHECKING:
    from knowledge_platform.connectors.clickup.settings import ClickUpSettings


def pull_docs(
    http: HttpClient, cfg: ClickUpSettings, scope: str, old: dict[str, str], full: bool
) -> tuple[list[Document], dict[str, str], list[Skipped]]:
    """(new or changed pages, every live page's version, skipped pages). With `full`, every
    page is returned whatever `old` says."""
    documents: list[Document] = []
    versions: dict[str, str] = {}
    skipped: list[Skipped] = []
    for doc_id in cfg.doc_ids:
        base = f"{cfg.docs_base_url}/workspaces/{cfg.team_id}/docs/{doc_id}"
        meta = http.get_json(base)
        doc_name = str(meta.get("name") or doc_id) if isinstance(meta, dict) else doc_id
        # No max_page_depth: -1 has been seen to answer 500, and leaving it out gives the tree.
        tree = http.get_json(f"{base}/pages", params={"content_format": "text/md"})
        if isinstance(tree, dict):
            tree = tree.get("pages")
        for page in flatten_pages(tree):
            if page.get("archived") or page.get("deleted") or not page.get("id"):
                continue
            sid = f"doc:{doc_id}:{page['id']}"
            version = str(page.get("date_updated") or "")
            versions[sid] = version
            if not full and version and old.get(sid) == version:
                continue
            content = str(page.get("content") or "").strip()
            if not content:
                skipped.append(Skipped(source_id=sid, reason="page has no content"))
                continue
            documents.append(
                Document(
                    source="clickup",
                    source_id=sid,
                    scope=scope,
                    title=f"{doc_name} / {page.get('name') or 'Untitled'}",
                    text=content,
                    kind="doc",
                    url=f"{cfg.app_url}/{cfg.team_id}/v/dc/{doc_id}/{page['id']}",
                    date=ms_to_date(page.get("date_updated")),
                    version=version,
                    confidentiality=cfg.confidentiality,
                    extra={"doc_id": doc_id, "page_id": page["id"]},
                )
            )
    return documents, versions, skipped
