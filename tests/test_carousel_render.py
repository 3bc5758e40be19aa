"""Carousel rendering: slide templates to HTML, HTML to a vector PDF, PDF to a thumbnail.

Everything is real: Jinja2, WeasyPrint, pypdfium2. The security tests use a real
HTTP server on 127.0.0.1 and real files on disk, and check that neither was read.
Where Pango or a font is missing (pip cannot install them) the tests that need it
are skipped, naming the Debian package: see tests/system_fonts.py.
"""

# ruff: noqa: E402  (WeasyPrint is imported after the check that skips without Pango)

from __future__ import annotations

import io
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.system_fonts import needs_font, require_weasyprint

require_weasyprint()  # the whole module renders with WeasyPrint

import pypdfium2
import pypdfium2.raw as pdfium_c
import weasyprint
from PIL import Image, ImageChops, ImageStat

from socialgen.carousels.slides import Brand, SlideContent, Theme, data_uri
from socialgen.carousels.slides_html import TEMPLATES_DIR, fit_font_px, ink, render_slides
from socialgen.carousels.templates import (
    DEFAULT_TEMPLATE,
    TEMPLATES,
    get_template,
    list_templates,
)
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import (
    DEFAULT_SLIDE_HEIGHT,
    DEFAULT_SLIDE_WIDTH,
    MAX_PDF_SLIDES,
    MAX_SLIDE_HTML_BYTES,
    MAX_SLIDE_SIDE,
    MAX_SLIDES_HTML_BYTES,
)
from socialgen.render.checks import check_pdf_request
from socialgen.render.pdf import html_to_pdf
from socialgen.render.thumbnail import first_page_png

RED = (255, 0, 0)
WHITE = (255, 255, 255)

# --- helpers ------------------------------------------------------------------------


def image_bytes(color: tuple[int, int, int], size: tuple[int, int], image_format: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format=image_format)
    return buffer.getvalue()


def png_uri(color: tuple[int, int, int], size: tuple[int, int] = (64, 64)) -> str:
    return data_uri(image_bytes(color, size, "PNG"), "image/png")


def jpeg_uri(color: tuple[int, int, int], size: tuple[int, int] = (256, 256)) -> str:
    return data_uri(image_bytes(color, size, "JPEG"), "image/jpeg")


def page_sizes(pdf: bytes) -> list[tuple[float, float]]:
    document = pypdfium2.PdfDocument(pdf)
    return [document[index].get_size() for index in range(len(document))]


def page_text(pdf: bytes, index: int = 0) -> str:
    """The page's text with runs of whitespace (line breaks included) made one space."""
    page = pypdfium2.PdfDocument(pdf)[index]
    return " ".join(page.get_textpage().get_text_range().split())


def image_objects(pdf: bytes, index: int = 0) -> int:
    page = pypdfium2.PdfDocument(pdf)[index]
    return len(list(page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE])))


def thumbnail(pdf: bytes, width: int = 270) -> Image.Image:
    return Image.open(io.BytesIO(first_page_png(pdf, width))).convert("RGB")


def pixel(image: Image.Image, x: float, y: float) -> tuple[int, int, int]:
    """The colour at a fraction (x, y) of the image's width and height."""
    value = image.getpixel((int(x * (image.width - 1)), int(y * (image.height - 1))))
    assert isinstance(value, tuple)
    return (value[0], value[1], value[2])


def close_to(actual: tuple[int, int, int], expected: tuple[int, int, int]) -> bool:
    return all(abs(a - e) <= 12 for a, e in zip(actual, expected, strict=True))


