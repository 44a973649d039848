"""What each tool does, given the caller's grant and validated arguments. Every store call
names exactly one scope, already checked against the grant, and carries the grant's
confidentiality condition so filtering happens inside the store query."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any

from knowledge_platform.config.registry import INTERNAL, Registry
from knowledge_platform.dating import CHANGE, REPORT_DAYS, reports_on
from knowledge_platform.errors import AccessDeniedError, ConfigError
from knowledge_platform.models import LIFECYCLES, Chunk, Hit
from knowledge_platform.runtime import Runtime
from knowledge_platform.serve.access import Grant, shown
from knowledge_platform.serve.answers.ask import answer_question
from knowledge_platform.serve.answers.contract import Answer
from knowledge_platform.serve.answers.currency import (
    answering_first,
    current_first,
    newer_values_first,
)
from knowledge_platform.serve.answers.glossary import abbreviated, synonyms
from knowledge_platform.serve.answers.relevance import asks_event
from knowledge_platform.serve.decisions import DECISION_KINDS, decisions_from_chunks
from knowledge_platform.serve.querylog import QueryLog
from knowledge_platform.serve.question import (
    Question,
    understand,
    without_workplace,
    workplace_names,
)
from knowledge_platform.serve.references import (
    hidden_note,
    item_hits,
    named_current,
    named_documents,
    successor_note,
    successors,
    title_of,
)
from knowledge_platform.store.base import SearchFilter
from knowledge_platform.supersession import names
from mcp_service.blocked import deadline_seconds
from mcp_service.dagster_client import DagsterClient, DagsterUnavailable
from mcp_service.dagster_models import IndexStatus, Pair
from mcp_service.dagster_parse import indexing
from mcp_service.documents import assemble, select_context
from mcp_service.schemas import (
    ContextBlock,
    ContextResult,
    DecisionList,
    DocumentResult,
    MemoryEntry,
    MemoryList,
    ReindexResult,
    RunbookEntry,
    RunbookList,
    SearchHit,
    SearchResult,
)

GIT_DOCS = "git_docs"
ASK_HITS = 6
#: Statements of change looked up beside every search (see answers/currency.py); one that
#: supersedes none of the hits ranks after them. A day's log is one chunk per entry, so six
#: of them are six hand-overs, price rises or moves, not six days.
CHANGE_HITS = 6
#: What was said within the window a question names, looked up beside the standing texts in
#: force then ("Who did we hire in March?" is answered by March's log, not the team page).
#: A log posts a week's figures one list item a chunk, so its running total ("Q4 to date
#: (BQE): 3,144.25 hrs") may be the eighth of the window's entries.
WINDOW_HITS = 8
CONTEXT_HITS = 8
#: A question after the latest value ("Latest Velvetine SOV?", "What's our open rate now?")
#: also searches what was said in the last LATELY_DAYS.
LATELY_DAYS = 60
_ASKS_LATEST = re.compile(
    r"\b(?:latest|most\s+recent|lately|these\s+days|at\s+the\s+moment|right\s+now|now)\b", re.I
)
MEMORY_CHARS = 1000
MEMORY_ENTRIES = 50


def _report_days(
    start: dt.date | None, end: dt.date | None, today: dt.date
) -> dict[str, Any] | None:
    """The days just after a past window, when what happened in it is reported
    (`dating.reports_on`), as a filter's dates; None for a window that has not ended."""
    if end is None or end >= today:
        return None
    return {
        "in_force": False,
        "date_from": end + dt.timedelta(days=1),
        "date_to": min(today, end + dt.timedelta(days=REPORT_DAYS)),
    }


