#!/usr/bin/env python3
"""How fast are procedural slide images?

Times `socialgen.ai.procedural.procedural_image` (the default image model: no network)
at the two usual slide sizes, 1080x1080 and 1080x1350 (SPEC.md's generate-pdf
default), without references and with 5 reference images. The references are made
here, deterministically: 5 photo-like 1024x1024 images (a gradient under noise), once
as JPEG and once as PNG, since reading PNG references costs more (JPEG decoding can
be scaled down at decode time, PNG cannot). "cold" empties the per-process cache
of reference colours before each run (the first slide of a carousel); "cached" is
every later slide. Each case runs N times (default 20) after one warm-up; prompts
vary per run. Reports median and min in ms; the target is under 60 ms for
1080x1080 without references. The machine line and the table come from the bench
harness (bench/harness/).

Run from the repository root:

    .venv/bin/python bench/carousel_images.py            # 20 runs each
    .venv/bin/python bench/carousel_images.py --runs 50
"""

from __future__ import annotations

import argparse
import io
import time

from PIL import Image, ImageDraw

from harness import Samples, Table, machine_line
from socialgen.ai.procedural import ReferenceMemo, procedural_image

SIZES = ((1080, 1080), (1080, 1350))
TARGET_MS = 60.0


def references(format_name: str) -> list[bytes]:
    """5 photo-like 1024x1024 images in `format_name` ("JPEG" or "PNG")."""
    images = []
    for index in range(5):
        base = Image.linear_gradient("L").resize((1024, 1024)).rotate(index * 40)
        noise = Image.effect_noise((1024, 1024), 40 + index * 10)
        red = Image.blend(base, noise, 0.3)
        image = Image.merge("RGB", (red, noise, base.transpose(Image.Transpose.ROTATE_90)))
        ImageDraw.Draw(image).ellipse((200, 200, 700, 700), (40 * index, 120, 200))
        out = io.BytesIO()
        image.save(out, format_name, quality=90)
        images.append(out.getvalue())
    return images


def measure(size: tuple[int, int], refs: list[bytes], runs: int, *, cold: bool) -> Samples:
    memo = ReferenceMemo()  # one image model's, as in a carousel
    procedural_image("warm-up", *size, refs, memo)
    times = []
    for run in range(runs):
        if cold:  # as for the first slide of a carousel: references not read yet
            memo.clear()
        start = time.perf_counter()
        procedural_image(f"Slide {run}: why small teams ship weekly", *size, refs, memo)
        times.append(time.perf_counter() - start)
    return Samples(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    jpeg, png = references("JPEG"), references("PNG")
    cases = [
        ("no references", [], False),
        ("5 JPEG, cold", jpeg, True),
        ("5 PNG, cold", png, True),
        ("5 refs, cached", png, False),
    ]
    print(f"procedural_image, {args.runs} runs each (ms)")
    print(machine_line())
    table = Table("size, references", "median", "min", "", notes=True)
    for size in SIZES:
        for label, refs, cold in cases:
            samples = measure(size, refs, args.runs, cold=cold)
            verdict = ""
            if size == (1080, 1080) and not refs:
                holds = samples.median * 1000 < TARGET_MS
                verdict = f"target < {TARGET_MS:g} ms: {'holds' if holds else 'MISSED'}"
            table.add(
                f"{size[0]}x{size[1]}, {label}",
                f"{samples.median * 1000:.1f}",
                f"{samples.min * 1000:.1f}",
                verdict,
            )
    table.print()


if __name__ == "__main__":
    main()
