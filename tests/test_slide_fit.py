"""Slide text never clips: the longest title and text the outline allows, in every
template, with and without an image, render with every word on the page.

Real WeasyPrint and pypdfium2; skipped where Pango or the fonts are missing
(tests/system_fonts.py)."""

# ruff: noqa: E402  (WeasyPrint is imported after the check that skips without Pango)

from __future__ import annotations

from functools import partial
from io import BytesIO

import pytest

from tests.system_fonts import require_weasyprint

require_weasyprint()

import pypdfium2
from PIL import Image

from socialgen.carousels.outline import MAX_TEXT_CHARS
from socialgen.carousels.plain_outline import MAX_TITLE_CHARS
from socialgen.carousels.slides import Brand, SlideContent, data_uri
from socialgen.carousels.slides_html import render_slides
from socialgen.carousels.templates import TEMPLATES
from socialgen.kit.limits import DEFAULT_SLIDE_HEIGHT, DEFAULT_SLIDE_WIDTH
from socialgen.render.measure import text_overflow_px
from socialgen.render.pdf import SlideRenderer, html_to_pdf

WIDTH, HEIGHT = DEFAULT_SLIDE_WIDTH, DEFAULT_SLIDE_HEIGHT
BRAND = Brand(handle="@ada", name="Ada Lovelace", profile_image_uri=None, logo_uri=None)

# Wide words (capitals, m and w) so each line holds few of them: the worst case
# the limits allow, not an average sentence.
_WORDS = (
    "Momentum",
    "Wonderful",
    "Maximum",
    "Workflow",
    "Mindsets",
    "Homework",
    "Wisdom",
    "Mammoth",
    "Wombats",
    "Memorandum",
    "Midwinter",
    "Worthwhile",
)


def numbered_words(limit: int, prefix: str) -> str:
    """Distinct words (each carries its number) filling exactly `limit` characters."""
    words: list[str] = []
    index = 0
    while True:
        word = f"{_WORDS[index % len(_WORDS)]}{prefix}{index}"
        if len(" ".join([*words, word])) > limit:
            break
        words.append(word)
        index += 1
    text = " ".join(words)
    return text + "W" * (limit - len(text))  # the last word takes up the remainder


def page_text(pdf: bytes) -> str:
    document = pypdfium2.PdfDocument(pdf)
    try:
        return " ".join(page.get_textpage().get_text_range() for page in document)
    finally:
        document.close()


def pixel_image() -> str:
    buffer = BytesIO()
    Image.new("RGB", (64, 64), (40, 90, 160)).save(buffer, format="PNG")
    return data_uri(buffer.getvalue(), "image/png")


def fitted_pages(template: str, slide: SlideContent) -> list[str]:
    """The slide as carousels render it (carousels/assets.py): measured and fitted."""
    renderer = SlideRenderer(WIDTH, HEIGHT)
    return render_slides(
        template,
        [slide],
        TEMPLATES[template].theme,
        BRAND,
        width=WIDTH,
        height=HEIGHT,
        overflow=partial(text_overflow_px, renderer=renderer),
    )


def overflow_of(page: str) -> float:
    return text_overflow_px(page, SlideRenderer(WIDTH, HEIGHT))


def longest_slide(with_image: bool) -> SlideContent:
    title = numbered_words(MAX_TITLE_CHARS, "t")
    text = numbered_words(MAX_TEXT_CHARS, "x")
    assert len(title) == MAX_TITLE_CHARS and len(text) == MAX_TEXT_CHARS
    return SlideContent(title=title, content=text, image_uri=pixel_image() if with_image else None)


@pytest.mark.parametrize("with_image", [False, True], ids=["no-image", "image"])
@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_longest_title_and_text_show_every_word(template: str, with_image: bool) -> None:
    slide = longest_slide(with_image)
    pages = fitted_pages(template, slide)
    # Clipped lines stay in the PDF's text layer, hidden: so the layout must show
    # every line inside its box, and the PDF must hold every word.
    assert overflow_of(pages[0]) <= 0
    found = set(page_text(html_to_pdf(pages, WIDTH, HEIGHT)).split())
    missing = [word for word in f"{slide.title} {slide.content}".split() if word not in found]
    assert not missing, f"{template}: cut from the slide: {missing}"


def test_the_estimate_alone_clips_which_the_measure_sees() -> None:
    """Without measuring, the longest bold slide runs past its box: the fitting
    above is needed, and the measure is not blind."""
    slide = longest_slide(with_image=False)
    unfitted = render_slides(
        "bold", [slide], TEMPLATES["bold"].theme, BRAND, width=WIDTH, height=HEIGHT
    )
    assert overflow_of(unfitted[0]) > 0


def test_text_that_cannot_fit_at_the_floor_is_shortened() -> None:
    """Far more text than any limit allows: the slide keeps its title, its text
    ends in an ellipsis, and nothing runs past the box."""
    text = " ".join(f"Word{n}" for n in range(400))
    slide = SlideContent(title="A short title", content=text, image_uri=None)
    page = fitted_pages("bold", slide)[0]
    assert overflow_of(page) <= 0
    found = page_text(html_to_pdf([page], WIDTH, HEIGHT))
    assert "A short title" in found and "Word0" in found and "Word399" not in found
    assert "\u2026" in found
