"""Site chrome detection on parsed pages: only whole blocks shared by most pages go; a link
inside a sentence, a heading and the page's own text stay."""

from __future__ import annotations

from knowledge_platform.connectors.website.page import (
    main_text,
    parse_page,
    site_chrome,
    strip_chrome,
)


def html(body: str) -> str:
    return (
        "<html><head><title>T</title></head><body>"
        '<div class="bar"><p>Acme Plumbing: pipes since 1990.</p></div>'
        f"<main><article><h2>Services</h2><p>{body} Please "
        '<a href="/contact">contact us</a> today.</p></article></main></body></html>'
    )


def test_blocks_on_most_pages_are_chrome_and_nothing_else_is() -> None:
    pages = [
        parse_page(html(f"Page {n} covers drain number {n}."), f"http://x/{n}") for n in range(4)
    ]
    assert all(p is not None for p in pages)
    chrome = site_chrome([p.blocks for p in pages if p], share=0.5, min_pages=3)
    page = pages[0]
    assert page is not None
    assert strip_chrome(page, chrome) == 1  # the brand bar (its <p> goes with it)
    _, text = main_text(page, "http://x/0")
    assert text is not None
    assert "pipes since 1990" not in text
    assert "Services" in text and "contact us today" in text


def test_too_few_pages_have_no_chrome() -> None:
    pages = [parse_page(html(f"Page {n}."), f"http://x/{n}") for n in range(2)]
    assert site_chrome([p.blocks for p in pages if p], share=0.5, min_pages=3) == set()


def test_canonical_link_is_made_absolute() -> None:
    page = parse_page(
        '<html><head><link rel="Canonical" href="/pricing#top"></head><body><p>x</p></body></html>',
        "http://x/pricing-print?utm=1",
    )
    assert page is not None and page.canonical == "http://x/pricing"
