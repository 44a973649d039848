"""Markdown documents (runbooks, decision records, docs) from a git repository, at any commit.

Files are read from the commit's tree (`git ls-tree` + `git cat-file --batch`), never from a
checkout, so `at_sha` can rebuild the index exactly as it was. The cursor holds the indexed
sha: an incremental pull is `git diff --name-status <old> <new>`; the same sha is no work.
Files are decoded as strict UTF-8: a file that is not (or holds NUL bytes) is skipped with a
reason rather than indexed as replacement characters.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from knowledge_platform.connectors.base import (
    NOTHING_KNOWN,
    Connector,
    Known,
    PullResult,
    Skipped,
    SourceSettings,
)
from knowledge_platform.connectors.cursor import BaseCursor
from knowledge_platform.connectors.git_docs.files import BLOB, convert_blob, reusable
from knowledge_platform.connectors.git_docs.repo import GitRepo, TreeEntry, glob_regex, is_url
from knowledge_platform.connectors.git_docs.settings import SHA, GitDocsSettings
from knowledge_platform.convert.result import Format
from knowledge_platform.dating import document_time, stated_review, usual_order
from knowledge_platform.errors import ConfigError
from knowledge_platform.frontmatter import (
    FrontMatterError,
    choice,
    confidentiality,
    lifecycle,
    split_front_matter,
)
from knowledge_platform.models import Document, Kind, Lifecycle
from knowledge_platform.supersession import names, stated_links

DECISION_STATUS = ("proposed", "accepted", "superseded", "deprecated", "rejected")
_STATUS_LIFECYCLE: dict[str, Lifecycle] = {
    "proposed": "draft",
    "superseded": "deprecated",
    "deprecated": "deprecated",
    "rejected": "deprecated",
}
_FILE_KINDS: tuple[Kind, ...] = ("doc", "runbook", "decision")
_STANDING_KINDS: tuple[Kind, ...] = ("runbook", "decision")
LINK_KEYS = ("supersedes", "superseded_by", "applies_to", "references", "tags")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def _paragraph(lines: list[str]) -> str:
    """The first paragraph of text (not a heading) in `lines`, joined onto one line."""
    para: list[str] = []
    for line in lines:
        if _HEADING.match(line) or not line.strip():
            if para:
                break
            continue
        para.append(line.strip())
    return " ".join(para)[:500]


def _section(lines: list[str], name: re.Pattern[str]) -> list[str] | None:
    """Lines of the first section whose heading matches `name`, up to the next heading."""
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if m and name.fullmatch(m.group(2).strip()):
            rest = lines[i + 1 :]
            end = next((j for j, r in enumerate(rest) if _HEADING.match(r)), len(rest))
            return rest[:end]
    return None


def _madr_status(lines: list[str]) -> str | None:
    """MADR style: a "Status" section whose first word says it."""
    words = _paragraph(_section(lines, re.compile(r"status", re.I)) or []).split()
    first = words[0].strip(".,:;*_").lower() if words else ""
    return first if first in DECISION_STATUS else None


class GitCursor(BaseCursor):
    #: The commit the index was built from ("": none yet).
    sha: str = ""
    #: Fingerprint of the settings that shape the documents; another one pulls in full.
    config: str = ""

    def revision(self) -> str | None:
        return self.sha or None

    def probe_token(self) -> str | None:
        return self.sha


class GitDocsConnector(Connector[GitCursor]):
    name = "git_docs"
    settings_model = GitDocsSettings
    cursor_model = GitCursor

    def __init__(self, settings: SourceSettings, scope: str) -> None:
        if not isinstance(settings, GitDocsSettings):
            raise ConfigError("git_docs needs GitDocsSettings")
        super().__init__(settings, scope)
        self.config = settings
        self._include = [(glob_regex(g), _fixed(g)) for g in settings.globs]
        self._exclude = [glob_regex(g) for g in settings.exclude_globs]
        self._foreign = [(glob_regex(g), _fixed(g)) for g in settings.foreign_globs()]
        # Settings that change what a pull produces: a new value forces a full pull.
        shape = settings.model_dump_json(
            exclude={"branch", "at_sha", "cache_dir", "timeout_seconds"}
        ) + "\n".join(settings.foreign_globs())
        self._fingerprint = hashlib.sha256(shape.encode()).hexdigest()[:16]

    def wanted(self, path: str) -> bool:
        return self._own(path) is not None and not self.claimed_elsewhere(path)

    def _own(self, path: str) -> int | None:
        """How narrowly this scope's globs name `path` (their literal prefix), or None."""
        if any(r.match(path) for r in self._exclude):
            return None
        return max((fixed for r, fixed in self._include if r.match(path)), default=None)

    def claimed_elsewhere(self, path: str) -> bool:
        """This scope's globs name `path`, and another scope's (same repository) name it more
        narrowly: `handbook/**` in internal leaves `handbook/clients/acme/**` to acme."""
        own = self._own(path)
        return own is not None and any(r.match(path) and fixed > own for r, fixed in self._foreign)

    def pull(
        self, cursor: GitCursor | None, *, full: bool = False, known: Known = NOTHING_KNOWN
    ) -> PullResult[GitCursor]:
        cfg = self.config
        if cfg.at_sha and not SHA.match(cfg.at_sha):  # model_copy(update=...) skips validation
            raise ConfigError(f"git_docs at_sha {cfg.at_sha!r} is not a commit sha (hex digits)")
        repo = GitRepo.open(
            cfg.repo, Path(cfg.cache_dir) if cfg.cache_dir else None, cfg.timeout_seconds
        )
        head = repo.resolve(cfg.at_sha or cfg.branch)
        new_cursor = GitCursor(sha=head, config=self._fingerprint)
        old = cursor.sha if cursor is not None else ""
        if full or not old or cursor is None or cursor.config != self._fingerprint:
            return self._full(repo, head, new_cursor, known.documents)
        if old == head:
            return PullResult(documents=[], full=False, cursor=new_cursor, requests=repo.commands)
        if not repo.has_commit(old):  # history rewritten and collected: start over
            return self._full(repo, head, new_cursor, known.documents)
        changes = [(s, p) for s, p in repo.diff(old, head) if self.wanted(p)]
        deleted = {p for s, p in changes if s == "D"}
        changed = {p for s, p in changes if s != "D"}
        entries = [e for e in repo.tree(head) if e.path in changed]
        # A changed file that no longer yields a document (not UTF-8, broken front matter)
        # is skipped: its last good version stays, marked stale, as in a full pull.
        documents, skipped = self._documents(repo, head, entries, known.documents)
        return PullResult(
            documents=documents,
            full=False,
            deleted=sorted(deleted),
            skipped=skipped,
            cursor=new_cursor,
            requests=repo.commands,
        )

    def change_token(self, cursor: GitCursor | None) -> str | None:
        """The sha the branch points at now (a clone URL is fetched first)."""
        cfg = self.config
        repo = GitRepo.open(
            cfg.repo, Path(cfg.cache_dir) if cfg.cache_dir else None, cfg.timeout_seconds
        )
        return repo.resolve(cfg.at_sha or cfg.branch)

    def _full(
        self, repo: GitRepo, head: str, cursor: GitCursor, known: Mapping[str, Document]
    ) -> PullResult[GitCursor]:
        tree = [e for e in repo.tree(head) if e.type == "blob"]
        entries = [e for e in tree if self.wanted(e.path)]
        documents, skipped = self._documents(repo, head, entries, known)
        # Files another scope's globs now name more narrowly: theirs, on the registry's word.
        claimed = sorted(e.path for e in tree if e.path in known and self.claimed_elsewhere(e.path))
        return PullResult(
            documents=documents,
            full=True,
            deleted=claimed,
            skipped=skipped,
            cursor=cursor,
            requests=repo.commands,
        )

    def _documents(
        self, repo: GitRepo, head: str, entries: list[TreeEntry], known: Mapping[str, Document]
    ) -> tuple[list[Document], list[Skipped]]:
        skipped: list[Skipped] = []
        readable: list[TreeEntry] = []
        documents: list[Document] = []
        files = self.config.files
        for entry in entries:
            is_file = files.format_of_name(entry.path) is not None
            cap = files.max_bytes if is_file else self.config.max_file_bytes
            if entry.type != "blob" or entry.mode == "120000":
                skipped.append(Skipped(source_id=entry.path, reason="not a regular file"))
            elif (entry.size or 0) > cap:
                skipped.append(
                    Skipped(
                        source_id=entry.path, reason=f"{entry.size} bytes, over the {cap}-byte cap"
                    )
                )
            elif is_file and (same := reusable(known, entry.path, entry.object, head)):
                documents.append(same)  # this blob was converted before: never again
            else:
                readable.append(entry)
        blobs = repo.read_blobs(sorted({e.object for e in readable}))
        commits = repo.last_commits(head, {e.path for e in readable})
        # a day in figures a file leaves open (6/8/2026) is read as the files read with it
        # write theirs (on an incremental pull, the changed files)
        order = usual_order(
            blobs.get(e.object, b"").decode("utf-8", "replace")
            for e in readable
            if files.format_of_name(e.path) is None  # its markdown, not a converted file's bytes
        )
        for entry in sorted(readable, key=lambda e: e.path):
            commit, when = commits.get(entry.path, (head, ""))
            data = blobs.get(entry.object, b"")
            fmt = files.format_of_name(entry.path)
            result = (
                self._file_document(entry, data, fmt, commit, when, head)
                if fmt
                else self._document(entry.path, data, commit, when, head, order)
            )
            if isinstance(result, Skipped):
                skipped.append(result)
            else:
                documents.append(result)
        return documents, skipped

    def _provenance(self, path: str, commit: str, when: str, head: str) -> dict[str, Any]:
        extra: dict[str, Any] = {
            "path": path,
            "commit": commit,
            "head_sha": head,
            "repo": _display(self.config.repo),
        }
        if when:
            extra["updated"] = dt.datetime.fromisoformat(when).date().isoformat()
        return extra

    def _url(self, path: str, commit: str, head: str) -> str | None:
        template = self.config.url_template
        return template.format(sha=commit, head=head, path=path) if template else None

    def _file_document(
        self, entry: TreeEntry, data: bytes, fmt: Format, commit: str, when: str, head: str
    ) -> Document | Skipped:
        """A PDF/DOCX/PPTX/XLSX file: converted, one section per page, slide or sheet."""
        result = convert_blob(entry.path, data, fmt, self.config.files)
        if isinstance(result, Skipped):
            return result
        converted, file_extra = result
        extra = {
            **self._provenance(entry.path, commit, when, head),
            **file_extra,
            BLOB: entry.object,
        }
        rule = self._kind(entry.path)
        return Document(
            source=self.name,
            source_id=entry.path,
            scope=self.scope,
            title=PurePosixPath(entry.path).stem,
            text=converted.markdown,
            kind=rule if rule != self.config.default_kind else converted.kind,
            url=self._url(entry.path, commit, head),
            uri=f"doc://git_docs/{entry.path}@{commit}",
            date=dt.date.fromisoformat(extra["updated"]) if "updated" in extra else None,
            version=commit,
            trust=self.config.trust,
            confidentiality=self.config.confidentiality,
            extra=extra,
        )

    def _kind(self, path: str) -> Kind:
        for prefix, kind in self.config.kind_rules.items():
            if path.startswith(prefix) or f"/{prefix}" in path:
                return kind
        return self.config.default_kind

    def _document(
        self,
        path: str,
        data: bytes,
        commit: str,
        when: str,
        head: str,
        day_first: bool | None = None,
    ) -> Document | Skipped:
        def skip(reason: str) -> Skipped:
            return Skipped(source_id=path, reason=reason)

        if b"\0" in data[:8192]:
            return skip("binary file (NUL bytes)")
        try:
            text = data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError as exc:
            return skip(f"not valid UTF-8 (byte {exc.start})")
        try:
            meta, body = split_front_matter(text)
            kind: Kind = choice(meta, "kind", _FILE_KINDS, self._kind(path))
            lines = body.split("\n")
            status = (
                choice(meta, "status", DECISION_STATUS, None) or _madr_status(lines)
                if kind == "decision"
                else None
            )
            stage = lifecycle(meta, _STATUS_LIFECYCLE.get(status or "", "stable"))
            level = confidentiality(meta, self.config.confidentiality)
        except FrontMatterError as exc:
            return skip(str(exc))
        heading = next(
            (m.group(2) for line in lines if (m := _HEADING.match(line)) and len(m.group(1)) == 1),
            None,
        )
        title = str(meta.get("title") or heading or PurePosixPath(path).stem)
        extra = self._provenance(path, commit, when, head)
        extra.update(stated_links(body))  # front matter wins over the preamble's words
        extra.update({key: names(meta[key]) for key in LINK_KEYS if key in meta})
        if kind == "decision":
            decision = _section(lines, re.compile(r"decision( outcome)?", re.I))
            summary = _paragraph(decision) if decision else ""
            extra["decision"] = {"status": status, "summary": summary or _paragraph(lines)}
        url = self._url(path, commit, head)
        committed = dt.date.fromisoformat(extra["updated"]) if "updated" in extra else None
        # Runbooks and decision records stand until changed; a dated note in the repository
        # (a log kept in git) is an event like a memory file's.
        said, time_kind = document_time(
            meta,
            PurePosixPath(path).name,
            heading,
            known=committed,
            standing=kind in _STANDING_KINDS,
            stated=stated_review(body, day_first),
            body=body,
            day_first=day_first,
        )
        return Document(
            source=self.name,
            source_id=path,
            scope=self.scope,
            title=title,
            text=body,
            kind=kind,
            url=url,
            uri=f"doc://git_docs/{path}@{commit}",
            date=said,
            time_kind=time_kind,
            version=commit,
            lifecycle=stage,
            trust=self.config.trust,
            confidentiality=level,
            extra=extra,
        )


def _fixed(glob: str) -> int:
    """Length of a glob's literal prefix (before its first wildcard): how narrow it is."""
    return next((i for i, c in enumerate(glob) if c in "*?["), len(glob))


def _display(repo: str) -> str:
    """The repository as shown in provenance: a URL without any user or password in it."""
    if not is_url(repo) or "://" not in repo:
        return repo
    parts = urlsplit(repo)
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[-1]))
