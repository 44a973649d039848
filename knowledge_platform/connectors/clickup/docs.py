"""ClickUp Docs (API v3) of one scope, every run: one document per page, markdown content.

- Discovery: the v3 listing filtered by parent (`parent_id` + `parent_type` SPACE, FOLDER or
  LIST) for every container of the scope, paged by `next_cursor` until it is empty; live docs
  only (`deleted=false&archived=false`). Docs named in `doc_ids` are read as well.
- Each found doc's page tree is read whole (one request; whether a page edit moves the doc's
  `date_updated` is not documented, so nothing is skipped on its word); a page that differs
  from the index is returned, a known page the tree no longer holds is deleted (confirmed).
- Vanished: a known doc the listing no longer shows is looked up (the budget is shared with
  tasks): 404, `deleted: true` or archived -> its pages are deleted (confirmed); its parent
  now outside the scope -> removed from this scope (confirmed); still in the scope -> read;
  otherwise its pages are `missing` (inferred).
- Failures: a doc whose pages fail keeps its pages (stale); pages answering 404 for a doc
  whose metadata says deleted (or 404) remove it; a failing listing keeps every known page
  it would have covered (stale) and never blocks the tasks."""

from __future__ import annotations

from typing import Any

from knowledge_platform.connectors.base import Skipped
from knowledge_platform.connectors.clickup.render import flatten_pages, page_document
from knowledge_platform.connectors.clickup.run import Outcome, Run
from knowledge_platform.errors import SourceError


def _gone(meta: dict[str, Any] | None) -> bool:
    return meta is None or bool(meta.get("deleted")) or bool(meta.get("archived"))


class DocSync:
    def __init__(self, run: Run) -> None:
        self.api, self.cfg, self.scope = run.api, run.api.cfg, run.scope
        self.containers, self.known, self.full = run.containers, run.known, run.full
        self.budget = run.budget
        known = run.known
        self.pages: dict[str, list[str]] = {}  # doc id -> known page source ids
        self.workspace_of: dict[str, str] = {}
        for sid, doc in known.documents.items():
            if sid.startswith("doc:"):
                doc_id = str(doc.extra.get("doc_id") or sid.split(":")[1])
                self.pages.setdefault(doc_id, []).append(sid)
                if doc.extra.get("workspace"):
                    self.workspace_of[doc_id] = str(doc.extra["workspace"])
        self.out = Outcome()

    def pull(self) -> Outcome:
        if not self.containers.workspaces:  # the token sees no workspace: no docs to read
            return self.out
        found, failure = self._discover()
        done: set[str] = set()
        for doc_id in self.cfg.doc_ids:
            if doc_id not in found:
                self._explicit(doc_id, found, done)
        for doc_id in sorted(self.pages.keys() - found.keys() - done):
            if failure is None:
                self._verify(doc_id, found, done)
        for doc_id, (workspace, meta) in found.items():
            self._read(workspace, doc_id, str(meta.get("name") or doc_id))
            done.add(doc_id)
        if failure is not None:
            kept = sorted(s for d, ids in self.pages.items() if d not in done for s in ids)
            self.out.skipped.append(Skipped(source_id="docs:listing", reason=failure,
                                            covers=kept))  # fmt: skip
        return self.out

    def _discover(self) -> tuple[dict[str, tuple[str, dict[str, Any]]], str | None]:
        found: dict[str, tuple[str, dict[str, Any]]] = {}
        for workspace in self.containers.workspaces:
            for parent_id, parent_type in self.containers.doc_parents():
                try:
                    for meta in self.api.docs(workspace, parent_id, parent_type):
                        if not _gone(meta) and str(meta["id"]) not in self.cfg.elsewhere:
                            found.setdefault(str(meta["id"]), (workspace, meta))
                except SourceError as exc:
                    return found, f"docs listing: {exc}"
        return found, None

    def _workspace(self, doc_id: str) -> str:
        return self.workspace_of.get(doc_id) or self.cfg.team_id or self.containers.workspaces[0]

    def _explicit(self, doc_id: str, found: dict[str, Any], done: set[str]) -> None:
        """A doc named in `doc_ids`: read wherever it lives, removed once ClickUp says so."""
        workspace = self.cfg.team_id or self._workspace(doc_id)
        try:
            meta = self.api.doc(workspace, doc_id)
        except SourceError as exc:
            self._failed(doc_id, str(exc))
            done.add(doc_id)
            return
        if _gone(meta):
            self._removed(doc_id, "the doc is deleted or archived in ClickUp")
            done.add(doc_id)
        else:
            found[doc_id] = (workspace, meta)

    def _verify(self, doc_id: str, found: dict[str, Any], done: set[str]) -> None:
        pages = self.pages[doc_id]
        if not self.budget.take():
            self.out.missing += pages
            return
        workspace = self._workspace(doc_id)
        try:
            meta = self.api.doc(workspace, doc_id)
        except SourceError:
            self.out.missing += pages
            return
        if meta is None or _gone(meta) or not self.containers.holds_doc(meta):
            self.out.deleted += pages
            done.add(doc_id)
        else:
            found[doc_id] = (workspace, meta)

    def _read(self, workspace: str, doc_id: str, name: str) -> None:
        try:
            tree = self.api.pages(workspace, doc_id)
            meta = self.api.doc(workspace, doc_id) if tree is None else {}
        except SourceError as exc:
            self._failed(doc_id, f"pages: {exc}")
            return
        if tree is None:
            if _gone(meta):
                self._removed(doc_id, "pages answer 404 and the doc is deleted")
            else:
                self._failed(doc_id, "pages answer 404 while the doc exists")
            return
        live: set[str] = set()
        for page in flatten_pages(tree):
            if page.get("archived") or page.get("deleted") or not page.get("id"):
                continue
            doc = page_document(self.cfg, self.scope, workspace, doc_id, name, page)
            if not doc.text:
                continue
            live.add(doc.source_id)
            if self.full or self.known.documents.get(doc.source_id) != doc:
                self.out.documents.append(doc)
        self.out.deleted += [s for s in self.pages.get(doc_id, []) if s not in live]

    def _failed(self, doc_id: str, reason: str) -> None:
        self.out.skipped.append(Skipped(source_id=f"doc:{doc_id}", reason=reason,
                                        covers=self.pages.get(doc_id, [])))  # fmt: skip

    def _removed(self, doc_id: str, reason: str) -> None:
        self.out.skipped.append(Skipped(source_id=f"doc:{doc_id}", reason=reason,
                                        covers=self.pages.get(doc_id, []), gone=True))  # fmt: skip
