"""Documents a question names — by title ("the monthly client reports record"), number
("ADR 7", "RFC-12", "decision #3") or path ("decisions/0007-monthly-reports.md") — found
even where the default filter hides them (drafts, deprecated and superseded records), so
"What did ADR 7 decide?" answers from ADR 7 and says what superseded it.

Candidates come from a sparse (keyword) search, which finds titles and headings cheaply; a
question with a number or a path also looks its names up among the chunks' stored name keys
(doc_names.py), since a file name is not part of the indexed text.
"""

from __future__ import annotations

import re
from functools import lru_cache

from knowledge_platform import doc_names
from knowledge_platform.doc_names import name_keys, numbered, question_keys
from knowledge_platform.models import Chunk, Hit
from knowledge_platform.serve.answers.items import asked, find_item
from knowledge_platform.serve.retrieval import Retriever
from knowledge_platform.store.base import SearchFilter, VectorStore

CANDIDATES = 20
#: How many of the best-ranked documents are read whole for a numbered item the question
#: names ("rule 5") that no hit holds.
ITEM_DOCUMENTS = 3
#: ... and of the other retrieved documents that name items of its kind ("SD-1" for SD-11),
#: this many.
NAMING_DOCUMENTS = 3
#: A named document's chunks the answer reads: a decision record's every section, mostly.
CHUNKS_PER_DOCUMENT = 6
#: A file path: a name with an extension, or folders ending in a name with a digit or a
#: hyphen ("decisions/0007-monthly-reports"); not "A/B" or "America/New_York".
_PATH = re.compile(
    r"[\w.-]+\.(?:md|markdown|txt|rst|adoc)\b"
    r"|[\w.-]+(?:/[\w.-]+)*/[\w.]*[-\d][\w.-]*"
)
_RECORD = re.compile(
    r"\b(record|adr|rfc|runbook|playbook|handbook|policy|decision|document|"
    r"doc|page|file|note|memo|minutes|spec)s?\b|['\"\u2018\u201c][^'\"]{3,}"
    r"['\"\u2019\u201d]",
    re.I,
)
#: The kinds a family's numbered documents may have: a decision record kept in a memory
#: workspace is kind "memory" (doc_names reads its family from its folder).
_KINDS_OF_FAMILY = {"decision": ("decision", "memory"), "runbook": ("runbook", "memory")}


def has_cue(text: str) -> bool:
    """Whether `text` names something by number or path (names the index text lacks)."""
    return bool(numbered(text) or _PATH.search(text))


def names(question: str, chunk: Chunk) -> bool:
    """Whether `question` names `chunk`'s document by title, number or path."""
    return doc_names.names(question, _keys(chunk.title, chunk.source_id, chunk.kind))


@lru_cache(maxsize=4096)  # a search reads the keys of every candidate document's chunks
def _keys(title: str, source_id: str, kind: str) -> frozenset[str]:
    return frozenset(name_keys(title, source_id, kind))


def cue_kinds(question: str) -> list[str] | None:
    """The kinds of document a numbered cue points at ("ADR 7" -> decision), or None when
    any kind may answer to it (a path, "doc 3")."""
    cues = numbered(question)
    if not cues or _PATH.search(question) or any(f not in _KINDS_OF_FAMILY for f, _ in cues):
        return None
    return sorted({kind for family, _ in cues for kind in _KINDS_OF_FAMILY[family]})


def refers_to_record(question: str) -> bool:
    """Whether the question speaks of a document as such ("the decision record 'X'", "the
    onboarding runbook", "ADR 7", a quoted title or a path), not of its subject."""
    return bool(_RECORD.search(question) or has_cue(question))


def named_current(
    retriever: Retriever,
    store: VectorStore,
    scope: str,
    question: str,
    flt: SearchFilter,
    hits: list[Hit],
) -> list[Hit]:
    """Hits of the current documents the question names as documents (refers_to_record):
    those among `hits` (by title, number or path), and, for a question with a number or
    path, any other such document of the kinds its cue points at. A title that merely shares the
    question's words ("Who runs Copperline Outfitters?" and a page titled "Copperline
    Outfitters") names nothing: the answer may be anywhere."""
    if not refers_to_record(question):
        return []
    named = list(dict.fromkeys(h.chunk.doc_id for h in hits if names(question, h.chunk)))
    if has_cue(question):
        # a number or a path names every document it matches, retrieved or not ("decision 4"
        # of two series of records kept in one workspace)
        kinds = cue_kinds(question)
        scan = flt.model_copy(update={"kinds": kinds}) if kinds else flt
        named = list(dict.fromkeys([*named, *_named_ids(retriever, store, scope, question, scan)]))
    return _best_chunks(retriever, scope, question, flt, named)


def _best_chunks(
    retriever: Retriever, scope: str, question: str, flt: SearchFilter, doc_ids: list[str]
) -> list[Hit]:
    """Each document's best chunks for the question (documents in the given order)."""
    hits: list[Hit] = []
    for doc_id in doc_ids:
        only = flt.model_copy(update={"doc_ids": [doc_id]})
        hits += retriever.search(scope, question, limit=CHUNKS_PER_DOCUMENT, flt=only)
    return hits


