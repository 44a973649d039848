"""XLSX -> one section per sheet with openpyxl (read-only, streaming; cached formula values,
nothing evaluated): the header row and the first `max_rows` data rows as a table."""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

from openpyxl import load_workbook

from knowledge_platform.convert.markdown import table
from knowledge_platform.convert.result import Section

#: Columns kept per row: a sheet of 16k columns would make one row outgrow every chunk.
MAX_COLUMNS = 64


def xlsx_sections(data: bytes, max_rows: int) -> tuple[list[Section], int, list[str]]:
    """(sections, sheet count, notes). Blank rows are skipped (the first row with a value is
    the header); reading a sheet stops one row past `max_rows`."""
    book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    sections: list[Section] = []
    notes: list[str] = []
    try:
        for number, sheet in enumerate(book.worksheets, 1):
            rows: list[list[Any]] = []
            for values in sheet.iter_rows(values_only=True):
                row = _trim([_value(v) for v in values[:MAX_COLUMNS]])
                if not row:
                    continue
                rows.append(row)
                if len(rows) > max_rows + 1:
                    break
            truncated = len(rows) > max_rows + 1
            text = table(rows[: max_rows + 1]) if rows else "_(empty sheet)_"
            if truncated:
                text += f"\n\n_Only the first {max_rows} rows are indexed._"
                notes.append(f"sheet {number} ({sheet.title}): first {max_rows} rows only")
            sections.append(Section("sheet", number, str(sheet.title), text))
    finally:
        book.close()
    return sections, len(sections), notes


def _value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dt.datetime) and value.time() == dt.time(0):
        return value.date().isoformat()
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _trim(row: list[str]) -> list[str]:
    while row and not row[-1].strip():
        row.pop()
    return row
