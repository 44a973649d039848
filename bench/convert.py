"""File conversion speed on this machine: pages/s for PDF and files/s for each type, in the
calling process and through the limited helper that connectors use (the difference is the
isolation overhead per file), plus the helper's start-up.

    uv run python bench/convert.py [--seconds 3]

Files are built here with the libraries that write them (tests/office_files.py): a 40-page
prose PDF, a 10-page two-column PDF drawn line by line across the columns, a 12-page DOCX
with headings and tables, a 30-slide PPTX with notes and a two-sheet XLSX of 1000 + 300 rows.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _common import RESULTS, load_average  # noqa: E402

from knowledge_platform.convert.api import convert, convert_here  # noqa: E402
from knowledge_platform.convert.formats import MIME_TYPES  # noqa: E402
from tests import office_files  # noqa: E402

MIME = {fmt: mime for mime, fmt in reversed(MIME_TYPES.items())}
VOCAB = (
    "account",
    "audit",
    "baseline",
    "checkout",
    "cohort",
    "conversion",
    "deck",
    "funnel",
    "hypothesis",
    "invoice",
    "ledger",
    "margin",
    "onboarding",
    "pelican",
    "quarterly",
    "retainer",
    "revenue",
    "segment",
    "significance",
    "swatch",
    "variant",
    "workshop",
)


def prose(n: int, seed: int) -> str:
    return " ".join(VOCAB[(i * 7 + seed * 3) % len(VOCAB)] + str(i % 89) for i in range(n))


def corpus() -> dict[str, tuple[str, bytes, int]]:
    """name -> (format, bytes, pages/slides/sheets)."""
    docx_blocks: list[tuple[str, object]] = [("title", "Quarterly audit")]
    for s in range(12):
        docx_blocks += [
            ("h1", f"Section {s}"),
            ("p", prose(250, s)),
            ("h2", f"Findings {s}"),
            ("p", prose(120, s + 1)),
            (
                "table",
                [["metric", "control", "variant"]]
                + [[f"m{r}", f"{r}.1%", f"{r}.4%"] for r in range(8)],
            ),
        ]
    return {
        "prose.pdf": ("pdf", office_files.pdf([prose(330, p) for p in range(40)]), 40),
        "two-column.pdf": (
            "pdf",
            office_files.pdf(
                [(prose(140, p), prose(140, p + 50)) for p in range(10)], interleave=True
            ),
            10,
        ),
        "report.docx": ("docx", office_files.docx(docx_blocks), 12),
        "deck.pptx": (
            "pptx",
            office_files.pptx([(f"Slide {i}", prose(40, i), prose(30, i + 9)) for i in range(30)]),
            30,
        ),
        "plan.xlsx": (
            "xlsx",
            office_files.xlsx(
                {
                    "Plan": [["test", "owner", "start", "notes"]]
                    + [[f"t{i}", "maya", "2026-01-05", prose(8, i)] for i in range(1000)],
                    "Results": [["test", "lift"]] + [[f"t{i}", i / 10] for i in range(300)],
                }
            ),
            2,
        ),
    }


def paired(data: bytes, fmt: str, name: str, seconds: float) -> tuple[float, float, float]:
    """Median seconds per file in-process and through the helper, the two calls alternated
    (so a shared machine's load drifts onto both alike), for at least `seconds` and 5 pairs;
    and the median CPU seconds of the in-process call (what load on other cores cannot move
    much)."""
    here: list[float] = []
    isolated: list[float] = []
    cpu: list[float] = []
    convert(data, MIME[fmt], name)
    start = time.perf_counter()
    while len(here) < 5 or time.perf_counter() - start < seconds:
        t0, c0 = time.perf_counter(), time.process_time()
        convert_here(data, MIME[fmt], name)
        here.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        t0 = time.perf_counter()
        convert(data, MIME[fmt], name)
        isolated.append(time.perf_counter() - t0)
    return statistics.median(here), statistics.median(isolated), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per file type")
    args = parser.parse_args()
    files = corpus()
    started = time.perf_counter()
    convert(files["report.docx"][1], MIME["docx"], "warm.docx")
    helper_start = time.perf_counter() - started
    rows = []
    for name, (fmt, data, units) in files.items():
        here, isolated, cpu = paired(data, fmt, name, args.seconds)
        rows.append(
            (
                name,
                f"{len(data) / 1024:.0f} KB",
                units,
                f"{1 / here:.2f}",
                f"{1 / isolated:.2f}",
                f"{units / isolated:.1f}",
                f"{1 / cpu:.2f}",
                f"{units / cpu:.1f}",
            )
        )
        print(*rows[-1], sep="  ", flush=True)
    tiny = office_files.pdf(["One short page."])
    here, isolated, _ = paired(tiny, "pdf", "tiny.pdf", args.seconds)
    header = (
        "file",
        "size",
        "pages/slides/sheets",
        "files/s in-process",
        "files/s isolated",
        "pages (slides, sheets)/s isolated",
        "files per CPU-second",
        "pages (slides, sheets) per CPU-second",
    )
    table = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    table += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    text = "\n".join(
        [
            f"# File conversion speed ({dt.datetime.now(dt.UTC):%Y-%m-%d})",
            "",
            f"`uv run python bench/convert.py --seconds {args.seconds:g}`; {load_average()}.",
            "Medians of alternated calls; the last two columns from the in-process call's CPU "
            "time, which other processes on the machine move far less than wall time.",
            "",
            *table,
            "",
            f"Isolation overhead per file (one-page PDF, {1000 * here:.1f} ms in-process): "
            f"**{1000 * (isolated - here):.1f} ms** (fork a limited child, send the bytes, "
            f"receive the result).",
            f"Conversion helper start-up (imports the converters, once per process): "
            f"{helper_start:.2f} s.",
            "",
        ]
    )
    print("\n" + text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "convert.md").write_text(text)


if __name__ == "__main__":
    main()
