"""Which document supersedes which, resolved when a source's snapshot is written.

A document names the ones it replaces (`extra["supersedes"]`) or the one that replaced it
(`extra["superseded_by"]`): by doc id, source id (a git path, with or without `.md`, or
relative to the naming document's folder), file stem, title or number ("CR-019" of
`CR-019-demo-screens.md`, "RFC-10" of a page titled "RFC-10: Revision sequence": the numbers
doc_names reads), case-insensitively. Front matter names them, or the record's own preamble in words
(`stated_links`: "Status: Superseded by RFC-10", "State: Withdrawn — replaced by CR-019",
"Replaces CR-014").
`link_successors` resolves both directions among one source's documents in one scope and
records on every superseded document `extra["successor"]`: the doc id of its successor (or
the name as written when no document here answers to it). Chunks copy `extra`, so every
result that shows a superseded document can say so and point at its successor without a
second lookup at query time.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath
from typing import Any

from knowledge_platform.dating import header_fields
from knowledge_platform.doc_names import name_keys, number_key, reference
from knowledge_platform.models import Document

SUCCESSOR = "successor"
BEFORE = "lifecycle_before"
#: The front-matter keys that link documents (copied into `extra` by the connectors).
LINKS = ("supersedes", "superseded_by")


#: The fields of a preamble's lines (dating.header_fields: "Status: Superseded by RFC-10",
#: "Policy bulletin · Issued: 3 Mar 2026 · Replaces PB-05", "| Note | This SOP replaces
#: SOP-CELLAR-04, which is withdrawn |") that say what replaced the record or what it
#: replaces, a code or a markdown link's target naming the other.
_STRONG = r"(?:\*\*|__)?"
_OTHER = (
    r"(?:\[[^\]]*\]\((?P<{0}>[^)\s]+)\)"
    r"|(?P<{1}>[A-Za-z]{{1,10}}(?:-[A-Za-z]{{1,10}}){{0,2}}[ -]?#?\d{{1,6}}(?:-\d{{1,6}})?))"
)
_REPLACED_BY = re.compile(
    rf"^\s*{_STRONG}(?:(?:status|state){_STRONG}\s*:?\s*{_STRONG}[^\n]*?\b"
    rf"|(?:withdrawn|retired|obsolete|archived)\W+)?"
    rf"(?:superseded|replaced|cancell?ed|withdrawn|revoked)\s+by\s+{_OTHER.format('link', 'code')}",
    re.I,
)
#: ... after a field's label or not ("Note: This SOP replaces SOP-CELLAR-04", "**Cancels
#: CN-09.**": a record cancelled by a later one is superseded by it), the code
#: followed by nothing, or by what it says of the replaced record ("Replaces P-04 (Heat
#: stress), retired at the same time"; not "Replaces CR-014's second half").
_REPLACES = re.compile(
    rf"^\s*(?:{_STRONG}[A-Za-z][\w ]{{0,20}}:{_STRONG}\s*)?{_STRONG}(?:this\s+[\w-]+\s+)?"
    rf"(?:supersedes|replaces|cancels|withdraws|revokes|rescinds){_STRONG}\s*:?\s*{_STRONG}\s*"
    rf"{_OTHER.format('link', 'code')}{_STRONG}(?=\s*(?:[.,;(\u2014\u2013]|-\s|$))",
    re.I,
)
#: How many lines of a document's start are read for its preamble.
PREAMBLE_LINES = 16


def stated_links(body: str) -> dict[str, list[str]]:
    """`supersedes` / `superseded_by` as a record's preamble states them in words: the fields
    of the lines after its title and before its first section ("Status: Superseded by
    RFC-10", "**Status:** Retired — replaced by P-09", "Replaces CR-014", "Issued: 19 Oct
    2026 · Replaces PB-05", a properties table's "| Note | This SOP replaces SOP-CELLAR-04 |")."""
    found: dict[str, list[str]] = {}
    for n, line in enumerate(body.split("\n")[:PREAMBLE_LINES]):
        if line.startswith("#"):
            if n and not line.startswith("# "):
                break  # the first section: the preamble is over
            continue
        for field in header_fields(line):
            for key, pattern in (("superseded_by", _REPLACED_BY), ("supersedes", _REPLACES)):
                if m := pattern.match(field):
                    found.setdefault(key, []).append(m.group("link") or m.group("code"))
    return found


def names(value: Any) -> list[str]:
    """A front-matter link value (one name or a list) as a list of non-blank names."""
    items = value if isinstance(value, list) else [value]
    return [str(v).strip() for v in items if v is not None and str(v).strip()]


def _keys(doc: Document, numbers: bool) -> Iterable[str]:
    path = PurePosixPath(doc.source_id)
    for name in (doc.doc_id, doc.source_id, str(path.with_suffix("")), path.stem, doc.title):
        if name:
            yield name.strip().lower()
    if numbers:  # its numbers ("CR-019" of `CR-019-demo-screens.md`, "RFC-10" of "RFC-10:
        # Revision sequence"), each of its family: a number of no family ("doc 7") names nothing
        yield from (
            key
            for key in name_keys(doc.title, doc.source_id, doc.kind)
            if key.startswith("n:") and not key.startswith("n:*:")
        )


def _lookup(by_name: dict[str, str], name: str, referrer: Document) -> str | None:
    """The doc id `name` refers to: as written, then as a path relative to the referring
    document's folder, then by its file stem."""
    relative = posixpath.normpath(posixpath.join(posixpath.dirname(referrer.source_id), name))
    for key in (name, relative, PurePosixPath(name).stem):
        found = by_name.get(key.strip().lower())
        if found is not None:
            return found
    found = reference(name)  # "CR-019", "RFC-10": a record by its number
    return by_name.get(number_key(*found)) if found and found[0] else None


def link_successors(docs: Sequence[Document]) -> list[Document]:
    """`docs` with `extra["successor"]` set on each superseded one (and dropped from any
    that no longer is). Documents whose links did not change are returned as they were."""
    # the names documents link by: none, and nothing is looked up; a record's number ("CR-019")
    # among them, and every document's numbers are read too
    said = [name for doc in docs for key in LINKS for name in names(doc.extra.get(key))]
    numbers = any(reference(name) for name in said)
    by_name: dict[str, str] = {}
    for doc in docs:
        for key in _keys(doc, numbers) if said else ():
            by_name.setdefault(key, doc.doc_id)
    successor: dict[str, str] = {}
    for doc in docs:  # an explicit `superseded_by` wins over another's `supersedes`
        for name in names(doc.extra.get("superseded_by"))[:1]:
            successor[doc.doc_id] = _lookup(by_name, name, doc) or name
    for doc in docs:
        for name in names(doc.extra.get("supersedes")):
            old = _lookup(by_name, name, doc)
            if old is not None and old != doc.doc_id:
                successor.setdefault(old, doc.doc_id)
    linked = []
    for doc in docs:
        new = successor.get(doc.doc_id)
        if doc.extra.get(SUCCESSOR) != new or (new is not None and doc.lifecycle == "stable"):
            doc = _relinked(doc, new)
        linked.append(doc)
    return linked


def _relinked(doc: Document, successor: str | None) -> Document:
    extra = {k: v for k, v in doc.extra.items() if k not in (SUCCESSOR, BEFORE)}
    lifecycle = doc.extra.get(BEFORE, doc.lifecycle)
    if successor is not None:
        extra[SUCCESSOR] = successor
        if lifecycle == "stable":
            extra[BEFORE] = lifecycle
            lifecycle = "deprecated"
    return doc.model_copy(update={"extra": extra, "lifecycle": lifecycle})
