"""Markdown the chunker reads back exactly: body text that can never open a section or a code
fence, and tables with one line per row."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

#: Lines the chunker would take for a heading or a fence (see chunking._HEADING, _FENCE).
_STRUCTURAL = re.compile(r"^(#{1,6}[ \t]|[ \t]*(```|~~~))")
#: A markdown table's line under its header ("|---|:---:|"), as `table` writes it and as any
#: markdown has it: chunking keeps a table's header over its rows, answers name each cell by it.
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def escape(text: str) -> str:
    """`text` with a backslash before every line that would otherwise be read as a heading
    or a code fence, so a `# 1` in a PDF cannot cut its page in two."""
    return "\n".join("\\" + line if _STRUCTURAL.match(line) else line for line in text.split("\n"))


def cell(value: Any) -> str:
    """One table cell on one line: pipes escaped, line breaks as spaces."""
    text = "" if value is None else str(value)
    return " ".join(text.replace("\\", "\\\\").replace("|", "\\|").split())


def table(rows: Sequence[Sequence[Any]]) -> str:
    """A markdown table: the first row is the header (blank headers named `Column N`)."""
    if not rows:
        return ""
    width = max(len(row) for row in rows) or 1
    padded = [[cell(v) for v in row] + [""] * (width - len(row)) for row in rows]
    header = [h or f"Column {i + 1}" for i, h in enumerate(padded[0])]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * width]
    lines.extend("| " + " | ".join(row) + " |" for row in padded[1:])
    return "\n".join(lines)