def slide_html(body: str, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>"


BRAND = Brand(
    handle="@ada.ships",
    name="Ada Lovelace",
    profile_image_uri=jpeg_uri((200, 140, 90), (96, 96)),
    logo_uri=png_uri((20, 40, 200), (120, 40)),
)
NO_BRAND = Brand(handle=None, name=None, profile_image_uri=None, logo_uri=None)
SLIDE = SlideContent(
    title="Queues are the real enemy",
    content="Most lead time is waiting: for review, for QA, for a deploy window.",
    image_uri=jpeg_uri((30, 160, 90)),
)


def render(
    template: str,
    slides: list[SlideContent],
    brand: Brand = BRAND,
    theme: Theme | None = None,
    width: int = DEFAULT_SLIDE_WIDTH,
    height: int = DEFAULT_SLIDE_HEIGHT,
) -> list[str]:
    chosen = theme or get_template(template).theme
    return render_slides(template, slides, chosen, brand, width=width, height=height)


# --- html_to_pdf: pages ------------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "height"), [(DEFAULT_SLIDE_WIDTH, DEFAULT_SLIDE_HEIGHT), (800, 600)]
)
def test_one_page_per_slide_of_exactly_the_slide_size(width: int, height: int) -> None:
    pages = [
        slide_html("<h1>First</h1>"),
        # The author's own page rules and margins must not change the page.
        slide_html("<h1>Second</h1>", "<style>@page { size: A4; margin: 2cm }</style>"),
        # Runs onto several pages in WeasyPrint; only the first is kept.
        slide_html("<p>" + "overflowing text " * 3000 + "</p>"),
    ]
    pdf = html_to_pdf(pages, width, height)
    assert pdf.startswith(b"%PDF-")
    sizes = page_sizes(pdf)
    assert len(sizes) == 3
    for page_width, page_height in sizes:  # CSS px are 0.75 pt
        assert page_width == pytest.approx(width * 0.75, abs=0.01)
        assert page_height == pytest.approx(height * 0.75, abs=0.01)
    assert page_text(pdf, 0) == "First"
    assert page_text(pdf, 1) == "Second"


def test_body_margin_cannot_move_the_slide() -> None:
    pdf = html_to_pdf(
        [
            slide_html(
                "",
                "<style>@page { margin: 100px } body { margin: 100px; padding: 100px;"
                " background: red } html { background: red }</style>",
            )
        ],
        400,
        400,
    )
    # No white frame: the red background reaches the page's corner.
    assert close_to(pixel(thumbnail(pdf, 100), 0, 0), RED)


def test_text_stays_selectable() -> None:
    pdf = html_to_pdf(
        [slide_html("<h1>Ship smaller, ship sooner</h1><p>Body text</p>")], 1080, 1350
    )
    assert page_text(pdf) == "Ship smaller, ship sooner Body text"


def test_data_png_is_embedded() -> None:
    style = "<style>img { display: block; width: 400px; height: 400px }</style>"
    pdf = html_to_pdf([slide_html(f'<img src="{png_uri(RED)}">', style)], 400, 400)
    assert image_objects(pdf) == 1
    assert close_to(pixel(thumbnail(pdf, 100), 0.5, 0.5), RED)


# --- html_to_pdf: untrusted HTML loads nothing but data: ---------------------------


@dataclass
class Server:
    base: str = ""
    requests: list[str] = field(default_factory=list)


@pytest.fixture
def server() -> Iterator[Server]:
    """Serves a red stylesheet and a red image to anyone who asks, and counts them."""
    state = Server()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.requests.append(self.path)
            is_css = self.path.endswith(".css")
            body = b"html, body { background: red }" if is_css else image_bytes(RED, (8, 8), "PNG")
            self.send_response(200)
            self.send_header("Content-Type", "text/css" if is_css else "image/png")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    state.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


