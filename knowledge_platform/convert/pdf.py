"""PDF -> one section per page, text in reading order by pdfminer.six's layout analysis
(which puts a two-column page's left column before its right even when the file draws them
line by line across)."""

from __future__ import annotations

import io
import unicodedata

from pdfminer.high_level import extract_pages
from pdfminer.layout import LAParams, LTContainer, LTImage, LTPage, LTText, LTTextContainer
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect

from knowledge_platform.convert.markdown import escape
from knowledge_platform.convert.result import Section
from knowledge_platform.errors import CorruptFileError, EncryptedFileError, NoTextLayerError


def pdf_sections(data: bytes, name: str) -> tuple[list[Section], int, list[str]]:
    """(sections, page count, notes). A page with no text gives no section and a note; a
    file with no text on any page is a scan: NoTextLayerError."""
    sections: list[Section] = []
    blank: list[int] = []
    images = 0
    pages = 0
    try:
        for pages, page in enumerate(extract_pages(io.BytesIO(data), laparams=LAParams()), 1):
            text = _page_text(page)
            images += int(_has_image(page))
            if text:
                sections.append(Section("page", pages, "", escape(text)))
            else:
                blank.append(pages)
    except (PDFPasswordIncorrect, PDFEncryptionError) as exc:
        raise EncryptedFileError(
            f"{name}: encrypted PDF that needs a password ({type(exc).__name__}); not read"
        ) from None
    if pages == 0:
        raise CorruptFileError(f"{name}: a PDF with no pages")
    if not sections:
        what = f"{pages} page(s)" + (f", {images} with images" if images else "")
        raise NoTextLayerError(f"{name}: no text layer; OCR not enabled ({what})")
    notes = [f"no text layer on p. {', '.join(map(str, blank))}"] if blank else []
    return sections, pages, notes


def _page_text(page: LTPage) -> str:
    """The page's text boxes in layout order, NFKC-normalized (ligatures such as "ﬁ" become
    "fi", as a searcher types them), trailing spaces and extra blank lines dropped."""
    raw = unicodedata.normalize("NFKC", "".join(_texts(page)))
    lines = [line.rstrip() for line in raw.replace("\f", "\n").split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def _texts(item: object):
    """Text boxes as laid out; text inside figures (form XObjects) in drawing order."""
    if isinstance(item, LTTextContainer):
        yield item.get_text()
        yield "\n"
    elif isinstance(item, LTContainer):
        for child in item:
            yield from _texts(child)
    elif isinstance(item, LTText):
        yield item.get_text()


def _has_image(item: object) -> bool:
    if isinstance(item, LTImage):
        return True
    return isinstance(item, LTContainer) and any(_has_image(child) for child in item)
