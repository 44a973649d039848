"""Why the converter uses pdfminer.six, python-docx, python-pptx and openpyxl directly: each
candidate library measured on the same generated files for speed and for what the chunker
needs (text on the right page, reading order in two columns, headings, slides, notes).

Candidates that are not installed are listed as such. To measure all of them, install them
into the environment for the run, then restore it from the lock:

    uv pip install --python .venv/bin/python pypdf pypdfium2 pdfplumber \\
        'markitdown[pdf,docx,pptx,xlsx]'
    uv run python bench/convert_compare.py
    scripts/bootstrap
"""

from __future__ import annotations

import datetime as dt
import difflib
import importlib.util
import io
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from convert import MIME, corpus, prose  # noqa: E402

from knowledge_platform.convert.api import convert_here  # noqa: E402
from tests import office_files  # noqa: E402

TOKEN = re.compile(r"[a-z]+\d+p\d+c\d")


def tokens(page: int, column: int, n: int) -> list[str]:
    return [f"{w}p{page}c{column}" for w in prose(n, page * 2 + column).split()]


def pdf_cases() -> dict[str, tuple[bytes, list[list[str]]]]:
    """name -> (PDF, the words of each page in reading order)."""
    single = [tokens(p, 0, 300) for p in range(20)]
    two = [(tokens(p, 0, 130), tokens(p, 1, 130)) for p in range(5)]
    cols = [(" ".join(a), " ".join(b)) for a, b in two]
    return {
        "one column, 20 p.": (office_files.pdf([" ".join(t) for t in single]), single),
        "two columns, 5 p.": (office_files.pdf(cols), [a + b for a, b in two]),
        "two columns drawn across, 5 p.": (
            office_files.pdf(cols, interleave=True),
            [a + b for a, b in two],
        ),
    }


def _pdfminer(data: bytes) -> list[str]:
    return [s.text for s in convert_here(data, MIME["pdf"], "x.pdf").sections]


def _pypdf(data: bytes) -> list[str]:
    import pypdf  # pyright: ignore[reportMissingImports] (optional candidate)

    return [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages]


def _pdfium(data: bytes) -> list[str]:
    import pypdfium2  # pyright: ignore[reportMissingImports] (optional candidate)

    document = pypdfium2.PdfDocument(data)
    try:
        return [page.get_textpage().get_text_bounded() for page in document]
    finally:
        document.close()


def _pdfplumber(data: bytes) -> list[str]:
    import pdfplumber  # pyright: ignore[reportMissingImports] (optional candidate)

    with pdfplumber.open(io.BytesIO(data)) as pdf:
        return [page.extract_text() or "" for page in pdf.pages]


def _markitdown(data: bytes, ext: str = ".pdf") -> str:
    from markitdown import MarkItDown, StreamInfo  # pyright: ignore[reportMissingImports] (optional candidate)

    info = StreamInfo(mimetype=MIME[ext[1:]], extension=ext)
    return MarkItDown().convert_stream(io.BytesIO(data), stream_info=info).markdown


PDF_CANDIDATES: dict[str, tuple[str, Callable[[bytes], list[str]]]] = {
    "pdfminer.six (ours: LAParams layout, per page)": ("pdfminer", _pdfminer),
    "pypdf": ("pypdf", _pypdf),
    "pypdfium2": ("pypdfium2", _pdfium),
    "pdfplumber": ("pdfplumber", _pdfplumber),
    "markitdown (one text, no pages)": ("markitdown", lambda d: [_markitdown(d)]),
}


def per_second(fn: Callable[[], object], seconds: float = 2.0) -> float:
    fn()
    calls, start = 0, time.perf_counter()
    while calls < 2 or time.perf_counter() - start < seconds:
        fn()
        calls += 1
    return calls / (time.perf_counter() - start)


def pdf_rows() -> list[str]:
    cases = pdf_cases()
    out = ["| library | " + " | ".join(cases) + " |", "|" + " --- |" * (len(cases) + 1)]
    for label, (module, fn) in PDF_CANDIDATES.items():
        if importlib.util.find_spec(module) is None:
            out.append(f"| {label} | not installed |" + " |" * (len(cases) - 1))
            continue
        cells = []
        for data, truth in cases.values():
            pages = fn(data)
            rate = len(truth) * per_second(lambda: fn(data))  # noqa: B023
            found = [set(TOKEN.findall(p)) for p in pages]
            on_page = (
                (sum(len(found[i] & set(t)) for i, t in enumerate(truth)) / sum(map(len, truth)))
                if len(pages) == len(truth)
                else 0.0
            )
            flat = [w for t in truth for w in t]
            order = difflib.SequenceMatcher(
                None, TOKEN.findall("\n".join(pages)), flat, autojunk=False
            ).ratio()
            cells.append(f"{rate:.0f} p/s, on page {on_page:.2f}, order {order:.2f}")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
        print(out[-1], flush=True)
    return out


def office_rows() -> list[str]:
    files = {name: v for name, v in corpus().items() if v[0] != "pdf"}
    out = [
        "| file | ours: files/s | markitdown: files/s | what markitdown's output lacks |",
        "| --- | --- | --- | --- |",
    ]
    lacks = {
        "docx": "the Title style as a heading (it goes mammoth -> HTML -> markdown)",
        "pptx": "`## ` sections (slides are `<!-- Slide number: N -->` comments + `# title`)",
        "xlsx": "a row cap: every row of every sheet, loaded through pandas",
    }
    have_md = importlib.util.find_spec("markitdown") is not None
    for name, (fmt, data, _) in files.items():
        ours = per_second(lambda: convert_here(data, MIME[fmt], name))  # noqa: B023
        theirs = (
            f"{per_second(lambda: _markitdown(data, '.' + fmt)):.1f}"  # noqa: B023
            if have_md
            else "not installed"
        )
        out.append(f"| {name} | {ours:.1f} | {theirs} | {lacks[fmt]} |")
        print(out[-1], flush=True)
    return out


def main() -> None:
    from _common import RESULTS, load_average

    text = "\n".join(
        [
            f"# Conversion libraries compared ({dt.datetime.now(dt.UTC):%Y-%m-%d})",
            "",
            f"`uv run python bench/convert_compare.py`; {load_average()}.",
            "",
            "PDF: pages/s; share of each page's words found on that page's section; reading "
            "order (difflib ratio of the word sequence against the true one, 1.00 = exact).",
            "",
            *pdf_rows(),
            "",
            "DOCX, PPTX, XLSX (files of bench/convert.py):",
            "",
            *office_rows(),
            "",
        ]
    )
    print("\n" + text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "convert_compare.md").write_text(text)


if __name__ == "__main__":
    main()
