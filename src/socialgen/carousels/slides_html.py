"""Carousel slides to HTML: one complete HTML document per slide, from a Jinja2 template.

Titles and text are model output and themes may come from a request, so nothing
reaches the HTML unchecked: autoescaping makes `<script>` in a title plain text,
and theme values, which land inside CSS where escaping does not help, must look
like a colour or a font name or the template's own value is used instead.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable
from dataclasses import replace
from functools import cache, partial
from pathlib import Path

import jinja2

from socialgen.carousels.slides import Brand, SlideContent, Theme
from socialgen.carousels.templates import get_template

TEMPLATES_DIR = Path(__file__).parent / "templates"
LOGGER = logging.getLogger(__name__)
# The scales tried, in order, on the templates' largest font sizes when a slide's
# text overflows; sizes never go below each template's floor (`smallest`).
SHRINK_STEPS = (0.88, 0.77, 0.66, 0.55, 0.45)

_HEX_COLOR = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_FUNCTION_COLOR = re.compile(r"(?:rgb|rgba|hsl|hsla)\(\s*[0-9.%,/ deg+-]+\)", re.IGNORECASE)
_NAMED_COLOR = re.compile(r"[a-zA-Z]{3,30}")
_FONT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 \-]{0,63}")

# Colours chosen against a background: strong for titles, soft for body text,
# faint for hairlines.
DARK_INK = {"strong": "#15181D", "soft": "#474D57", "faint": "#D3D6DB"}
LIGHT_INK = {"strong": "#FFFFFF", "soft": "#DADDE3", "faint": "#5A606A"}


def render_slides(
    template: str,
    slides: list[SlideContent],
    theme: Theme,
    brand: Brand,
    *,
    width: int,
    height: int,
    overflow: Callable[[str], float] | None = None,
) -> list[str]:
    """Each slide as a full HTML document, `width` x `height` CSS px, in order.

    With `overflow` (how far a slide's text runs past its box, e.g.
    render/measure.py), each slide is fitted to its boxes (see `_fitted`)."""
    chosen = get_template(template)
    safe_theme = _safe_theme(theme, chosen.theme)
    page = _environment().get_template(f"{chosen.name}.html")
    total = len(slides)

    def one(index: int, slide: SlideContent, shrink: float) -> str:
        return page.render(
            slide=slide,
            theme=safe_theme,
            brand=brand,
            index=index,
            total=total,
            width=width,
            height=height,
            fit_font_px=partial(fit_font_px, shrink=shrink),
        )

    if overflow is None:
        return [one(index, slide, 1.0) for index, slide in enumerate(slides, start=1)]
    return [
        _fitted(partial(one, index), slide, overflow) for index, slide in enumerate(slides, start=1)
    ]


def _fitted(
    render: Callable[[SlideContent, float], str],
    slide: SlideContent,
    overflow: Callable[[str], float],
) -> str:
    """The slide at the largest font sizes whose lines all end inside their boxes,
    measured, not estimated: each step renders again with the sizes scaled down,
    to each template's floor. Where the floor still overflows, the text loses
    words from its end (marked with an ellipsis) until it fits, and a warning says so."""
    for shrink in (1.0, *SHRINK_STEPS):
        html = render(slide, shrink)
        if overflow(html) <= 0:
            return html
    words = slide.content.split(" ")
    while len(words) > 1:  # each step drops about a sixth of the words left
        words = words[: max(1, len(words) * 5 // 6)]
        shorter = replace(slide, content=" ".join(words).rstrip(" ,;:.-") + "\u2026")
        html = render(shorter, SHRINK_STEPS[-1])
        if overflow(html) <= 0:
            break
    LOGGER.warning("Slide %r did not fit at the smallest type: its text was shortened", slide.title)
    return html


@cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        autoescape=True,
        undefined=jinja2.StrictUndefined,  # a typo in a template fails loudly
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.globals["fit_font_px"] = fit_font_px
    environment.globals["text_height_px"] = text_height_px
    environment.filters["ink"] = ink
    return environment


def fit_font_px(
    text: str,
    box_width: float,
    box_height: float,
    *,
    largest: float,
    smallest: float,
    char_width: float = 0.5,
    line_height: float = 1.3,
    shrink: float = 1.0,
) -> int:
    """The largest font size (px), from `largest` down to `smallest`, at which
    `text` should fit in the box (see `text_height_px`).

    `shrink` scales `largest` down (never below `smallest`): the measured fit's
    steps (`_fitted`) when this estimate proved too large.
    """
    size = max(float(largest) * shrink, smallest)
    while size > smallest:
        if text_height_px(text, box_width, size, char_width, line_height) <= box_height:
            break
        size *= 0.94
    return int(max(size, smallest))


def text_height_px(
    text: str,
    box_width: float,
    size: float,
    char_width: float = 0.5,
    line_height: float = 1.3,
) -> float:
    """How tall `text` should be at font size `size` (px) wrapped to `box_width`.

    An estimate, not a layout: WeasyPrint is too slow to measure text by trial.
    Every character is taken as `char_width` ems wide, the font's average over
    ordinary text (DejaVu Sans: about 0.5 regular, 0.6 bold), and each line as
    a little short of full because wrapping happens at word boundaries.
    """
    per_line = max(1.0, box_width / (char_width * size) * 0.92)
    lines = sum(max(1, math.ceil(len(line) / per_line)) for line in text.splitlines() or [""])
    return lines * size * line_height


def ink(background: str, tone: str = "strong") -> str:
    """A colour readable on `background` (dark on light colours, light on dark ones),
    in one of the tones strong, soft or faint.

    Colours other than #hex count as light; the templates' own themes are #hex.
    """
    luminance = _luminance(background)
    inks = DARK_INK if luminance is None or luminance > 0.3 else LIGHT_INK
    return inks[tone]


def _luminance(color: str) -> float | None:
    """Relative luminance (0 black .. 1 white) of a #hex colour; None for other forms."""
    if not _HEX_COLOR.fullmatch(color):
        return None
    digits = color[1:]
    if len(digits) in (3, 4):
        digits = "".join(d * 2 for d in digits)
    channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _safe_theme(theme: Theme, default: Theme) -> Theme:
    """`theme`, with any value that could break out of its CSS declaration replaced."""
    return replace(
        theme,
        primary_color=_css_color(theme.primary_color, default.primary_color),
        background_color=_css_color(theme.background_color, default.background_color),
        font=theme.font.strip() if _FONT_NAME.fullmatch(theme.font.strip()) else default.font,
    )


def _css_color(value: str, default: str) -> str:
    value = value.strip()
    for pattern in (_HEX_COLOR, _FUNCTION_COLOR, _NAMED_COLOR):
        if pattern.fullmatch(value):
            return value
    return default
