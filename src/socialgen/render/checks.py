"""What generate-pdf and `carousel pdf` refuse before rendering. Kept apart from
pdf.py so checking a request never imports WeasyPrint (a second's import that
would otherwise happen on the server's event loop)."""

from __future__ import annotations

from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import (
    MAX_PDF_SLIDES,
    MAX_SLIDE_HTML_BYTES,
    MAX_SLIDE_SIDE,
    MAX_SLIDES_HTML_BYTES,
)


def check_pdf_request(pages: list[str], width: int, height: int) -> None:
    """Refuse what cannot or must not be rendered, before any rendering starts."""
    for name, side in (("width", width), ("height", height)):
        # bool is an int to Python; "width": true is still a bad request.
        if not isinstance(side, int) or isinstance(side, bool):
            raise BadRequest(f"{name} must be a whole number of pixels")
        if not 1 <= side <= MAX_SLIDE_SIDE:
            raise BadRequest(f"{name} must be between 1 and {MAX_SLIDE_SIDE} pixels, got {side}")
    if not isinstance(pages, list) or not pages:
        raise BadRequest("slidesHtml must be a non-empty list of HTML strings")
    if len(pages) > MAX_PDF_SLIDES:
        raise BadRequest(f"slidesHtml has {len(pages)} slides; the most is {MAX_PDF_SLIDES}")
    total = 0
    for index, page in enumerate(pages):
        if not isinstance(page, str):
            raise BadRequest(f"slidesHtml[{index}] must be a string")
        if not page.strip():
            raise BadRequest(f"slidesHtml[{index}] is empty")
        size = len(page.encode("utf-8"))
        if size > MAX_SLIDE_HTML_BYTES:
            raise BadRequest(
                f"slidesHtml[{index}] is {size} bytes; the most for one slide is "
                f"{MAX_SLIDE_HTML_BYTES}"
            )
        total += size
    if total > MAX_SLIDES_HTML_BYTES:
        raise BadRequest(f"slidesHtml is {total} bytes in all; the most is {MAX_SLIDES_HTML_BYTES}")


def render_caller(user_id: str | None, workspace_id: str | None) -> str:
    """Whose share of the PDF workers a request uses: its user, or, for a
    workspace-bound key acting without a user, that workspace."""
    return f"user:{user_id}" if user_id is not None else f"workspace:{workspace_id}"