def successors(
    retriever: Retriever, scope: str, question: str, flt: SearchFilter, hits: list[Hit]
) -> list[Hit]:
    """The best chunks, for the question, of the documents that supersede those of `hits`
    (not already among them)."""
    present = {h.chunk.doc_id for h in hits}
    wanted = list(
        dict.fromkeys(
            h.chunk.successor
            for h in hits
            if h.chunk.successor and h.chunk.successor not in present
        )
    )
    found: list[Hit] = []
    for doc_id in wanted:
        only = flt.model_copy(update={"doc_ids": [doc_id], "lifecycles": None})
        found += retriever.search(scope, question, limit=CHUNKS_PER_DOCUMENT, flt=only)
    return found


def named_documents(
    retriever: Retriever, store: VectorStore, scope: str, question: str, flt: SearchFilter
) -> list[Hit]:
    """The best chunks of each document matching `flt` that the question names, ranked
    for the question (documents in order of their best hit)."""
    named = _named_ids(retriever, store, scope, question, flt)
    return _best_chunks(retriever, scope, question, flt, named)


def _named_ids(
    retriever: Retriever, store: VectorStore, scope: str, question: str, flt: SearchFilter
) -> list[str]:
    """The doc ids of the documents matching `flt` that the question names, in order of
    their best sparse hit, then of the stored name keys its number or path matches."""
    if not store.exists(scope, flt):
        return []  # most scopes hide nothing: saves a sparse search and 20 payloads a call
    # every chunk the question names holds one of its keys (`names` reads the keys its
    # document was indexed with): none, and no candidate could be named, so no sparse search
    # (a claim's "TDP-43" or "IL-10" looks like a record's number)
    keyed = flt.model_copy(update={"names": sorted(question_keys(question))})
    cued = has_cue(question)  # a number or path the indexed text lacks: the stored name keys
    found = list(store.scroll(scope, keyed)) if cued else []
    if not (found if cued else store.exists(scope, keyed)):
        return []  # (without a cue the keyed chunks only say whether to look: no payloads)
    candidates = [
        h.chunk for h in retriever.search(scope, question, limit=CANDIDATES, flt=flt, mode="sparse")
    ]
    return list(dict.fromkeys(c.doc_id for c in [*candidates, *found] if names(question, c)))


def item_hits(
    store: VectorStore, scope: str, question: str, flt: SearchFilter, hits: list[Hit]
) -> list[Hit]:
    """The chunk holding the numbered item the question names ("What did rule 5 say?") and
    the one of the item that supersedes it, read from the first ITEM_DOCUMENTS documents of
    `hits` when no hit holds it: an item of a list shares no word with a question that names
    it by number, so retrieval finds its page (by "rule", "playbook") but not its line."""
    wanted = asked(question)
    if wanted is None or find_item(question, hits) is not None:
        return []
    # ... and of the documents that name items of its kind ("SD-1" of the style guide whose
    # register table states SD-11, ranked tenth)
    naming = re.compile(wanted.names(r"\d{1,3}"), re.I)
    docs = list(dict.fromkeys(h.chunk.doc_id for h in hits))[:ITEM_DOCUMENTS]
    docs += [h.chunk.doc_id for h in hits if naming.search(h.chunk.text)]
    docs = list(dict.fromkeys(docs))[: ITEM_DOCUMENTS + NAMING_DOCUMENTS]
    rank = {doc: n for n, doc in enumerate(docs)}
    chunks = store.scroll(scope, flt.model_copy(update={"doc_ids": docs}))
    read = [
        Hit(chunk=c, score=0.0) for c in sorted(chunks, key=lambda c: (rank[c.doc_id], c.ordinal))
    ]
    item = find_item(question, read)
    if item is None:
        return []
    found = {item.chunk.id: item.chunk}
    if item.superseded_by is not None:
        found.setdefault(item.superseded_by.chunk.id, item.superseded_by.chunk)
    return [Hit(chunk=c, score=0.0) for c in found.values()]


def title_of(store: VectorStore, scope: str, doc_id: str, flt: SearchFilter) -> str | None:
    """The title of `doc_id` if a chunk of it matches `flt` (any lifecycle)."""
    only = flt.model_copy(update={"doc_ids": [doc_id], "lifecycles": None})
    return next((c.title for c in store.scroll(scope, only)), None)


def successor_note(successor: str, successor_title: str | None) -> str:
    return f"superseded by {successor}" + (f" ('{successor_title}')" if successor_title else "")


def hidden_note(chunk: Chunk, successor_title: str | None) -> str:
    """Why a hidden document is shown, naming its successor when it has one."""
    if chunk.successor:
        state = "is " + successor_note(chunk.successor, successor_title)
    else:
        state = "is a draft" if chunk.lifecycle == "draft" else f"is {chunk.lifecycle}"
    return f"'{chunk.title}' ({chunk.doc_id}) {state}; shown because the question names it"
