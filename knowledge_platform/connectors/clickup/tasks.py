"""ClickUp tasks of one scope, every run: the id sweep, verification of what vanished, and the
comment threads worth reading again.

- Sweep: every list of the scope is listed whole (open, closed, subtasks, tasks living in
  several lists; paged to `last_page`). ClickUp has no listing of ids alone, so the sweep is
  also how edits are found: a task is read again when it is new, its `date_updated` moved,
  the last run failed on it, or it was recently active (below).
- Vanished: a known task the sweep no longer shows is looked up with `GET /task/{id}` (at most
  `max_verifications` a run, shared with docs): 404 or archived -> deleted (confirmed); now
  in a list outside the scope -> removed from this scope (confirmed); still in the scope ->
  read; anything else, or over the budget -> `missing` (inferred, under the deletion guard).
- Comment threads: a new comment or reply does not move the task's `date_updated`, so the
  threads of tasks active within `comment_window_days` of the newest activity the workspace
  shows are read again every run (at most `max_thread_rereads`, least recently read first),
  and the quieter tasks' threads in turn, `quiet_thread_rereads` a run (least recently read
  first): a comment on a quiet task is seen within ceil(quiet tasks / that) ordinary runs.
- Renamed containers: the listing gives each task its list's current name, which the
  document's status line shows; a task whose line changed without a new `date_updated` is
  re-rendered from its indexed document (render.with_current_facts), no request needed.
- A list whose listing fails keeps its tasks (stale); a task whose comments fail keeps its
  last good version (stale); comments answering 404 mean the task is gone.
- Attachments (attachments.py) are read with their task and follow it: deleted, missing or
  kept when it is."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from knowledge_platform.connectors.base import Skipped
from knowledge_platform.connectors.clickup.api import TaskGone
from knowledge_platform.connectors.clickup.attachments import PREFIX, AttachmentSync
from knowledge_platform.connectors.clickup.containers import Containers
from knowledge_platform.connectors.clickup.cursor import AttachmentVerdict
from knowledge_platform.connectors.clickup.render import (
    MalformedTask,
    check_task,
    task_document,
    with_current_facts,
)
from knowledge_platform.connectors.clickup.run import Outcome, Run
from knowledge_platform.errors import SourceError

DAY_MS = 86_400_000


class TaskSync:
    def __init__(self, run: Run, threads_read: dict[str, int], run_no: int,
                 verdicts: dict[str, AttachmentVerdict]) -> None:  # fmt: skip
        self.api, self.cfg, self.scope = run.api, run.api.cfg, run.scope
        self.containers, self.known, self.full = run.containers, run.known, run.full
        self.budget = run.budget
        self.known_tasks = {k: d for k, d in run.known.documents.items()
                            if not k.startswith(("doc:", PREFIX))}  # fmt: skip
        self.threads_read, self.run_no = threads_read, run_no
        self.out = Outcome()
        self.attachments = AttachmentSync(run, verdicts, self.out)
        #: tasks whose attachments this run reads
        self._attachments_of: set[str] = set()
        self._widened = False

    def pull(self) -> Outcome:
        listed, covered = self._sweep()
        vanished = sorted(self.known_tasks.keys() - listed.keys() - covered)
        confirmed_alive = self._verify(vanished, listed)
        activity = {t: self._activity(t, raw) for t, raw in listed.items()}
        since = max(activity.values(), default=0) - self.cfg.comment_window_days * DAY_MS
        recent = [t for t in listed if activity[t] >= since]
        chosen = self._to_read(listed, confirmed_alive, recent, activity)
        for tid in chosen:
            self._read(tid, listed[tid], tid in self._attachments_of)
        self._refresh_facts(listed, set(chosen))
        self.threads_read = {t: n for t, n in self.threads_read.items() if t in listed}
        if self.cfg.attachments:
            self.attachments.settle()
        return self.out

    def pull_ids(
        self, ids: Collection[str], said_deleted: Collection[str], wider: Callable[[], Containers]
    ) -> Outcome:
        """Only these tasks, each read with `GET /task/{id}` (webhooks named them): 404 or
        archived -> deleted (confirmed); in a list outside the scope -> removed from it
        (`wider()` resolves the scope's containers again first, for a list new since the last
        run); else read with its thread and attachments. A task the source said it deleted
        (taskDeleted) that cannot be looked up now is deleted on that word; any other failed
        lookup keeps the task (stale) for the next run."""
        for tid in sorted(ids):
            try:
                status, task = self.api.task(tid)
            except SourceError as exc:
                self._unread(tid, str(exc), said_deleted)
                continue
            if status == 404 or (task is not None and task.get("archived")):
                self.out.deleted.append(tid)
            elif task is None:
                self._unread(tid, f"GET /task/{tid} answered {status}", said_deleted)
            elif self.containers.holds_task(task) or self._widen(task, wider):
                self._read(tid, task, self.cfg.attachments)
            elif tid in self.known_tasks:
                self.out.deleted.append(tid)  # moved out of the scope
        if self.cfg.attachments:
            self.attachments.settle()
        return self.out

    def _unread(self, tid: str, reason: str, said_deleted: Collection[str]) -> None:
        if tid in said_deleted:
            self.out.deleted.append(tid)
        elif tid in self.known_tasks:
            self.out.skipped.append(Skipped(source_id=tid, reason=reason))

    def _widen(self, task: dict[str, Any], wider: Callable[[], Containers]) -> bool:
        """Whether the task is in the scope by its containers resolved afresh (once a run);
        raises SourceError when the hierarchy cannot be read (the run fails, nothing lost)."""
        if not self._widened:
            self.containers = wider()
            self._widened = True
        return self.containers.holds_task(task)

    # -- the sweep ---------------------------------------------------------------------------
    def _sweep(self) -> tuple[dict[str, dict[str, Any]], set[str]]:
        """(listed tasks by id, ids not to look up: listed but malformed (reported), or known
        and kept because their list could not be read)."""
        listed: dict[str, dict[str, Any]] = {}
        failed: dict[str, str] = {}
        covered: set[str] = set()
        for list_id in self.containers.lists:
            try:
                found = list(self.api.tasks(list_id))
            except SourceError as exc:
                failed[list_id] = str(exc)
                continue
            for raw in found:
                try:
                    tid, _ = check_task(raw)
                except MalformedTask as exc:
                    sid = str(raw.get("id") or "?") if isinstance(raw, dict) else "?"
                    self.out.skipped.append(Skipped(source_id=sid, reason=f"list {list_id}: {exc}"))
                    covered.add(sid)
                    continue
                if not raw.get("archived"):  # archived counts as removed
                    listed.setdefault(tid, raw)  # a task in several lists counts once
        if failed and len(failed) == len(self.containers.lists):
            raise SourceError(next(iter(failed.values())))
        for list_id, reason in failed.items():
            ids = sorted(t for t, d in self.known_tasks.items()
                         if d.extra.get("list_id") == list_id and t not in listed)  # fmt: skip
            covered.update(ids)
            self.out.skipped.append(Skipped(source_id=f"list:{list_id}", reason=reason,
                                            covers=ids))  # fmt: skip
        return listed, covered

    def _verify(self, vanished: list[str], listed: dict[str, dict[str, Any]]) -> set[str]:
        """Look up known tasks the sweep did not show; returns the ids still in the scope."""
        alive: set[str] = set()
        for tid in vanished:
            if not self.budget.take():
                self.out.missing.append(tid)
                continue
            try:
                status, task = self.api.task(tid)
            except SourceError:
                self.out.missing.append(tid)
                continue
            if status == 404 or (
                task is not None and (task.get("archived") or not self.containers.holds_task(task))
            ):
                self.out.deleted.append(tid)
            elif task is None:  # 401/403: cannot see it, which proves nothing
                self.out.missing.append(tid)
            else:
                listed[tid] = task
                alive.add(tid)
        return alive

    # -- reading -----------------------------------------------------------------------------
    def _to_read(self, listed: dict[str, dict[str, Any]], alive: set[str], recent: list[str],
                 activity: dict[str, int]) -> list[str]:  # fmt: skip
        """Every task on a full pull (or when no comments are read: rendering is free); else
        the new, changed, retried and looked-up ones, then recently active ones in turn, then
        quiet ones in turn. The attachments of all but the quiet ones (not of every task
        rendered for free) are read too."""
        must = [t for t, raw in listed.items()
                if self.full or t in alive or t in self.known.retry or t not in self.known_tasks
                or self.known_tasks[t].version != str(raw.get("date_updated"))
                or (self.cfg.attachments and self.attachments.must_read(t))]  # fmt: skip
        if self.full or not self.cfg.max_comments:
            self._attachments_of = set(must)
            return list(listed)
        chosen = set(must)
        turns = [t for t in recent if t not in chosen]
        turns.sort(key=lambda t: (self.threads_read.get(t, -1), -activity[t]))
        recent_set = set(recent)
        quiet = [t for t in listed if t not in chosen and t not in recent_set]
        quiet.sort(key=lambda t: (self.threads_read.get(t, -1), -activity[t]))
        picked = [*must, *turns[: self.cfg.max_thread_rereads]]
        self._attachments_of = set(picked)
        return [*picked, *quiet[: self.cfg.quiet_thread_rereads]]

    def _refresh_facts(self, listed: dict[str, dict[str, Any]], chosen: set[str]) -> None:
        """Tasks not read this run whose status line changed (a renamed list): re-rendered
        from their indexed document, or read whole when that cannot be done."""
        for tid, raw in listed.items():
            known = self.known_tasks.get(tid)
            if tid in chosen or known is None:
                continue
            try:
                doc = with_current_facts(known, raw)
            except (TypeError, ValueError, KeyError, AttributeError):
                continue  # malformed: it keeps its document until it is read again
            if doc is None:
                self._read(tid, raw, False)
            elif doc is not known:
                self.out.documents.append(doc)

    def _activity(self, tid: str, raw: dict[str, Any]) -> int:
        comment_ms = self.known_tasks[tid].extra.get("comment_ms") if tid in self.known_tasks else 0
        return max(_ms(raw.get("date_updated")), _ms(comment_ms))

    def _read(self, tid: str, raw: dict[str, Any], attachments: bool) -> None:
        thread: list[dict[str, Any]] = []
        if self.cfg.max_comments:
            try:
                thread = self.api.thread(tid)
            except TaskGone:
                self.out.skipped.append(
                    Skipped(source_id=tid, reason="its comments answer 404: deleted", gone=True)
                )
                return
            except SourceError as exc:
                self.out.skipped.append(Skipped(source_id=tid, reason=f"comments: {exc}"))
                return
            self.threads_read[tid] = self.run_no
        try:
            doc = task_document(self.cfg, self.scope, raw, thread)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            self.out.skipped.append(Skipped(source_id=tid, reason=f"cannot render task: {exc}"))
            return
        if self.full or self.known_tasks.get(tid) != doc:
            self.out.documents.append(doc)
        if self.cfg.attachments and attachments:
            self.attachments.read(raw)


def _ms(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0
