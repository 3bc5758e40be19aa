#!/usr/bin/env python3
"""Carousel PDF: how fast do 10 slides become a PDF and a thumbnail?

Builds 10 slides with realistic text and a 1080x1080 JPEG each (grainy gradients
drawn with Pillow, embedded as data: URIs, as the carousel pipeline does), a brand with
a PNG logo and a JPEG profile picture (--image-format PNG: slide
images as PNG, as some image models return them), then times each stage separately:

* `render_slides` (Jinja2 templates to HTML, each slide's text measured with
  WeasyPrint's layout and fitted to its box; --no-fit: the templates alone),
* the PDF (WeasyPrint, reusing the layouts measured while fitting; the target is
  10 slides within 2 s),
* `first_page_png` (pypdfium2 + Pillow thumbnail),

for every template, printing median and min of several runs (timed by the bench
harness, bench/harness/).

Run from the repository root:

    .venv/bin/python bench/carousel_pdf.py
    .venv/bin/python bench/carousel_pdf.py --runs 7 --slides 12 --template editorial
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Sequence
from functools import partial

from PIL import Image

from harness import Samples, timed_runs
from socialgen.carousels.slides import Brand, SlideContent, data_uri
from socialgen.carousels.slides_html import render_slides
from socialgen.carousels.templates import get_template, list_templates
from socialgen.kit.limits import DEFAULT_SLIDE_HEIGHT, DEFAULT_SLIDE_WIDTH
from socialgen.render.measure import text_overflow_px
from socialgen.render.pdf import SlideRenderer, html_to_pdf
from socialgen.render.thumbnail import first_page_png

TARGET_SECONDS = 2.0

SLIDES = [
    (
        "Ship smaller, ship sooner 🚀",
        "Big releases hide big risks. Cut the work into pieces a "
        "reviewer can hold in their head, and the queue starts moving again.",
    ),
    (
        "Queues are the real enemy",
        "Most of a feature's lead time is spent waiting: for "
        "review, for QA, for a deploy window. Measure the waiting before the working.",
    ),
    (
        "One approval is plenty",
        "Every extra sign-off adds a day. Ask what the second "
        "approver catches that the first one misses. Usually: nothing.",
    ),
    (
        "Automate the boring checks",
        "Formatting, types and tests belong to the machine. "
        "Humans should review design, naming and the things a linter cannot see.",
    ),
    (
        "Deploy on a Tuesday",
        "Friday deploys are scary because deploys are rare. Make "
        "them daily and they stop being events.\nThen make them boring.",
    ),
    (
        "Feature flags, not branches",
        "Long-lived branches rot. Merge behind a flag, turn it "
        "on for your team first, and roll forward instead of back.",
    ),
    (
        "Watch the right metric",
        "Velocity points measure effort, not outcome. Track lead "
        "time, deploy frequency and how often a change needs a fix.",
    ),
    (
        "Make rollback one click",
        "Confidence comes from a cheap undo. If reverting takes a "
        "meeting, people will hold changes back until they are huge.",
    ),
    (
        "Write it down once",
        "A short decision record saves a dozen repeat debates. Link it "
        "from the code it explains, and keep it to one page.",
    ),
    (
        "Your turn ✅",
        "Pick one step from this list and try it for two weeks. Then tell me "
        "what changed: I read every comment. Follow for more on shipping well.",
    ),
]


def gradient_image(
    size: int, top: tuple[int, int, int], bottom: tuple[int, int, int], image_format: str = "JPEG"
) -> bytes:
    """A vertical gradient with a diagonal ramp and some grain.

    The grain matters: a clean gradient compresses to a few kB, a photo or a
    generated image to a few hundred, and the PDF embeds what it is given.
    """
    column = Image.linear_gradient("L").resize((size, size))
    diagonal = Image.linear_gradient("L").rotate(45).resize((size, size))
    # Grain drawn at a quarter size and scaled up: textured like a photo, so a PNG
    # comes out near 1 MB rather than the 3 MB of pure per-pixel noise.
    grain = Image.effect_noise((size // 4, size // 4), 60).resize((size, size))
    image = Image.composite(
        Image.new("RGB", (size, size), bottom), Image.new("RGB", (size, size), top), column
    )
    image = Image.blend(image, Image.merge("RGB", (diagonal, grain, diagonal)), 0.2)
    buffer = io.BytesIO()
    image.save(buffer, format=image_format, quality=85)
    return buffer.getvalue()


def logo_png() -> bytes:
    image = Image.new("RGBA", (360, 120), (0, 0, 0, 0))
    image.paste((10, 102, 194, 255), (0, 20, 360, 100))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def build_slides(count: int, image_format: str) -> tuple[list[SlideContent], Brand]:
    slides = []
    for index in range(count):
        title, content = SLIDES[index % len(SLIDES)]
        hue = (index * 37) % 200
        image = gradient_image(
            1080, (20 + hue // 2, 40, 120 + hue // 4), (230, 120 + hue // 3, 60), image_format
        )
        slides.append(
            SlideContent(title, content, data_uri(image, f"image/{image_format.lower()}"))
        )
    brand = Brand(
        handle="@ada.ships",
        name="Ada Lovelace",
        profile_image_uri=data_uri(
            gradient_image(256, (240, 190, 150), (90, 60, 40)), "image/jpeg"
        ),
        logo_uri=data_uri(logo_png(), "image/png"),
    )
    return slides, brand


def _ms(samples: Samples) -> str:
    return f"median {samples.median * 1000:7.1f} ms, min {samples.min * 1000:7.1f} ms"


def bench_template(
    name: str,
    slides: list[SlideContent],
    brand: Brand,
    *,
    runs: int,
    width: int,
    height: int,
    fit: bool = True,
) -> float:
    """Prints the stages of one template; returns the median total in seconds."""
    theme = get_template(name).theme
    # As carousels/assets.py renders: each slide's text measured and fitted to its box.
    # The PDF reuses the layouts measured then (a fresh renderer per run).
    renderers: list[SlideRenderer] = []

    def fitted() -> list[str]:
        renderers.append(SlideRenderer(width, height))
        overflow = partial(text_overflow_px, renderer=renderers[-1]) if fit else None
        return render_slides(
            name, slides, theme, brand, width=width, height=height, overflow=overflow
        )

    html_samples, pages = timed_runs(runs, fitted)
    pdf_samples, pdf = timed_runs(runs, lambda: renderers.pop(0).pdf(pages))
    png_samples, png = timed_runs(runs, lambda: first_page_png(pdf))
    stages = zip(html_samples.values, pdf_samples.values, png_samples.values, strict=True)
    totals = Samples([sum(stage) for stage in stages])
    html_bytes = sum(len(page.encode()) for page in pages)
    print(f"{name} ({len(slides)} slides, {width}x{height}):")
    print(f"  render_slides   {_ms(html_samples)}  ({html_bytes / 1e6:.2f} MB of HTML)")
    print(f"  pdf             {_ms(pdf_samples)}  ({len(pdf) / 1e6:.2f} MB of PDF)")
    print(f"  first_page_png  {_ms(png_samples)}  ({len(png) / 1e3:.0f} kB of PNG)")
    print(f"  total           {_ms(totals)}")
    return totals.median


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each stage (5)")
    parser.add_argument("--slides", type=int, default=10, help="slides in the carousel (10)")
    parser.add_argument("--template", action="append", help="only these templates")
    parser.add_argument("--width", type=int, default=DEFAULT_SLIDE_WIDTH)
    parser.add_argument("--height", type=int, default=DEFAULT_SLIDE_HEIGHT)
    parser.add_argument(
        "--image-format", choices=["JPEG", "PNG"], default="JPEG", help="slide images (JPEG)"
    )
    parser.add_argument(
        "--no-fit", action="store_true", help="render_slides without measuring the text's fit"
    )
    args = parser.parse_args(argv)

    started = time.perf_counter()
    slides, brand = build_slides(args.slides, args.image_format)
    print(f"inputs built in {time.perf_counter() - started:.2f} s")
    # One untimed render first: fontconfig and the Jinja environment warm up once
    # per process, which a server pays at its first carousel, not at every one.
    names = args.template or [template.name for template in list_templates()]
    theme = get_template(names[0]).theme
    warm = render_slides(names[0], slides[:1], theme, brand, width=args.width, height=args.height)
    html_to_pdf(warm, args.width, args.height)

    medians = {
        name: bench_template(
            name,
            slides,
            brand,
            runs=args.runs,
            width=args.width,
            height=args.height,
            fit=not args.no_fit,
        )
        for name in names
    }
    worst = max(medians.values())
    verdict = "ok" if worst <= TARGET_SECONDS else "TOO SLOW"
    print(
        f"target: {args.slides} slides to PDF + thumbnail within {TARGET_SECONDS:g} s -> "
        f"slowest template median {worst:.2f} s: {verdict}"
    )
    return 0 if worst <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