class KnowledgeService:
    def __init__(self, runtime: Runtime, dagster: DagsterClient, log: QueryLog) -> None:
        self.runtime = runtime
        self.dagster = dagster
        self.log = log

    @property
    def registry(self) -> Registry:
        """The runtime's registry: when it follows the file, as of this call's check (the
        caller's grant was resolved from the same check)."""
        return self.runtime.registry

    # -- helpers ------------------------------------------------------------------------------
    def _filter(
        self,
        grant: Grant,
        *,
        lifecycles: list[str] | None,
        sources: list[str] | None = None,
        kinds: list[str] | None = None,
        doc_ids: list[str] | None = None,
        date_from: dt.date | None = None,
        date_to: dt.date | None = None,
    ) -> SearchFilter:
        return SearchFilter(
            lifecycles=lifecycles,
            confidentiality=grant.confidentiality,
            sources=sources,
            kinds=kinds,
            doc_ids=doc_ids,
            date_from=date_from,
            date_to=date_to,
        )

    def _search(
        self, grant: Grant, scope: str, query: str, limit: int, flt: SearchFilter
    ) -> list[Hit]:
        return self._search_each(grant, scope, query, [(limit, flt)])[0]

    def _search_each(
        self,
        grant: Grant,
        scope: str,
        query: str,
        searches: list[tuple[int, SearchFilter]],
        words: str = "",
    ) -> list[list[Hit]]:
        """The top hits under each (limit, filter), from one store call."""
        found = self.runtime.retriever.search_each(scope, query, searches, words=words)
        return [[h for h in hits if h.chunk.scope == scope] for hits in found]  # defence in depth

    def _related(
        self, grant: Grant, scope: str, text: str, limit: int, flt: SearchFilter
    ) -> list[Hit]:
        """The hits for an answer's own sentence: the best `limit`, then the best
        CHANGE_HITS statements of change the plain search left out (a log line that hands the
        sentence's client over, or reprices its tool, shares few of its words with the
        question but some with the sentence)."""
        since = {"date_from": None} if flt.in_force else {}
        changes = flt.model_copy(update={"marks": [CHANGE], "dated": True, **since})
        plain, said = self._search_each(grant, scope, text, [(limit, flt), (CHANGE_HITS, changes)])
        seen = {h.chunk.id for h in plain}
        return [*plain, *(h for h in said if h.chunk.id not in seen)]

    def _record(self, grant: Grant, scope: str, tool: str, query: str, hits: list[Hit]) -> None:
        self.log.append(
            principal=grant.principal,
            scope=scope,
            tool=tool,
            query=query,
            hits=len(hits),
            top_score=hits[0].score if hits else None,
        )

    def _no_sources(self, scope: str) -> str | None:
        """What to do about a scope the registry feeds from no source, if it is one."""
        if self.registry.sources_for(scope):
            return None
        where = "internal" if scope == "internal" else f"clients.{scope}"
        return (
            f"scope '{scope}' has no sources yet: add one under {where}.sources in the "
            f"registry ({self.runtime.settings.config.name}), e.g. `memory_files: "
            "{path: <folder>}`; under `kp up` the registry sensor then indexes it"
        )

    def _no_index(self, scope: str) -> list[str]:
        if self.runtime.store.info(scope) is not None:
            return []
        if hint := self._no_sources(scope):
            return [hint]
        if running := self._indexing(scope):
            return [f"scope '{scope}' has no index yet: {running}; search again when it finishes"]
        return [f"scope '{scope}' has no index yet; ask an admin to run trigger_reindex"]

    def _indexing(self, scope: str) -> str | None:
        """'indexing since …, run …' while the scope's first runs are queued or running;
        None when none is, or Dagster cannot say."""
        try:
            return indexing(self.dagster.in_flight(scope))
        except DagsterUnavailable:
            return None

    def _nothing(self, scope: str, read: Read) -> list[str]:
        """Why nothing was found: no index, or nothing dated inside the question's window."""
        missing = self._no_index(scope)
        dates = read.question.dates
        if missing or dates is None:
            return missing
        words = f"'{dates.text}', " if dates.text else ""
        return [
            f"nothing dated {words}{dates.date_from or '…'} to {dates.date_to or '…'} "
            "matched; pass date_from/date_to to widen the window"
        ]

    def _check_sources(self, sources: Sequence[str] | None) -> None:
        known = self.registry.sources
        for source in sources or []:
            if source not in known:
                raise ConfigError(
                    f"unknown source {shown(source)}; configured sources: "
                    f"{', '.join(known) or 'none'}"
                )

    def _named(
        self, grant: Grant, scope: str, text: str, flt: SearchFilter, hits: list[Hit]
    ) -> tuple[list[Hit], list[str]]:
        """Hits of the documents `text` names — current ones and those `flt` hides by
        lifecycle (drafts, deprecated: each with a note saying why it is shown) — then the
        best hits of the documents that supersede them."""
        retriever, store = self.runtime.retriever, self.runtime.store
        current = named_current(retriever, store, scope, text, flt, hits)
        notes: list[str] = []
        hidden_hits: list[Hit] = []
        hidden = [x for x in LIFECYCLES if x not in (flt.lifecycles or LIFECYCLES)]
        if hidden:
            found = named_documents(
                retriever, store, scope, text, flt.model_copy(update={"lifecycles": hidden})
            )
            hidden_hits = [h for h in found if h.chunk.scope == scope]
            firsts: dict[str, Chunk] = {}
            for hit in hidden_hits:
                firsts.setdefault(hit.chunk.doc_id, hit.chunk)
            notes = [
                hidden_note(c, self._title(grant, scope, c.successor)) for c in firsts.values()
            ]
        named = [h for h in [*current, *hidden_hits] if h.chunk.scope == scope]
        later = successors(retriever, scope, text, flt, named)
        return [*named, *(h for h in later if h.chunk.scope == scope)], notes

    def _title(self, grant: Grant, scope: str, doc_id: str | None) -> str | None:
        if not doc_id:
            return None
        return title_of(self.runtime.store, scope, doc_id, self._filter(grant, lifecycles=None))

    def _chunks(
        self, grant: Grant, scope: str, doc_ids: list[str], lifecycles: list[str] | None
    ) -> dict[str, list[Chunk]]:
        found: dict[str, list[Chunk]] = {}
        flt = self._filter(grant, lifecycles=lifecycles, doc_ids=doc_ids)
        for chunk in self.runtime.store.scroll(scope, flt):
            if chunk.scope == scope:
                found.setdefault(chunk.doc_id, []).append(chunk)
        return found

    def _workplace(self, scope: str, hits: Sequence[Hit]) -> set[str]:
        """The names the workplace goes by: the internal scope's name, and the name of any
        page of the hits titled for it ("Tansy Row staff handbook")."""
        own = [self.registry.internal.name] if scope == INTERNAL else []
        return workplace_names((h.chunk.title for h in hits), own)

    def cpu_only(self, scope: str, query: str) -> bool:
        """Whether searching `scope` for `query` is CPU work in this process and nothing
        else: the scope's collection is open here and the query's embedding is at hand (no
        shard to open, no model to run, no network to wait on)."""
        return self.runtime.store.ready_in_process(scope) and self.runtime.retriever.embedded(query)

    def _read(
        self,
        grant: Grant,
        scope: str,
        text: str,
        *,
        limit: int,
        lifecycles: list[str],
        sources: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
        date_from: dt.date | None = None,
        date_to: dt.date | None = None,
    ) -> Read:
        """The read pass every reader shares, in order: understand the question (its date
        window and search text), retrieve (hybrid, filtered by scope, grant and window),
        named documents first, then mark which statements are current."""
        # the workplace the question names, which every passage is about: its registry name
        # now, a name a page of the hits is titled with after the search (`_workplace`)
        text = without_workplace(text, self._workplace(scope, [])).strip() or text
        today = self.runtime.today()
        question = understand(text, today, date_from=date_from, date_to=date_to)
        flt = self._filter(
            grant,
            lifecycles=lifecycles,
            sources=list(sources or []) or None,
            kinds=list(kinds or []) or None,
            date_from=question.date_from,
            date_to=question.date_to,
        )
        if question.dates is not None and question.dates.origin == "question":
            # "in May": what was said then, and the standing texts in force then
            flt = flt.model_copy(update={"in_force": True})
        searched = abbreviated(question.search_text)  # "work in progress" finds "WIP"
        if limit > 1:  # newer statements that changed what the hits say rank above them
            # a value changed before the window holds in it, like a standing text
            since = {"date_from": None} if flt.in_force else {}
            changes = flt.model_copy(update={"marks": [CHANGE], "dated": True, **since})
            searches = [(limit, flt), (CHANGE_HITS, changes)]
            if flt.in_force:  # and what was said in the window, which standing texts outrank
                searches.append((WINDOW_HITS, flt.model_copy(update={"in_force": False})))
                after = _report_days(question.date_from, question.date_to, today)
                if after is not None:  # what was reported in the days after it
                    searches.append((WINDOW_HITS, flt.model_copy(update=after)))
            elif question.dates is None and _ASKS_LATEST.search(text):
                # "Latest Velvetine SOV?": what was said lately, which older logs outrank
                lately = today - dt.timedelta(days=LATELY_DAYS)
                searches.append((WINDOW_HITS, flt.model_copy(update={"date_from": lately})))
            hits, said, *then = self._search_each(
                grant, scope, searched, searches, synonyms(searched)
            )
            if then and flt.in_force:  # the window's own log lines by score among the others
                reported = [
                    h
                    for h in (then[1] if len(then) > 1 else [])
                    if reports_on(
                        f"{' '.join(h.chunk.headers)} {h.chunk.text}",
                        h.chunk.date,
                        question.date_from,
                        question.date_to,
                    )
                ]
                hits = sorted([*hits, *then[0]], key=lambda h: -h.score)
                hits = [*reported, *hits]  # a report on the window is about it
                if asks_event(text):  # "Which client did we sign this quarter?": its logs
                    hits = sorted(hits, key=lambda h: h.chunk.time_kind != "event")
            elif then:  # what was said lately, each search's best in turn
                hits = [h for pair in zip_longest(hits, then[0]) for h in pair if h is not None]
            hits = current_first(_distinct([*hits, *said]), question.search_text)
            if question.dates is None:  # a window's own value is the answer, not the newest
                hits = newer_values_first(hits, question.search_text)
            hits = answering_first(hits, question.search_text, events=flt.in_force)
        else:
            hits = self._search(grant, scope, searched, limit, flt)
        own = without_workplace(text, self._workplace(scope, hits))
        if own != text and own.strip(" ?.!"):  # a page of the hits is titled for the workplace
            return self._read(
                grant,
                scope,
                own,
                limit=limit,
                lifecycles=lifecycles,
                sources=sources,
                kinds=kinds,
                date_from=date_from,
                date_to=date_to,
            )
        named, notes = self._named(grant, scope, text, flt, hits)
        shown = {h.chunk.doc_id for h in named if h.chunk.doc_id not in _successor_ids(named)}
        # a record's own file answers first: an item of a page is looked up only without one
        found = [] if shown else item_hits(self.runtime.store, scope, text, flt, hits)
        items = [h for h in found if h.chunk.scope == scope]
        return Read(question, _first([*items, *named], hits), shown, notes, flt)

    # -- tools --------------------------------------------------------------------------------
    def search(
        self,
        grant: Grant,
        query: str,
        scope: str,
        limit: int,
        sources: Sequence[str] | None,
        kinds: Sequence[str] | None,
        date_from: dt.date | None,
        date_to: dt.date | None,
        include_drafts: bool,
        include_deprecated: bool,
    ) -> SearchResult:
        scope = grant.check_scope(scope)
        self._check_sources(sources)
        read = self._read(
            grant,
            scope,
            query,
            limit=limit,
            lifecycles=_lifecycles(include_drafts, include_deprecated),
            sources=sources,
            kinds=kinds,
            date_from=date_from,
            date_to=date_to,
        )
        hits = read.hits[:limit]
        self._record(grant, scope, "knowledge_search", query, hits)
        return SearchResult(
            query=query,
            scope=scope,
            interpreted_dates=read.question.dates,
            hits=[
                SearchHit.of(
                    h.chunk,
                    text=h.chunk.text,
                    score=h.score,
                    headers=h.chunk.headers,
                    ordinal=h.chunk.ordinal,
                )
                for h in hits
            ],
            warnings=read.notes if hits else self._nothing(scope, read),
        )

    def ask(
        self,
        grant: Grant,
        question: str,
        scope: str,
        date_from: dt.date | None = None,
        date_to: dt.date | None = None,
    ) -> Answer:
        scope = grant.check_scope(scope)
        read = self._read(
            grant,
            scope,
            question,
            limit=ASK_HITS,
            lifecycles=["stable"],
            date_from=date_from,
            date_to=date_to,
        )
        self._record(grant, scope, "knowledge_ask", question, read.hits)
        answer = answer_question(
            read.question,
            read.hits,
            scope=scope,
            config=self.registry.answer,
            embedder=self.runtime.embedder,
            named=read.named,
            warnings=read.notes,
            related=lambda text, limit: self._related(grant, scope, text, limit, read.flt),
        )
        answer.warnings += [
            f"[{c.number}] {c.title} is "
            + successor_note(c.superseded_by, self._title(grant, scope, c.superseded_by))
            for c in answer.citations
            if c.superseded_by and c.doc_id not in read.named
        ]
        if not read.hits:
            answer.warnings.extend(self._nothing(scope, read))
        return answer

    def context(
        self,
        grant: Grant,
        topic: str,
        scope: str,
        max_tokens: int,
        date_from: dt.date | None = None,
        date_to: dt.date | None = None,
    ) -> ContextResult:
        scope = grant.check_scope(scope)
        read = self._read(
            grant,
            scope,
            topic,
            limit=CONTEXT_HITS,
            lifecycles=["stable"],
            date_from=date_from,
            date_to=date_to,
        )
        hits = read.hits
        self._record(grant, scope, "get_context", topic, hits)
        doc_ids = list(dict.fromkeys(h.chunk.doc_id for h in hits))
        chunks = self._chunks(grant, scope, doc_ids, None) if doc_ids else {}
        selections, used, truncated = select_context(hits, chunks, max_tokens)
        blocks = []
        for sel in selections:
            text, sections = assemble(list(sel.chosen.values()))
            blocks.append(
                ContextBlock.of(
                    sel.best.chunk,
                    text=text,
                    sections=sections,
                    ordinals=sorted(sel.chosen),
                    tokens=sel.tokens,
                    score=sel.best.score,
                )
            )
        warnings = read.notes if hits else self._nothing(scope, read)
        if truncated:
            warnings.append(f"context trimmed to the {max_tokens}-token budget")
        return ContextResult(
            topic=topic,
            scope=scope,
            interpreted_dates=read.question.dates,
            blocks=blocks,
            tokens=used,
            max_tokens=max_tokens,
            truncated=truncated,
            warnings=warnings,
        )

    def decisions(self, grant: Grant, client: str | None) -> DecisionList:
        scope = grant.check_scope("internal" if client is None else client)
        flt = self._filter(grant, lifecycles=["stable", "deprecated"], kinds=DECISION_KINDS)
        chunks = [c for c in self.runtime.store.scroll(scope, flt) if c.scope == scope]
        return DecisionList(scope=scope, decisions=decisions_from_chunks(chunks))

    def recent_memory(
        self, grant: Grant, days: int, scope: str, today: dt.date | None = None
    ) -> MemoryList:
        scope = grant.check_scope(scope)
        today = today or self.runtime.today()
        start = today - dt.timedelta(days=days)
        flt = self._filter(
            grant, lifecycles=["stable"], kinds=["memory"], date_from=start, date_to=today
        )
        docs: dict[str, list[Chunk]] = {}
        for chunk in self.runtime.store.scroll(scope, flt):
            if chunk.scope == scope and chunk.date and start <= chunk.date <= today:
                docs.setdefault(chunk.doc_id, []).append(chunk)
        entries = []
        for chunks in docs.values():
            first = min(chunks, key=lambda c: c.ordinal)
            text, _ = assemble(chunks)
            entries.append(
                MemoryEntry.of(
                    first, whole=True, text=text[:MEMORY_CHARS], truncated=len(text) > MEMORY_CHARS
                )
            )
        entries.sort(key=lambda e: (e.date or dt.date.min, e.title), reverse=True)
        return MemoryList(
            scope=scope, date_from=start, date_to=today, entries=entries[:MEMORY_ENTRIES]
        )

    def document(self, grant: Grant, doc_id: str, scope: str) -> DocumentResult:
        scope = grant.check_scope(scope)
        chunks = self._chunks(grant, scope, [doc_id], None).get(doc_id)
        if not chunks:
            raise AccessDeniedError(
                f"no document {shown(doc_id)} in scope '{scope}' that {grant.principal} may read"
            )
        text, sections = assemble(chunks)
        first = min(chunks, key=lambda c: c.ordinal)
        return DocumentResult.of(
            first, whole=True, text=text, chunks=len(chunks), sections=sections
        )

    def runbooks(
        self,
        grant: Grant,
        prefix: str | None,
        tag: str | None,
        scope: str,
        include_drafts: bool,
        include_deprecated: bool,
    ) -> RunbookList:
        scope = grant.check_scope(scope)
        if prefix is not None:
            prefix = prefix.strip().removeprefix("./").lstrip("/")
        wanted_tag = tag.strip().lower() if tag else None
        flt = self._filter(
            grant, lifecycles=_lifecycles(include_drafts, include_deprecated), sources=[GIT_DOCS]
        )
        first: dict[str, Chunk] = {}
        for chunk in self.runtime.store.scroll(scope, flt):
            if chunk.scope == scope and (
                chunk.doc_id not in first or chunk.ordinal < first[chunk.doc_id].ordinal
            ):
                first[chunk.doc_id] = chunk
        entries = sorted(
            (_runbook(c) for c in first.values() if _is_runbook(c)), key=lambda e: e.path
        )
        entries = [
            e
            for e in entries
            if (not prefix or e.path.startswith(prefix))
            and (not wanted_tag or wanted_tag in (t.lower() for t in e.tags))
        ]
        warnings = []
        if GIT_DOCS not in self.registry.sources_for(scope):
            warnings.append(f"scope '{scope}' has no git_docs source configured")
        return RunbookList(scope=scope, prefix=prefix, tag=tag, runbooks=entries, warnings=warnings)

    def _pairs(self, scopes: Sequence[str], source: str) -> list[Pair]:
        pairs = [
            (s, scope)
            for scope in scopes
            for s in self.registry.sources_for(scope)
            if source in ("all", s)
        ]
        if not pairs and len(scopes) == 1 and (hint := self._no_sources(scopes[0])):
            raise ConfigError(f"nothing to reindex: {hint}")
        if not pairs:
            where = ", ".join(scopes)
            raise ConfigError(
                f"source {shown(source)} is not configured for scope(s) {where}; "
                f"configured sources: {', '.join(self.registry.sources) or 'none'}"
            )
        return pairs

    def reindex(self, grant: Grant, source: str, scope: str | None) -> ReindexResult:
        grant.require_admin("trigger_reindex")
        scopes = [grant.check_scope(scope)] if scope is not None else list(grant.scopes)
        runs = self.dagster.launch_reindex(self._pairs(scopes, source), principal=grant.principal)
        ok = sum(1 for r in runs if r.run_id)
        failed = len(runs) - ok
        message = f"launched {ok} reindex run(s)" + (f"; {failed} failed" if failed else "")
        return ReindexResult(message=message, dagster_url=self.dagster.url, runs=runs)

    def index_status(self, grant: Grant, now: dt.datetime | None = None) -> IndexStatus:
        pairs = [(s, scope) for scope in grant.scopes for s in self.registry.sources_for(scope)]
        points: dict[Pair, int | None] = {}
        for source, scope in pairs:
            try:
                points[(source, scope)] = self.runtime.store.count(scope, source)
            except Exception:  # a status report must not fail on one unreadable collection
                points[(source, scope)] = None
        deadlines = {s: deadline_seconds(self.registry, s) for s, _ in pairs}
        status = self.dagster.index_status(pairs, points, now=now, deadlines=deadlines)
        if self.runtime.watch is not None:
            status.warnings.extend(self.runtime.watch.warnings())
        return status


