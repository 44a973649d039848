"""The Docs API v3 part of the ClickUp fake, as ClickUp documents it (and as the published
OpenAPI types and client code show it):

- `GET /api/v3/workspaces/{wid}/docs?parent_id=&parent_type=&deleted=&archived=&limit=&cursor=`
  -> `{"docs": [...], "next_cursor": "..."}`; `next_cursor` is absent on the last page, and a
  page may be short before it. `parent_type` is a name (SPACE, FOLDER, LIST, EVERYTHING,
  WORKSPACE) or its number (4, 5, 6, 7, 12); the filter matches a doc's direct parent.
  Deleted and archived docs are left out unless `deleted=true` / `archived=true`.
- A doc object: `{id, name, type, date_created, date_updated, parent: {id, type}, public,
  workspace_id, creator, deleted, archived}` (dates are unix ms numbers, parent.type a number).
- `GET .../docs/{id}` answers a deleted doc with `deleted: true`; its `/pages` and
  `/page_listing` answer 404. Pages carry their own `archived`/`deleted` flags.
- Editing a page bumps the page's `date_updated`, not the doc's (whether ClickUp bumps the
  doc is not documented, so the fake does not)."""

from __future__ import annotations

import base64
import re
from typing import Any

from werkzeug.wrappers import Request, Response

from tests.fakes.http_fake import json_response

PARENT_TYPES = {"SPACE": 4, "FOLDER": 5, "LIST": 6, "EVERYTHING": 7, "WORKSPACE": 12}
DOCS_PER_PAGE = 50


def _err(status: int, err: str, code: str) -> Response:
    return json_response({"err": err, "ECODE": code}, status)


