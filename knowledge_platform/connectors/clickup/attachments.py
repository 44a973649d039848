"""ClickUp task attachments: each file of the `files` types (PDF, DOCX, PPTX, XLSX) on a task
is a document of its own (`attachment:<task id>:<attachment id>`, kind `attachment`), titled
by its file name and linked to its task's URL; its version is the attachment id (a new upload
is a new attachment), so a known attachment is never downloaded or converted again.

The attachments come with a task read: from the listed task if it carries them, else from
`GET /task/{id}` (Get Task documents the `attachments` array). An attachment gone from the
array is a confirmed deletion; a task deleted, archived or moved out takes its attachments
with it (tasks.py). A file is downloaded with the ClickUp token only from the API's host and
`attachment_hosts`; one linked from another service (Google Drive, Dropbox...) is listed once
as not indexed, as is a type the converter does not read. A file that cannot be converted
(encrypted, corrupt, over the cap by its listed `size`...) keeps its verdict in the cursor
and says it again, without a download, until the attachment is replaced or the `files`
settings change."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from knowledge_platform.connectors.base import Skipped
from knowledge_platform.connectors.clickup.cursor import AttachmentVerdict
from knowledge_platform.connectors.clickup.render import ms_to_date
from knowledge_platform.connectors.clickup.run import Outcome, Run
from knowledge_platform.convert.api import check_size, convert, supported
from knowledge_platform.errors import ConversionError, ConversionLimitError, SourceError
from knowledge_platform.models import LAST_REFRESHED, STALE, Document

PREFIX = "attachment:"


def attachment_sid(task_id: str, att_id: str) -> str:
    return f"{PREFIX}{task_id}:{att_id}"


def task_of(source_id: str) -> str | None:
    """The task an attachment document (or an `attachments:<task>` problem) belongs to."""
    for prefix in (PREFIX, "attachments:"):
        if source_id.startswith(prefix):
            return source_id[len(prefix) :].split(":", 1)[0]
    return None


def file_name(att: dict[str, Any]) -> str:
    """The attachment's title, with its extension when the title lacks it."""
    title = str(att.get("title") or att.get("id"))
    ext = str(att.get("extension") or "")
    return title if not ext or PurePosixPath(title).suffix else f"{title}.{ext}"