def test_untrusted_html_loads_no_file_and_no_url(
    server: Server, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    red_png = tmp_path / "red.png"
    red_png.write_bytes(image_bytes(RED, (8, 8), "PNG"))
    red_css = tmp_path / "red.css"
    red_css.write_text("html, body { background: red }")
    file_png, file_css = red_png.as_uri(), red_css.as_uri()
    head = f"""
      <link rel="stylesheet" href="{server.base}/link.css">
      <link rel="stylesheet" href="{file_css}">
      <style>
        @import url("{server.base}/import.css");
        @import url("{file_css}");
        @font-face {{ font-family: Remote; src: url("{server.base}/font.woff") }}
        body {{ font-family: Remote, sans-serif }}
        .a {{ background: url("{file_png}") }}
        .b {{ background-image: url("file:///etc/hostname") }}
        .c {{ background: url("{server.base}/bg.png") }}
        div {{ width: 100px; height: 100px }}
      </style>"""
    body = f"""
      <img src="file:///etc/hostname">
      <img src="{file_png}" style="width: 400px; height: 400px">
      <img src="{server.base}/img.png" style="width: 400px; height: 400px">
      <img src="relative.png">
      <div class="a"></div><div class="b"></div><div class="c"></div>
      <p>still rendered</p>"""
    based = slide_html('<img src="based.png">', f'<base href="{server.base}/">')

    caplog.set_level(logging.DEBUG)
    pdf = html_to_pdf([slide_html(body, head), based], 400, 400)

    assert server.requests == []
    assert len(page_sizes(pdf)) == 2
    assert page_text(pdf) == "still rendered"
    assert image_objects(pdf) == 0  # no image from disk or network made it in
    image = thumbnail(pdf, 100)
    assert all(close_to(pixel(image, x, y), WHITE) for x, y in [(0, 0), (0.5, 0.5), (1, 1)])
    # Refusals are WeasyPrint "errors" but routine here: logged at DEBUG, not louder.
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert any("disallowed protocol" in r.getMessage() for r in caplog.records)
    assert logging.getLogger("weasyprint").filters == []  # quiet only during the call


# --- check_pdf_request ---------------------------------------------------------------

PAGE = slide_html("<p>x</p>")


@pytest.mark.parametrize(
    ("pages", "width", "height", "message"),
    [
        ([], 1080, 1350, "slidesHtml must be a non-empty list of HTML strings"),
        ([PAGE, PAGE, PAGE, " \n\t"], 1080, 1350, "slidesHtml[3] is empty"),
        ([""], 1080, 1350, "slidesHtml[0] is empty"),
        ([PAGE], 0, 1350, f"width must be between 1 and {MAX_SLIDE_SIDE} pixels, got 0"),
        (
            [PAGE],
            1080,
            MAX_SLIDE_SIDE + 1,
            f"height must be between 1 and {MAX_SLIDE_SIDE} pixels, got {MAX_SLIDE_SIDE + 1}",
        ),
        ([PAGE], 1080.5, 1350, "width must be a whole number of pixels"),
        ([PAGE], 1080, True, "height must be a whole number of pixels"),
        ([PAGE], "1080", 1350, "width must be a whole number of pixels"),
        (
            [PAGE] * (MAX_PDF_SLIDES + 1),
            1080,
            1350,
            f"slidesHtml has {MAX_PDF_SLIDES + 1} slides; the most is {MAX_PDF_SLIDES}",
        ),
    ],
)
def test_bad_pdf_requests_are_refused(
    pages: list[str], width: int, height: int, message: str
) -> None:
    with pytest.raises(BadRequest) as refused:
        check_pdf_request(pages, width, height)
    assert refused.value.message == message
    assert refused.value.status_code == 400


def test_slide_size_limit_counts_utf8_bytes() -> None:
    # Fewer characters than the limit, more bytes: "é" is two bytes in UTF-8.
    page = "é" * (MAX_SLIDE_HTML_BYTES // 2 + 1)
    assert len(page) < MAX_SLIDE_HTML_BYTES
    with pytest.raises(BadRequest) as refused:
        check_pdf_request([PAGE, page], 1080, 1350)
    assert refused.value.message == (
        f"slidesHtml[1] is {MAX_SLIDE_HTML_BYTES + 2} bytes; "
        f"the most for one slide is {MAX_SLIDE_HTML_BYTES}"
    )
    check_pdf_request([page[:-1]], 1080, 1350)  # exactly at the limit is fine


def test_total_size_limit() -> None:
    page = "x" * MAX_SLIDE_HTML_BYTES
    count = MAX_SLIDES_HTML_BYTES // MAX_SLIDE_HTML_BYTES + 1
    with pytest.raises(BadRequest) as refused:
        check_pdf_request([page] * count, 1080, 1350)
    assert refused.value.message == (
        f"slidesHtml is {count * MAX_SLIDE_HTML_BYTES} bytes in all; "
        f"the most is {MAX_SLIDES_HTML_BYTES}"
    )


def test_html_to_pdf_checks_first() -> None:
    with pytest.raises(BadRequest, match=r"slidesHtml\[1\] is empty"):
        html_to_pdf([PAGE, ""], 1080, 1350)


# --- first_page_png ------------------------------------------------------------------


def test_thumbnail_is_the_first_page_scaled_to_width() -> None:
    first = slide_html("", "<style>html { background: red }</style>")
    second = slide_html("", "<style>html { background: blue }</style>")
    pdf = html_to_pdf([first, second], 1080, 1350)
    png = first_page_png(pdf)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.size == (540, 675)
    assert close_to(pixel(image, 0.5, 0.5), RED)
    assert Image.open(io.BytesIO(first_page_png(pdf, width=200))).size == (200, 250)


@pytest.mark.parametrize("pdf", [b"", b"not a pdf", b"%PDF-1.7\n%%EOF"])
def test_thumbnail_of_an_unreadable_pdf(pdf: bytes) -> None:
    with pytest.raises(BadRequest) as refused:
        first_page_png(pdf)
    assert refused.value.message == "Cannot make a thumbnail: the PDF is unreadable"


def test_thumbnail_width_is_checked() -> None:
    with pytest.raises(BadRequest, match="between 1 and"):
        first_page_png(b"%PDF-", width=0)


# --- the template registry ------------------------------------------------------------


def test_registry() -> None:
    names = [template.name for template in list_templates()]
    assert names == ["bold", "editorial", "minimal"]
    assert DEFAULT_TEMPLATE in TEMPLATES
    for name in names:
        assert (TEMPLATES_DIR / f"{name}.html").is_file()  # shipped beside the code
    record = get_template("minimal").view().wire()
    assert set(record) == {"name", "label", "description", "theme"}
    assert record["name"] == "minimal"
    assert set(record["theme"]) == {"primaryColor", "backgroundColor", "font"}


def test_unknown_template() -> None:
    with pytest.raises(BadRequest) as refused:
        get_template("fancy")
    assert refused.value.message == (
        "Unknown template 'fancy'; choose one of: bold, editorial, minimal"
    )
    with pytest.raises(BadRequest):
        render("fancy", [SLIDE])


# --- the templates ---------------------------------------------------------------------


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_every_template_shows_the_slide_and_the_brand(template: str) -> None:
    slides = [SLIDE, SlideContent("No picture here", "Text only.", None)]
    pdf = html_to_pdf(render(template, slides), DEFAULT_SLIDE_WIDTH, DEFAULT_SLIDE_HEIGHT)
    assert len(page_sizes(pdf)) == 2
    first, second = page_text(pdf, 0), page_text(pdf, 1)
    for text in ("Queues are the real enemy", "for review, for QA", "Ada Lovelace", "@ada.ships"):
        assert text in first
    # Letter-spaced counters come out of PDF text as "1 / 2".
    assert "1/2" in first.replace(" ", "")
    assert "No picture here" in second
    assert "2/2" in second.replace(" ", "")
    # Slide image, profile picture and logo; then without the slide image.
    assert image_objects(pdf, 0) == 3
    assert image_objects(pdf, 1) == 2

    bare = html_to_pdf(render(template, [SLIDE], NO_BRAND), 1080, 1350)
    assert image_objects(bare) == 1
    assert "Queues are the real enemy" in page_text(bare)
    assert "1/1" in page_text(bare).replace(" ", "")


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_templates_fit_other_sizes_and_long_text_on_one_page(template: str) -> None:
    long = SlideContent(
        title="A very long title that keeps going well past what fits on one line " * 3,
        content="Overlong content, line after line of it. " * 120,
        image_uri=SLIDE.image_uri,
    )
    for width, height in [(1080, 1080), (1920, 1080)]:
        for page in render(template, [SLIDE, long], width=width, height=height):
            # Laid out alone, without html_to_pdf's first-page cut: still one page.
            document = weasyprint.HTML(string=page).render()
            assert len(document.pages) == 1
            assert document.pages[0].width == width
            assert document.pages[0].height == height


def test_templates_look_different() -> None:
    looks = {
        name: thumbnail(html_to_pdf(render(name, [SLIDE]), 1080, 1350), 108) for name in TEMPLATES
    }
    names = sorted(looks)
    for position, first in enumerate(names):
        for second in names[position + 1 :]:
            difference = ImageChops.difference(looks[first], looks[second])
            mean = sum(ImageStat.Stat(difference).mean) / 3
            assert mean > 20, f"{first} and {second} look alike (mean difference {mean:.1f})"


def test_titles_are_escaped() -> None:
    title = '<script>alert(1)</script><img src="x" onerror="alert(2)">'
    slide = SlideContent(title=title, content="<b>not bold</b> & more", image_uri=None)
    (page,) = render(DEFAULT_TEMPLATE, [slide])
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert '<img src="x"' not in page
    pdf = html_to_pdf([page], 1080, 1350)
    text = page_text(pdf).replace(" ", "")  # the title wraps after "</"
    assert '<script>alert(1)</script><imgsrc="x"onerror="alert(2)">' in text
    assert "<b>notbold</b>&more" in text


def test_theme_values_cannot_break_out_of_css() -> None:
    hostile = Theme(
        primary_color="red; } body { background: url(file:///etc/passwd) } .x {",
        background_color="#123456",
        font='Evil"; } * { display: none } .y { x: "',
    )
    (page,) = render("minimal", [SLIDE], theme=hostile)
    default = get_template("minimal").theme
    assert "file:///" not in page
    assert "display: none" not in page
    assert default.primary_color in page
    assert f'"{default.font}"' in page
    assert "#123456" in page  # a good value is kept


@needs_font("Noto Color Emoji", "fonts-noto-color-emoji")
def test_emoji_render_in_colour() -> None:
    def most_saturated(title: str) -> int:
        slide = SlideContent(title=title, content="Launch day 3/4 #1", image_uri=None)
        pdf = html_to_pdf(render("minimal", [slide], brand=NO_BRAND), 1080, 1350)
        assert "Launch day 3/4 #1" in page_text(pdf)
        title_area = thumbnail(pdf, 540).crop((40, 100, 500, 260)).convert("HSV")
        _, saturation = title_area.getchannel("S").getextrema()
        assert isinstance(saturation, int)
        return saturation

    # The template's text colours are greys: any colour is the emoji font's.
    assert most_saturated("Launch 🚀🎉✅") > 200
    assert most_saturated("Launch ABC") < 120


# --- helpers of the templates --------------------------------------------------------


def test_font_size_shrinks_with_text_and_stops_at_smallest() -> None:
    short = fit_font_px("Short", 900, 300, largest=80, smallest=30)
    medium = fit_font_px("A title " * 10, 900, 300, largest=80, smallest=30)
    huge = fit_font_px("word " * 5000, 900, 300, largest=80, smallest=30)
    assert short == 80
    assert 30 < medium < 80
    assert huge == 30


def test_ink_contrasts_with_the_background() -> None:
    assert ink("#FFFFFF") == ink("#fafaf7") == ink("white")  # named colours count as light
    assert ink("#000") != ink("#FFFFFF")
    assert ink("#0A66C2") == ink("#14171C")  # a strong blue takes light text
    assert ink("#FFFFFF", "soft") != ink("#FFFFFF")