class ClickUpDocsMixin:
    """Docs state and routes; the fake server class mixes it in (needs `tick()`)."""

    docs: dict[str, dict[str, Any]]
    #: Sizes of successive docs listing pages (cycled), for short pages before the end.
    docs_page_sizes: list[int] | None

    def tick(self) -> str:
        raise NotImplementedError

    def _init_docs(self) -> None:
        self.docs = {}
        self.docs_page_sizes = None

    # -- mutations ---------------------------------------------------------------------------
    def add_doc(self, workspace: str, doc_id: str, name: str, *, parent_id: str | None = None,
                parent_type: str = "WORKSPACE") -> None:  # fmt: skip
        now = int(self.tick())
        self.docs[doc_id] = {
            "id": doc_id, "name": name, "type": 1, "workspace_id": int(workspace),
            "date_created": now, "date_updated": now,
            "parent": {"id": parent_id or workspace, "type": PARENT_TYPES[parent_type]},
            "public": False, "creator": 1, "deleted": False, "archived": False, "pages": [],
        }  # fmt: skip

    def delete_doc(self, doc_id: str) -> None:
        """Deleted (in the trash): metadata says so, the pages are gone (404)."""
        now = int(self.tick())
        self.docs[doc_id].update(deleted=True, date_deleted=now, date_updated=now)

    def archive_doc(self, doc_id: str) -> None:
        now = int(self.tick())
        self.docs[doc_id].update(archived=True, date_archived=now, date_updated=now)

    def rename_doc(self, doc_id: str, name: str) -> None:
        self.docs[doc_id].update(name=name, date_updated=int(self.tick()))

    def move_doc(self, doc_id: str, parent_id: str, parent_type: str) -> None:
        self.docs[doc_id].update(parent={"id": parent_id, "type": PARENT_TYPES[parent_type]},
                                 date_updated=int(self.tick()))  # fmt: skip

    def add_page(self, doc_id: str, page_id: str, name: str, content: str,
                 parent: str | None = None) -> None:  # fmt: skip
        now = int(self.tick())
        page = {"id": page_id, "doc_id": doc_id, "parent_page_id": parent, "name": name,
                "sub_title": None, "content": content, "date_created": now, "date_updated": now,
                "archived": False, "deleted": False, "pages": []}  # fmt: skip
        home = self._find_page(doc_id, parent) if parent else self.docs[doc_id]
        home["pages"].append(page)

    def update_page(self, doc_id: str, page_id: str, content: str | None = None, *,
                    name: str | None = None) -> None:  # fmt: skip
        page = self._find_page(doc_id, page_id)
        if content is not None:
            page["content"] = content
        if name is not None:
            page["name"] = name
        page["date_updated"] = int(self.tick())

    def archive_page(self, doc_id: str, page_id: str) -> None:
        self._find_page(doc_id, page_id).update(archived=True, date_updated=int(self.tick()))

    def delete_page(self, doc_id: str, page_id: str) -> None:
        def prune(pages: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return [{**p, "pages": prune(p["pages"])} for p in pages if p["id"] != page_id]

        self.docs[doc_id]["pages"] = prune(self.docs[doc_id]["pages"])

    def _find_page(self, doc_id: str, page_id: str) -> dict[str, Any]:
        stack = list(self.docs[doc_id]["pages"])
        while stack:
            page = stack.pop()
            if page["id"] == page_id:
                return page
            stack.extend(page["pages"])
        raise KeyError(page_id)

    # -- serving -----------------------------------------------------------------------------
    def _docs_routes(self) -> list[tuple[str, Any]]:
        return [
            (r"/api/v3/workspaces/([^/]+)/docs", self._doc_listing),
            (r"/api/v3/workspaces/([^/]+)/docs/([^/]+)", self._doc),
            (r"/api/v3/workspaces/([^/]+)/docs/([^/]+)/(pages|page_listing)", self._doc),
        ]

    def _doc_listing(self, request: Request, workspace: str) -> Response:
        args = request.args
        parent_id, parent_type = args.get("parent_id"), args.get("parent_type")
        wanted_type: int | None = None
        if parent_type is not None:
            key = parent_type.upper()
            wanted_type = PARENT_TYPES.get(key) or (int(key) if key.isdigit() else None)
            if wanted_type not in PARENT_TYPES.values():
                return _err(400, f"Invalid parent_type {parent_type!r}", "DOCS_400")
        try:
            limit = int(args.get("limit", DOCS_PER_PAGE))
            offset = int(base64.urlsafe_b64decode(args.get("cursor") or "MA==").decode())
        except ValueError:
            return _err(400, "Invalid limit or cursor", "DOCS_400")
        if not 10 <= limit <= 100:
            return _err(400, "limit must be between 10 and 100", "DOCS_400")
        want_deleted = args.get("deleted", "false").lower() == "true"
        want_archived = args.get("archived", "false").lower() == "true"
        found = [
            {k: v for k, v in doc.items() if k != "pages"}
            for doc in self.docs.values()
            if str(doc["workspace_id"]) == workspace
            and (parent_id is None or doc["parent"]["id"] == parent_id)
            and (wanted_type is None or doc["parent"]["type"] == wanted_type)
            and (want_deleted or not doc["deleted"])
            and (want_archived or not doc.get("archived"))
            and (args.get("id") is None or doc["id"] == args.get("id"))
        ]
        size = limit
        if self.docs_page_sizes:  # awkward: short pages before the end
            size = min(limit, self.docs_page_sizes[offset % len(self.docs_page_sizes)])
        page, end = found[offset : offset + size], offset + size
        body: dict[str, Any] = {"docs": page}
        if end < len(found):
            body["next_cursor"] = base64.urlsafe_b64encode(str(end).encode()).decode()
        return json_response(body)

    def _doc(self, request: Request, workspace: str, doc_id: str, part: str = "") -> Response:
        doc = self.docs.get(doc_id)
        if doc is None or str(doc["workspace_id"]) != workspace:
            return _err(404, "Doc not found", "DOCS_404")
        if not part:
            return json_response({k: v for k, v in doc.items() if k != "pages"})
        if doc["deleted"]:
            return _err(404, "Doc not found", "DOCS_404")
        markdown = request.args.get("content_format", "text/md") == "text/md"
        listing = part == "page_listing"

        def served(tree: list[dict[str, Any]]) -> list[dict[str, Any]]:
            out = []
            for p in tree:
                page = {**p, "pages": served(p["pages"])}
                if listing:
                    page.pop("content")
                elif not markdown:
                    page["content"] = re.sub(r"(?m)^#+ ", "", p["content"])
                out.append(page)
            return out

        return json_response(served(doc["pages"]))