@dataclass(frozen=True)
class Read:
    """What the read pass found for one question."""

    question: Question
    hits: list[Hit]
    #: doc ids of the documents the question names (their sentences answer it)
    named: set[str]
    notes: list[str]
    #: the scope, grant and date window it searched under
    flt: SearchFilter


def _distinct(hits: Sequence[Hit]) -> list[Hit]:
    """`hits` without a chunk's later hits."""
    first: dict[str, Hit] = {}
    for h in hits:
        first.setdefault(h.chunk.id, h)
    return list(first.values())


def _successor_ids(hits: list[Hit]) -> set[str]:
    return {h.chunk.successor for h in hits if h.chunk.successor}


def _first(named: list[Hit], hits: list[Hit]) -> list[Hit]:
    """The named documents' hits, then the others not among them."""
    ids = {h.chunk.id for h in named}
    return [*named, *(h for h in hits if h.chunk.id not in ids)]


def _lifecycles(include_drafts: bool, include_deprecated: bool) -> list[str]:
    """Stable always; drafts and deprecated documents only when asked for."""
    return [
        "stable",
        *(["draft"] if include_drafts else []),
        *(["deprecated"] if include_deprecated else []),
    ]


def _is_runbook(chunk: Chunk) -> bool:
    """A text document, or a converted file (PDF, Office) a kind rule names a runbook or a
    decision record; a converted file of the default kind (a statement of work, a deck) stays
    searchable but is not listed."""
    return chunk.kind in ("runbook", "decision") or "mime_type" not in chunk.extra


def _runbook(chunk: Chunk) -> RunbookEntry:
    updated = chunk.extra.get("updated")
    return RunbookEntry(
        title=chunk.title,
        path=str(chunk.extra.get("path") or chunk.source_id),
        doc_id=chunk.doc_id,
        uri=chunk.uri,
        url=chunk.url,
        kind=chunk.kind,
        lifecycle=chunk.lifecycle,
        confidentiality=chunk.confidentiality,
        sha=chunk.sha,
        updated=dt.date.fromisoformat(updated) if updated else None,
        tags=names(chunk.extra.get("tags")),
        superseded_by=chunk.successor,
    )
