"""Site chrome in the website's documents, measured on the fake company site.

The fake (tests/fakes/website_server.py) wraps every page in what real themes put in plain
`<div>`s: a brand bar with a tagline and the menu, and a call-to-action banner. trafilatura
keeps them on short pages. This pulls the site twice with the real connector -- chrome
detection off (`chrome_min_pages` larger than the site) and on (the defaults) -- and prints,
per page length, how many documents hold the brand tagline or the banner and how many start
with them, plus the pull time (after a warm-up pull).

    .venv/bin/python bench/website_chrome.py [--short 10] [--long 20]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from knowledge_platform.connectors.website.connector import (  # noqa: E402
    WebsiteConnector,
    WebsiteSettings,
)
from tests.fakes.website_server import BRAND, CTA, WebsiteFake  # noqa: E402

RESULTS = ROOT / "bench" / "results"
FILLER = (
    "Each engagement starts with a research sprint, a testing roadmap and experiments "
    "that run until they reach significance. "
)


def build(site: WebsiteFake, short: int, long: int) -> dict[str, str]:
    kinds = {}
    for n in range(short):
        site.add_page(f"/notes/{n}", f"Note {n}", f"Call the desk about item {n} on Mondays.")
        kinds[site.url(f"/notes/{n}")] = "short"
    for n in range(long):
        site.add_page(f"/services/{n}", f"Service {n}", f"Service {n} explained. " + FILLER * 8)
        kinds[site.url(f"/services/{n}")] = "long"
    return kinds


def measure(site: WebsiteFake, kinds: dict[str, str], **overrides: object) -> dict[str, object]:
    settings = WebsiteSettings.model_validate({"base_url": site.url(), **overrides})
    started = time.perf_counter()
    result = WebsiteConnector(settings, "internal").pull(None)
    seconds = time.perf_counter() - started
    row: dict[str, object] = {"seconds": seconds}
    for kind in ("short", "long"):
        docs = [d for d in result.documents if kinds.get(d.source_id) == kind]
        marks = (BRAND[:24], CTA[:24])
        body = [d.text.removeprefix(f"# {d.title}").lstrip() for d in docs]
        row[kind] = (
            len(docs),
            sum(any(m in t for m in marks) for t in body),
            sum(t.startswith(marks) for t in body),
        )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--short", type=int, default=10)
    parser.add_argument("--long", type=int, default=20)
    args = parser.parse_args()
    with WebsiteFake(per_sitemap=50) as site:
        kinds = build(site, args.short, args.long)
        measure(site, kinds)  # warm-up: imports, trafilatura's first call
        off = measure(site, kinds, chrome_min_pages=10**6)
        on = measure(site, kinds)
    lines = [
        f"Site chrome on the fake site ({args.short} short pages, {args.long} long ones)",
        "",
        "| chrome detection | short pages with chrome / starting with it | long pages with "
        "chrome / starting with it | pull |",
        "|---|---|---|---|",
    ]
    for name, row in (("off", off), ("on (default)", on)):
        cells = []
        for kind in ("short", "long"):
            total, having, starting = row[kind]  # type: ignore[misc]
            cells.append(f"{having}/{total} / {starting}/{total}")
        lines.append(f"| {name} | {cells[0]} | {cells[1]} | {row['seconds']:.2f} s |")
    text = "\n".join(lines)
    print(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "website_chrome.md").write_text(text + "\n")


if __name__ == "__main__":
    main()
