"""The first page of a PDF as a PNG: a carousel's thumbnail."""

from __future__ import annotations

import io

import pypdfium2

from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import MAX_SLIDE_SIDE


def first_page_png(pdf: bytes, width: int = 540) -> bytes:
    """Page 1 of `pdf` rendered `width` px wide (height in proportion), as PNG bytes."""
    if not 1 <= width <= MAX_SLIDE_SIDE:
        raise BadRequest(f"Thumbnail width must be between 1 and {MAX_SLIDE_SIDE} pixels")
    try:
        document = pypdfium2.PdfDocument(pdf)
    except pypdfium2.PdfiumError:
        # PDFium's own reasons ("Failed to load document (PDFium: Success)") help nobody.
        raise BadRequest("Cannot make a thumbnail: the PDF is unreadable") from None
    try:
        if len(document) == 0:
            raise BadRequest("Cannot make a thumbnail: the PDF has no pages")
        page = document[0]
        try:
            page_width, _ = page.get_size()  # in points
            image = page.render(scale=width / page_width).to_pil()
        finally:
            page.close()
    finally:
        document.close()
    buffer = io.BytesIO()
    # No optimize: its extra compression passes cost more time than the bytes are worth.
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()
