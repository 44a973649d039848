"""Real office files built in memory with the libraries that write them (reportlab,
python-docx, python-pptx, openpyxl): the tests', the convert benchmark's and the demo's.

Each builder returns the file's bytes; the content is whatever the caller passes, so a test
knows exactly which text belongs on which page, slide or sheet."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from typing import Any

#: A page is its text (one column) or (left column, right column).
Page = str | tuple[str, str]

_FONT, _SIZE, _LEAD = "Helvetica", 10, 13


def pdf(
    pages: Sequence[Page],
    *,
    interleave: bool = False,
    password: str | None = None,
    image_only: bool = False,
) -> bytes:
    """A PDF of US-letter pages. Two-column pages are drawn column by column, or with
    `interleave` line by line across both columns (the content-stream order a naive extractor
    reads as left, right, left, right...). `image_only`: each page is a picture of nothing but
    grey, with no text layer, as a scan is. `password`: encrypted with that user password."""
    from reportlab.lib.pagesizes import letter
    from reportlab.lib.utils import simpleSplit
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    encrypt = None
    if password is not None:
        from reportlab.lib.pdfencrypt import StandardEncryption

        encrypt = StandardEncryption(password, ownerPassword=password + "-owner")
    c = canvas.Canvas(buf, pagesize=letter, encrypt=encrypt, invariant=1)
    width, height = letter
    margin, gutter = 54, 24
    for page in pages:
        if image_only:
            _scan(c, margin, height)
        elif isinstance(page, str):
            lines = _wrap(page, width - 2 * margin, simpleSplit)
            _draw_columns(c, [(margin, lines)], height - margin, interleave=False)
        else:
            col = (width - 2 * margin - gutter) / 2
            cols = [
                (margin, _wrap(page[0], col, simpleSplit)),
                (margin + col + gutter, _wrap(page[1], col, simpleSplit)),
            ]
            _draw_columns(c, cols, height - margin, interleave=interleave)
        c.showPage()
    c.save()
    return buf.getvalue()


def _wrap(text: str, width: float, split: Any) -> list[str]:
    lines: list[str] = []
    for para in text.split("\n"):
        lines.extend(split(para, _FONT, _SIZE, width) or [""])
    return lines


def _draw_columns(
    c: Any, cols: list[tuple[float, list[str]]], top: float, *, interleave: bool
) -> None:
    rows = max(len(lines) for _, lines in cols)
    if rows * _LEAD > top - 40:
        raise ValueError(f"{rows} lines do not fit one page: pass shorter page texts")
    c.setFont(_FONT, _SIZE)
    if interleave:
        for row in range(rows):
            for x, lines in cols:
                if row < len(lines):
                    c.drawString(x, top - row * _LEAD, lines[row])
        return
    for x, lines in cols:
        for row, line in enumerate(lines):
            c.drawString(x, top - row * _LEAD, line)


def _scan(c: Any, margin: float, height: float) -> None:
    from PIL import Image
    from reportlab.lib.utils import ImageReader

    image = Image.new("L", (170, 220), color=200)
    c.drawImage(ImageReader(image), margin, margin, width=height / 2, height=height - 2 * margin)


def docx(blocks: Sequence[tuple[str, Any]]) -> bytes:
    """A Word file from ("title"|"h1"|"h2"|"h3"|"p", text) and ("table", rows) blocks."""
    import docx as python_docx

    document = python_docx.Document()
    for kind, value in blocks:
        if kind == "title":
            document.add_heading(value, level=0)
        elif kind in ("h1", "h2", "h3"):
            document.add_heading(value, level=int(kind[1]))
        elif kind == "p":
            document.add_paragraph(value)
        elif kind == "table":
            table = document.add_table(rows=len(value), cols=len(value[0]))
            for r, row in enumerate(value):
                for col, cell in enumerate(row):
                    table.cell(r, col).text = str(cell)
        else:
            raise ValueError(f"unknown block kind {kind!r}")
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def pptx(slides: Sequence[tuple[str, str, str]]) -> bytes:
    """A deck of (title, body, speaker notes) slides on the title-and-content layout."""
    from pptx import Presentation

    deck = Presentation()
    layout = deck.slide_layouts[1]
    for title, body, notes in slides:
        slide = deck.slides.add_slide(layout)
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    buf = io.BytesIO()
    deck.save(buf)
    return buf.getvalue()


def xlsx(sheets: dict[str, Sequence[Sequence[Any]]]) -> bytes:
    """A workbook with one sheet per entry, rows written as given (first row = headers)."""
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(list(row))
    buf = io.BytesIO()
    book.save(buf)
    return buf.getvalue()


def zip_with(base: bytes, extra: dict[str, bytes]) -> bytes:
    """`base` (an OOXML zip) with members added or replaced, e.g. a VBA project, a huge part
    or a hostile XML part."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(base)) as src,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst,
    ):
        for item in src.infolist():
            if item.filename not in extra:
                dst.writestr(item, src.read(item.filename))
        for name, data in extra.items():
            dst.writestr(name, data)
    return out.getvalue()


def pdf_flate_bomb(unpacked_mb: int) -> bytes:
    """A one-page PDF whose content stream is `unpacked_mb` MB of spaces, deflated to a few
    hundred KB: a decompression bomb only a memory limit stops (PDF parsers inflate a stream
    whole). Written object by object, with a correct xref table."""
    import zlib

    packer = zlib.compressobj(1)
    block = b" " * (1024 * 1024)
    payload = b"".join(packer.compress(block) for _ in range(unpacked_mb)) + packer.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(payload)
        + payload
        + b"\nendstream",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.writelines(b"%010d 00000 n \n" % offset for offset in offsets)
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    )
    return out.getvalue()
