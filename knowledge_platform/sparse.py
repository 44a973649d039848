"""BM25-style sparse vectors. Documents carry the saturated term-frequency part of BM25;
the collection's IDF modifier (Qdrant) supplies the inverse document frequency at query
time, so the store computes BM25 without a side index. Queries carry 1.0 per term."""

from __future__ import annotations

import re
import zlib
from collections import Counter

import snowballstemmer

from knowledge_platform.models import SparseVector

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
#: A plural written in capitals ("PDFs", "KPIs", "CTAs"): the stemmer keeps an "s" after a
#: vowel or after no vowel at all ("pdfs", "kpis"), so the plural is read as its singular.
_CAPITALS_PLURAL = re.compile(r"\b([A-Z]{2,})s\b")
_STOPWORDS = frozenset(
    {
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    }
)


class SparseEncoder:
    """Lowercase word tokens, English stopwords out, Snowball stems, hashed to uint32 ids."""

    def __init__(self, k1: float = 1.2, b: float = 0.75, avg_len: float = 120.0) -> None:
        self.k1 = k1
        self.b = b
        self.avg_len = avg_len
        self._stemmer = snowballstemmer.stemmer("english")
        self._stems: dict[str, str] = {}

    def terms(self, text: str) -> list[str]:
        if _CAPITALS_PLURAL.search(text):
            text = _CAPITALS_PLURAL.sub(r"\1", text)
        words = [w for w in _TOKEN.findall(text.lower()) if w not in _STOPWORDS and len(w) < 40]
        return [self._stem(w) for w in words]

    def _stem(self, word: str) -> str:
        stem = self._stems.get(word)
        if stem is None:
            stem = self._stemmer.stemWord(word)
            if len(self._stems) < 500_000:
                self._stems[word] = stem
        return stem

    def encode_document(self, text: str) -> SparseVector:
        counts = Counter(self.terms(text))
        length = sum(counts.values())
        norm = self.k1 * (1 - self.b + self.b * length / self.avg_len)
        return _vector({t: tf * (self.k1 + 1) / (tf + norm) for t, tf in counts.items()})

    def encode_query(self, text: str, also: str = "", weight: float = 1.0) -> SparseVector:
        """The query's terms at 1.0; `also`'s other terms at `weight` (a synonym counts for
        less than the word the user wrote)."""
        found = dict.fromkeys(self.terms(also), weight)
        return _vector(found | dict.fromkeys(self.terms(text), 1.0))


def term_id(term: str) -> int:
    return zlib.crc32(term.encode("utf-8"))


def _vector(weights: dict[str, float]) -> SparseVector:
    merged: dict[int, float] = {}
    for term, weight in weights.items():
        idx = term_id(term)
        merged[idx] = merged.get(idx, 0.0) + weight
    indices = sorted(merged)
    return SparseVector(indices=indices, values=[merged[i] for i in indices])