class AttachmentSync:
    def __init__(self, run: Run, verdicts: dict[str, AttachmentVerdict], out: Outcome) -> None:
        self.api, self.cfg, self.scope, self.full = run.api, run.api.cfg, run.scope, run.full
        self.known = {k: d for k, d in run.known.documents.items() if k.startswith(PREFIX)}
        self.retry = run.known.retry
        #: attachment source id -> what was not indexed, and why (the cursor's)
        self.verdicts = verdicts
        self.files_key = self.cfg.files.fingerprint()
        self.out = out
        self.read_tasks: set[str] = set()
        api_host = urlsplit(self.cfg.base_url).hostname or ""
        self.hosts = [api_host, *self.cfg.attachment_hosts]

    def of_task(self, task_id: str) -> list[str]:
        """Known attachment documents of a task."""
        return sorted(k for k in self.known if task_of(k) == task_id)

    def must_read(self, task_id: str) -> bool:
        """An attachment of this task failed last time for a reason a retry may cure."""
        return any(task_of(sid) == task_id and not self._settled(sid) for sid in self.retry)

    def _settled(self, sid: str) -> bool:
        """A verdict on this upload that holds until it is replaced (same `files` settings)."""
        verdict = self.verdicts.get(sid)
        return verdict is not None and verdict.files == self.files_key

    # -- one task ----------------------------------------------------------------------------
    def read(self, task: dict[str, Any]) -> None:
        """The task's attachments as they are now (the task was just read)."""
        tid = str(task["id"])
        found = task.get("attachments")
        if not isinstance(found, list):
            try:
                status, full = self.api.task(tid)
            except SourceError as exc:
                self._keep(tid, f"attachments: {exc}")
                return
            if full is None:  # gone since the listing: the next run's sweep decides
                self._keep(tid, f"attachments: GET /task/{tid} answered {status}")
                return
            found = full.get("attachments")
        self.read_tasks.add(tid)
        current = {
            attachment_sid(tid, str(a["id"])): a
            for a in found or []
            if isinstance(a, dict)
            and a.get("id")
            and not a.get("deleted")
            and not a.get("is_folder")
        }
        gone = [sid for sid in self.of_task(tid) if sid not in current]
        self.out.deleted.extend(gone)
        for sid in [s for s, v in self.verdicts.items() if v.task == tid]:
            if sid not in current:
                del self.verdicts[sid]
        for sid, att in sorted(current.items()):
            self._attachment(sid, att, task)

    def _attachment(self, sid: str, att: dict[str, Any], task: dict[str, Any]) -> None:
        name, mime = file_name(att), str(att.get("mimetype") or "")
        known = self.known.get(sid)
        if known is not None:
            doc = self._restamp(known, task)
            if self.full or doc != known:
                self.out.documents.append(doc)
            return
        seen = self.verdicts.get(sid)
        why_not = self._unsupported(att, name, mime)
        if why_not is not None:  # listed once, when first seen
            if seen is None or not seen.unsupported:
                self.out.skipped.append(Skipped(source_id=sid, reason=why_not, unsupported=True))
            self.verdicts[sid] = AttachmentVerdict(
                task=str(task["id"]), reason=why_not, unsupported=True
            )
            return
        if seen is not None and self._settled(sid):  # failed before, for a reason it still has
            self.out.skipped.append(Skipped(source_id=sid, reason=seen.reason))
            return
        limits = self.cfg.files.limits()
        try:
            check_size(_size(att), limits, name)
            data = self.api.http.get(str(att["url"]), max_bytes=limits.max_bytes).content
            converted = convert(data, mime, name, limits=limits)
        except ConversionError as exc:
            reason = str(exc) if str(exc).startswith(name) else f"{name}: {exc}"
            if not isinstance(exc, ConversionLimitError):  # a time limit may pass next time
                self.verdicts[sid] = AttachmentVerdict(
                    task=str(task["id"]), reason=reason, files=self.files_key
                )
            self.out.skipped.append(Skipped(source_id=sid, reason=reason))
            return
        except SourceError as exc:
            self.out.skipped.append(Skipped(source_id=sid, reason=f"{name}: {exc}"))
            return
        self.out.documents.append(
            Document(
                source="clickup",
                source_id=sid,
                scope=self.scope,
                title=name,
                text=converted.markdown,
                kind="attachment",
                url=self._task_url(task),
                date=ms_to_date(att.get("date")),
                version=str(att["id"]),
                confidentiality=self.cfg.confidentiality,
                extra={
                    "task_id": task["id"],
                    "task_name": str(task.get("name") or ""),
                    "file_name": name,
                    "mime_type": converted.mime_type,
                    "units": converted.units,
                    "size": len(data),
                },
            )
        )

    def _unsupported(self, att: dict[str, Any], name: str, mime: str) -> str | None:
        host = urlsplit(str(att.get("url") or "")).hostname or ""
        if not any(host == h or host.endswith(f".{h}") for h in self.hosts if h):
            return f"{name}: linked from {host or 'nowhere'}, not a ClickUp upload; not downloaded"
        if self.cfg.files.format_of(mime, name) is not None:
            return None
        shown = mime or f".{att.get('extension') or '?'}"
        if supported(mime, name):
            return f"{name}: {shown} is not in files.types"
        return f"{name}: {shown} is not a type the converter reads"

    def _keep(self, task_id: str, reason: str) -> None:
        """The task's attachments could not be listed: keep what is indexed of them."""
        self.out.skipped.append(
            Skipped(source_id=f"attachments:{task_id}", reason=reason, covers=self.of_task(task_id))
        )

    # -- after every task --------------------------------------------------------------------
    def settle(self) -> None:
        """Attachments follow their tasks: deleted, missing, or kept when the task is; a
        failed attachment of a task not read this run says its verdict again."""
        self.out.deleted.extend(self._tasks_of(self.out.deleted))
        self.out.missing.extend(self._tasks_of(self.out.missing))
        for i, skip in enumerate(self.out.skipped):
            covers = self._tasks_of([skip.source_id, *skip.covers])
            if covers:
                self.out.skipped[i] = skip.model_copy(
                    update={"covers": sorted({*skip.covers, *covers})}
                )
        for sid in sorted(self.retry):
            if self._settled(sid) and task_of(sid) not in self.read_tasks:
                self.out.skipped.append(Skipped(source_id=sid, reason=self.verdicts[sid].reason))
        gone = _tasks([*self.out.deleted, *(s.source_id for s in self.out.skipped if s.gone)])
        self.verdicts = {k: v for k, v in self.verdicts.items() if v.task not in gone}

    def _restamp(self, doc: Document, task: dict[str, Any]) -> Document:
        """A known attachment's document with its task's current name and URL."""
        extra = {k: v for k, v in doc.extra.items() if k not in (STALE, LAST_REFRESHED)}
        extra["task_name"] = str(task.get("name") or "")
        return doc.model_copy(update={"url": self._task_url(task), "extra": extra})

    def _task_url(self, task: dict[str, Any]) -> str:
        return str(task.get("url") or f"{self.cfg.app_url}/t/{task['id']}")

    def _tasks_of(self, ids: list[str]) -> list[str]:
        """Known attachments of these ids' tasks not handled by a read of their task."""
        tasks = _tasks(ids)
        return [
            sid
            for sid in self.known
            if task_of(sid) in tasks and task_of(sid) not in self.read_tasks
        ]


def _tasks(ids: list[str]) -> set[str]:
    """The task ids among document and problem ids."""
    return {i for i in ids if not i.startswith(("doc:", PREFIX, "list:", "attachments:"))}


def _size(att: dict[str, Any]) -> int | None:
    try:
        return int(att["size"])
    except (KeyError, TypeError, ValueError):
        return None
