"""Google Drive: Docs, Sheets and Slides under configured folders or shared drives, and the
uploads among them of the types the converter reads (PDF, DOCX, PPTX, XLSX: uploads.py);
every other file (an image, a Google Form...) is listed once as not indexed, with its type.

Full pull: find each root's corpus (My Drive or a shared drive), remember each change log's
start token, then walk the folders (batched `'<id>' in parents` queries in the root's corpus)
and read every file. Ordinary pull: replay every change log from its token; read the files
under the roots whose version changed (a move or a permission change bumps the version, not
modifiedTime) and the files the last pull could not read (`known.retry`); removed, trashed,
unshared or moved-out files are confirmed deletions. A file whose content fails keeps its
last good version (Skipped); a 404 on it means it is gone. Folder membership and the files
under the roots are kept in the cursor so a change elsewhere costs no lookups twice.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from functools import partial
from typing import Any

from knowledge_platform.connectors.base import NOTHING_KNOWN, Known, PullResult, Skipped
from knowledge_platform.connectors.google_drive.api import (
    GoogleApi,
    GoogleApiError,
    credentials_from,
)
from knowledge_platform.connectors.google_drive.cursor import LAYOUT, FileRecord, GoogleDriveCursor
from knowledge_platform.connectors.google_drive.fetch import fetch_document
from knowledge_platform.connectors.google_drive.listing import (
    FILE_FIELDS,
    USER,
    Lister,
    Listing,
    encode,
    replay,
    start_tokens,
)
from knowledge_platform.connectors.google_drive.settings import GoogleDriveSettings
from knowledge_platform.connectors.google_drive.tree import (
    FOLDER,
    KINDS,
    ChangePlan,
    FolderTree,
    file_version,
    has_content,
    plan_changes,
    record,
)
from knowledge_platform.connectors.google_drive.uploads import Uploads
from knowledge_platform.connectors.http import CredentialRefused, HttpConnector
from knowledge_platform.errors import SourceError
from knowledge_platform.models import STALE, Document


class GoogleDriveConnector(HttpConnector[GoogleDriveCursor]):
    name = "google_drive"
    settings_model = GoogleDriveSettings
    cursor_model = GoogleDriveCursor
    settings: GoogleDriveSettings

    def change_logs(self, api: GoogleApi) -> list[str]:
        """The change logs holding the roots: USER ("") for My Drive, else shared drive ids
        (what `changes.watch` channels watch)."""
        return sorted(set(self._corpora(api).values()))

    def api(self) -> GoogleApi:
        return self._api()

    def _api(self) -> GoogleApi:
        return GoogleApi(
            self.settings,
            credentials_from(self.settings),
            sleep=self._sleep,
            clock=self._clock,
            transport=self._transport,
        )

    def pull(
        self,
        cursor: GoogleDriveCursor | None,
        *,
        full: bool = False,
        known: Known = NOTHING_KNOWN,
    ) -> PullResult[GoogleDriveCursor]:
        api = self._api()
        try:
            return self._pull(api, cursor, full, known)
        finally:
            api.close()

    def change_token(self, cursor: GoogleDriveCursor | None) -> str | None:
        """Every change log's start token after the pending changes: equal to the indexed
        `page_token` while nothing changed, a new value once something did. The sensor probes
        only an indexed scope, so no cursor here is one of an older layout: it answers a value
        of its own, so that one run rewrites it."""
        if cursor is None:
            return f"cursor layout {LAYOUT}"
        tokens = cursor.tokens
        api = self._api()
        try:
            return encode(replay(api, tokens, self.settings.page_size)[1])
        finally:
            api.close()

    @property
    def _roots(self) -> list[str]:
        return sorted({*self.settings.folder_ids, *self.settings.shared_drive_ids})

    def _pull(
        self, api: GoogleApi, cursor: GoogleDriveCursor | None, full: bool, known: Known
    ) -> PullResult[GoogleDriveCursor]:
        if (
            full
            or cursor is None
            or cursor.roots != self._roots
            or cursor.foreign != sorted(self.settings.elsewhere - set(self._roots))
        ):
            return self._full(api, cursor, known)
        try:
            changes, tokens = replay(api, cursor.tokens, self.settings.page_size)
        except GoogleApiError as exc:
            if exc.status in (400, 404):  # a page token was rejected: list everything again
                return self._full(api, cursor, known)
            raise
        if any(change.get("fileId") in self._roots for change in changes):
            return self._full(api, cursor, known)  # a root moved, maybe to another drive's log
        tree = FolderTree(
            self._roots, cursor.folders, partial(self._parents, api), self.settings.elsewhere
        )
        before = cursor.files
        records = dict(before)
        plan = plan_changes(changes, tree, records)
        listing = Lister(api, tree, self.settings.page_size).walk(plan.entered)
        for file_id, meta in listing.files.items():
            rec = records.get(file_id)
            if rec is None or rec.version != file_version(meta):
                _plan_file(plan, meta)
        failed = self._plan_retries(api, tree, plan, records, known.retry)
        documents, skipped = self._read(api, plan, records, known, before)
        skipped += failed + _incomplete(listing, tree, records, records)
        return PullResult(
            documents=documents,
            full=False,
            deleted=sorted(plan.gone),
            skipped=skipped,
            cursor=self._cursor(tokens, tree, records),
            requests=api.requests,
        )

    def _full(
        self, api: GoogleApi, previous: GoogleDriveCursor | None, known: Known
    ) -> PullResult[GoogleDriveCursor]:
        corpora = self._corpora(api)
        # Tokens first: changes made while we list are replayed by the next ordinary pull.
        tokens = start_tokens(api, sorted(set(corpora.values())))
        tree = FolderTree(self._roots, {}, partial(self._parents, api), self.settings.elsewhere)
        listing = Lister(api, tree, self.settings.page_size).walk(corpora)
        plan = ChangePlan()
        for meta in listing.files.values():
            _plan_file(plan, meta)
        records: dict[str, FileRecord] = {}
        before = previous.files if previous else {}
        documents, skipped = self._read(api, plan, records, known, before)
        old_tree = FolderTree(
            self._roots,
            {**(previous.folders if previous else {}), **tree.parents},
            lambda _: [],
            self.settings.elsewhere,
        )
        if listing.incomplete:  # what the last pull knew there is kept, not inferred gone
            skipped += _incomplete(listing, old_tree, before, records)
        # Files of a folder another scope names (the registry gave it to that scope): gone
        # from this one on the registry's word, not inferred.
        claimed = sorted(
            f
            for f, rec in before.items()
            if f not in listing.files and old_tree.elsewhere(rec.parents)
        )
        return PullResult(
            documents=documents,
            full=True,
            deleted=claimed,
            skipped=skipped,
            cursor=self._cursor(tokens, tree, records),
            requests=api.requests,
        )

    def _cursor(
        self, tokens: dict[str, str], tree: FolderTree, records: dict[str, FileRecord]
    ) -> GoogleDriveCursor:
        return GoogleDriveCursor(
            v=LAYOUT,
            page_token=encode(tokens),
            tokens=tokens,
            roots=self._roots,
            foreign=sorted(tree.foreign),
            folders=tree.parents,
            files=records,
        )

    def _corpora(self, api: GoogleApi) -> dict[str, str]:
        """Each root -> the shared drive it lives in (USER for My Drive)."""
        corpora = {drive: drive for drive in self.settings.shared_drive_ids}
        for folder in self.settings.folder_ids:
            try:
                meta = api.call(
                    api.files.get(
                        fileId=folder, fields="id,mimeType,driveId", supportsAllDrives=True
                    )
                )
            except GoogleApiError as exc:
                raise SourceError(
                    f"google_drive: folder {folder} (folder_ids) answers {exc.status} "
                    f"{exc.reason}: not found or not shared with this account; fix the registry"
                ) from None
            if meta.get("mimeType") != FOLDER:
                raise SourceError(
                    f"google_drive: {folder} in folder_ids is a "
                    f"{meta.get('mimeType')}, not a folder; fix the registry"
                )
            corpora[folder] = meta.get("driveId", USER)
        return corpora

    def _parents(self, api: GoogleApi, folder_id: str) -> list[str]:
        """Parents of a folder not seen before; [] if it is gone, trashed or unreadable."""
        try:
            meta = api.call(
                api.files.get(
                    fileId=folder_id, fields="id,mimeType,parents,trashed", supportsAllDrives=True
                )
            )
        except GoogleApiError as exc:
            if exc.status in (403, 404):
                return []
            raise
        return [] if meta.get("trashed") else list(meta.get("parents", []))

    def _plan_retries(
        self,
        api: GoogleApi,
        tree: FolderTree,
        plan: ChangePlan,
        records: dict[str, FileRecord],
        retry: Collection[str],
    ) -> list[Skipped]:
        """The files the last pull could not read, read again from their current metadata
        (404: gone); an upload unchanged since its verdict (encrypted, corrupt...) says it
        again without a request."""
        failed: list[Skipped] = []
        for file_id in sorted(set(retry) - plan.fetch.keys() - plan.gone):
            rec = records.get(file_id)
            if rec and rec.verdict:
                failed.append(Skipped(source_id=file_id, reason=rec.verdict))
                continue
            try:
                meta = api.call(
                    api.files.get(fileId=file_id, fields=FILE_FIELDS, supportsAllDrives=True)
                )
            except GoogleApiError as exc:
                if exc.status == 404:
                    plan.gone.add(file_id)
                    records.pop(file_id, None)
                else:
                    failed.append(Skipped(source_id=file_id, reason=_refusal(exc)))
                continue
            except CredentialRefused:
                raise
            except SourceError as exc:
                self._drive_answers(api)
                failed.append(Skipped(source_id=file_id, reason=_transient(exc)))
                continue
            if meta.get("trashed") or not tree.holds(meta.get("parents", [])):
                plan.gone.add(file_id)
                records.pop(file_id, None)
            else:
                _plan_file(plan, meta)
        return failed

    def _read(
        self,
        api: GoogleApi,
        plan: ChangePlan,
        records: dict[str, FileRecord],
        known: Known,
        before: Mapping[str, FileRecord],
    ) -> tuple[list[Document], list[Skipped]]:
        """Read the planned files; a refusal or a failure after the retries skips the file
        (kept at its last good version), a 404 means it is gone. A type that is not read is
        listed as not indexed when it is new or has a new version (`before`: the records of
        the last pull)."""
        uploads = Uploads(api, self.settings, self.scope, known.documents)
        indexed = known.documents.keys()
        documents: list[Document] = []
        skipped: list[Skipped] = []
        for meta in _ordered(plan.fetch.values()):
            file_id = meta["id"]
            old = before.get(file_id)
            why_not = uploads.unsupported(meta)
            if why_not is not None:
                records[file_id] = record(meta)
                if not old or old.version != file_version(meta):
                    skipped.append(
                        Skipped(
                            source_id=file_id, unsupported=True, reason=f"{why_not}{_named(meta)}"
                        )
                    )
                continue
            same = _unchanged(meta, known)
            if same is not None:  # a full pull (or a relist) exports nothing it has read
                documents.append(same)
                records[file_id] = record(meta)
                continue
            try:
                made = (
                    fetch_document(api, meta, self.settings, self.scope)
                    if meta["mimeType"] in KINDS
                    else uploads.read(meta, old)
                )
            except GoogleApiError as exc:
                if exc.status == 404:
                    if records.pop(file_id, None) is not None or file_id in indexed:
                        skipped.append(
                            Skipped(
                                source_id=file_id,
                                gone=True,
                                reason=(f"404 {exc.reason}: deleted while being read"),
                            )
                        )
                    continue
                skipped.append(Skipped(source_id=file_id, reason=_refusal(exc, meta)))
                records[file_id] = record(meta, read=False)
            except CredentialRefused:
                raise
            except SourceError as exc:
                self._drive_answers(api)  # one bad file, or Drive itself down?
                skipped.append(Skipped(source_id=file_id, reason=_transient(exc, meta)))
                records[file_id] = record(meta, read=False)
            else:
                if isinstance(made, Skipped):
                    skipped.append(made)
                    verdict = uploads.verdicts.get(file_id)
                    records[file_id] = record(meta, read=verdict is not None, verdict=verdict)
                else:
                    documents.append(made)
                    records[file_id] = record(meta)
        return documents, skipped

    def _drive_answers(self, api: GoogleApi) -> None:
        """After a file outlasted the retries: a cheap request that raises SourceError (and
        so fails the run, changing nothing) when Drive itself is not answering."""
        api.call(api.changes.getStartPageToken(supportsAllDrives=True))


def _unchanged(meta: dict[str, Any], known: Known) -> Document | None:
    """The indexed document of a Doc, Sheet or Slides file whose Drive `version` (which every
    change moves, renames and moves included) is the one it was read at, unless the last
    pull could not read it; None when it must be exported again."""
    doc = known.documents.get(meta["id"])
    if (
        doc is None
        or meta["mimeType"] not in KINDS
        or meta["id"] in known.retry
        or STALE in doc.extra
        or not doc.version
        or doc.version != file_version(meta)
    ):
        return None
    return doc


def _plan_file(plan: ChangePlan, meta: dict[str, Any]) -> None:
    if has_content(meta):
        plan.fetch[meta["id"]] = meta


def _ordered(metas: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(metas, key=lambda m: m["id"])


def _named(meta: dict[str, Any] | None) -> str:
    return f" ({meta.get('name', '')!r})" if meta else ""


def _refusal(exc: GoogleApiError, meta: dict[str, Any] | None = None) -> str:
    return f"{exc.status} {exc.reason}: {exc.message}{_named(meta)}"


def _transient(exc: SourceError, meta: dict[str, Any] | None = None) -> str:
    return f"{str(exc).removeprefix('google_drive: ')}{_named(meta)}"


def _incomplete(
    listing: Listing,
    tree: FolderTree,
    recorded: Mapping[str, FileRecord],
    records: dict[str, FileRecord],
) -> list[Skipped]:
    """A folder Drive could not search completely: the files `recorded` below it and not seen
    now keep their last good version (and their records)."""
    skipped = []
    for folder in listing.incomplete:
        below = FolderTree([folder], tree.parents, lambda _: [])
        covers = sorted(
            f for f, rec in recorded.items() if f not in listing.files and below.holds(rec.parents)
        )
        records.update({f: recorded[f] for f in covers})
        skipped.append(
            Skipped(
                source_id=folder,
                covers=covers,
                reason=(
                    "Drive answered incompleteSearch even for this folder alone; its files may be "
                    "missing from this pull"
                ),
            )
        )
    return skipped
