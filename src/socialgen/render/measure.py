"""How far a slide's text runs past its box, measured by WeasyPrint's own layout.

WeasyPrint runs no JavaScript, so a slide cannot shrink its own text; the caller
lays the slide out here, reads the line boxes, and renders again smaller. An
element with the class `text` is a text box: its lines must end inside it, since
the templates clip it (`overflow: hidden`) and a clipped line is lost from the PDF.
"""

from __future__ import annotations

from typing import Any

from weasyprint.formatting_structure import boxes

from socialgen.render.pdf import SlideRenderer

TEXT_BOX_CLASS = "text"


def text_overflow_px(html: str, renderer: SlideRenderer) -> float:
    """How many CSS px the lowest line of any text box ends below that box's bottom
    on the first page; zero or less when every line fits.

    The layout is `renderer`'s, so the PDF written from these pages reuses it."""
    document = renderer.document(html)
    if not document.pages:
        return 0.0
    return _worst_overflow(document.pages[0]._page_box, None)


def _worst_overflow(box: Any, box_bottom: float | None) -> float:
    box = getattr(box, "_box", box)  # absolutely placed boxes come wrapped
    element = getattr(box, "element", None)
    classes = (element.get("class") or "").split() if element is not None else []
    if box_bottom is None and TEXT_BOX_CLASS in classes and isinstance(box, boxes.BlockBox):
        box_bottom = box.content_box_y() + box.height
    worst = float("-inf")
    if isinstance(box, boxes.LineBox) and box_bottom is not None:
        worst = box.position_y + box.height - box_bottom
    for child in getattr(box, "children", ()):
        worst = max(worst, _worst_overflow(child, box_bottom))
    return worst
