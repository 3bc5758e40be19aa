"""Slide HTML to one vector PDF with WeasyPrint: one slide, one page, text selectable.

The HTML may come from anyone (generate-pdf takes it in the request body), so it
is treated as untrusted: only data: URIs may load. No file:// (it would read the
server's disk into the PDF), no http(s) (it would make the server a proxy into
its own network), and no base URL, so relative references resolve to nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import weasyprint
from PIL import ImageFile
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher

from socialgen.render.checks import check_pdf_request

# Importing WeasyPrint turns on Pillow's process-wide LOAD_TRUNCATED_IMAGES; the
# upload checks rely on Pillow refusing truncated images, so turn it back off (a
# truncated image in slide HTML is then simply not drawn).
ImageFile.LOAD_TRUNCATED_IMAGES = False

LOGGER = logging.getLogger(__name__)
ALLOWED_PROTOCOLS = frozenset({"data"})

# Author rules beat user rules unless the user rules are !important; these must win
# over whatever the slide says, so the page is exactly the slide's size.
PAGE_CSS = """
@page {{ size: {width}px {height}px !important; margin: 0 !important; }}
html, body {{ margin: 0 !important; padding: 0 !important; overflow: hidden !important; }}
"""


def html_to_pdf(
    pages: list[str], width: int, height: int, *, renderer: SlideRenderer | None = None
) -> bytes:
    """One PDF page of exactly `width` x `height` CSS px per HTML document, in order.

    A slide whose content runs onto a second page keeps only its first: a carousel
    slide is one page by definition. `renderer`: one that already laid the pages
    out (to fit their text), whose layouts are reused; of the same size.
    """
    if renderer is None or (renderer.width, renderer.height) != (width, height):
        renderer = SlideRenderer(width, height)
    return renderer.pdf(pages)


class SlideRenderer:
    """Lays slides out once for both uses: measuring a slide's text (render/measure.py)
    and writing the PDF reuse the same layout, so fitting text to its box costs a
    layout only for the tries that did not fit.

    Shared across the slides: fonts are looked up once, and a logo or profile
    picture repeated on every slide is decoded once.
    """

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self._fetcher = URLFetcher(allowed_protocols=ALLOWED_PROTOCOLS)
        self._font_config = FontConfiguration()
        self._image_cache: dict[str, object] = {}
        self._page_css = weasyprint.CSS(
            string=PAGE_CSS.format(width=width, height=height),
            url_fetcher=self._fetcher,
            font_config=self._font_config,
        )
        self._laid_out: dict[str, Any] = {}  # HTML -> its WeasyPrint document

    def document(self, html: str) -> Any:
        """The laid-out document of one slide (WeasyPrint is untyped), kept for `pdf`."""
        if html not in self._laid_out:
            with quiet_weasyprint():
                self._laid_out[html] = weasyprint.HTML(
                    string=html, base_url=None, url_fetcher=self._fetcher
                ).render(
                    font_config=self._font_config,
                    stylesheets=[self._page_css],
                    cache=self._image_cache,
                )
        return self._laid_out[html]

    def pdf(self, pages: list[str]) -> bytes:
        check_pdf_request(pages, self.width, self.height)
        documents = [self.document(page) for page in pages]
        self._laid_out.clear()  # the tries that did not fit go with it
        with quiet_weasyprint():
            # Pages of several documents go into one PDF through copy(); the metadata
            # (title: the first slide's <title>) is the first document's.
            pdf = documents[0].copy([document.pages[0] for document in documents]).write_pdf()
        if not isinstance(pdf, bytes):  # it is, without a target; WeasyPrint is untyped
            raise TypeError(f"WeasyPrint's write_pdf returned {type(pdf).__name__}, not bytes")
        return pdf


# --- logging ------------------------------------------------------------------------


class _DemoteToDebug(logging.Filter):
    """Passes WeasyPrint's warnings and errors on at DEBUG, under our logger.

    With untrusted HTML, "Failed to load image at 'file:///...'" is WeasyPrint
    reporting an error and us reporting success; it must not reach stderr.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno <= logging.DEBUG:
            return True
        LOGGER.debug("weasyprint %s: %s", record.levelname.lower(), record.getMessage())
        return False


@contextmanager
def quiet_weasyprint() -> Iterator[None]:
    """Demote WeasyPrint's log records while a render runs, then leave it as it was.

    Each render adds a filter of its own and takes it away: renders overlapping in
    several threads (the API's worker threads) keep one on until the last one ends,
    with no count kept in the module. The first filter that sees a record demotes it;
    the others are not asked (logging stops at the first that drops it).
    """
    weasyprint_logger = logging.getLogger("weasyprint")
    demote = _DemoteToDebug()
    weasyprint_logger.addFilter(demote)
    try:
        yield
    finally:
        weasyprint_logger.removeFilter(demote)
