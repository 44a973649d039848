"""Rebuild the demo's uploaded files, demo/files/: a three-page statement of work (PDF) and a
four-slide experiment review with speaker notes (PPTX). The bytes are reproducible (fixed
zip timestamps, reportlab's invariant mode), so rebuilding changes nothing unless the text
here does.

    .venv/bin/python demo/make_files.py
"""

from __future__ import annotations

import io
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import office_files  # noqa: E402

SOW_PAGES = [
    "Statement of Work: Plant Therapy conversion program\n\n"
    "Surefoot runs the conversion rate optimization program for Plant Therapy from February "
    "through July. Scope: the product detail page, the cart and the subscription upsell. "
    "Every experiment has a written hypothesis, runs at least fourteen days and reaches 95% "
    "significance before a winner is called.",
    "Milestones\n\n"
    "Week 2: analytics audit and a prioritized backlog of test ideas. "
    "Week 6: first two experiments live (essential-oil bundle builder, free-shipping "
    "threshold banner). Week 12: mid-program readout to the Plant Therapy growth team. "
    "Week 24: final report with the revenue per visitor impact of every shipped winner.",
    "Fees and terms\n\n"
    "The monthly retainer is 18,500 USD, invoiced on the first business day of each month "
    "and payable within thirty days. Out-of-scope work (new page designs, app experiments) "
    "is quoted separately. Either party may end the agreement with thirty days' written "
    "notice; work in flight is billed pro rata.",
]

REVIEW_SLIDES = [
    (
        "Q1 experiment review: The Shade Store",
        "Six experiments shipped, three winners\nCombined revenue per visitor +7.8%",
        "Open with the headline: three of six tests won, which is above our 30% base rate.",
    ),
    (
        "Swatch ordering test",
        "Free swatches moved above the fold\nSwatch orders +22%, conversion to purchase +4.1%",
        "The lift held for 21 days; mobile carried most of it. Ship to 100%.",
    ),
    (
        "Checkout trust badges",
        "Badges next to the pay button\nNo significant change after 28 days",
        "Call it flat, not a loss. Keep the badges for brand reasons; no revenue claim.",
    ),
    (
        "Q2 plan",
        "Measure-and-install flow redesign\nMotorized shades configurator\nPrice anchoring",
        "Ask Maya for the measure-and-install analytics access before the kickoff.",
    ),
]

_FIXED_TIME = (2026, 1, 1, 0, 0, 0)


def reproducible_zip(data: bytes) -> bytes:
    """The same zip with every member's timestamp fixed (OOXML writers stamp the save time)."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as src,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst,
    ):
        for item in src.infolist():
            fixed = zipfile.ZipInfo(item.filename, date_time=_FIXED_TIME)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(fixed, src.read(item.filename))
    return out.getvalue()


def main() -> None:
    target = HERE / "files"
    target.mkdir(exist_ok=True)
    (target / "plant-therapy-sow.pdf").write_bytes(office_files.pdf(SOW_PAGES))
    deck = reproducible_zip(office_files.pptx(REVIEW_SLIDES))
    (target / "shade-store-q1-review.pptx").write_bytes(deck)
    for path in sorted(target.iterdir()):
        sys.stdout.write(f"{path.relative_to(HERE.parent)}  {path.stat().st_size} bytes\n")


if __name__ == "__main__":
    main()
