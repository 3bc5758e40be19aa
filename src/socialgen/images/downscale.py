"""Decoding an image no larger than it will be shown.

An upload may have up to 40 megapixels: 120 MB decoded as RGB, 160 MB as RGBA.
Pillow's convert() makes another full-size copy, and so does resizing an RGBA
image (it goes through a premultiplied copy first), so decoding a logo and then
shrinking it to the 400 px it is drawn at took a server from 487 to 864 MB.

Here a JPEG is decoded at 1/2 to 1/8 scale (`Image.draft`, libjpeg's DCT
scaling). The other formats have no scaled decoding: they are decoded once, in
their own mode (a palette image stays 1 byte a pixel), then shrunk by a whole
factor (`Image.reduce`, as `Image.thumbnail` with `reducing_gap` does) band by
band, each band converted on its own, so no second full-size image ever exists.
The last, exact resampling works on the small image.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable

from PIL import Image

# As Image.thumbnail's default: whole-factor reduction stops at twice the final
# size, and the real resampling filter does the rest (indistinguishable from
# resampling all the way, at a fraction of the cost).
REDUCING_GAP = 2.0
BAND_PIXELS = 1_000_000  # converted pixels held at once while reducing (4 MB as RGBA)


def decode_reduced(
    data: bytes,
    max_side: int,
    mode: str,
    resample: Image.Resampling = Image.Resampling.LANCZOS,
) -> Image.Image:
    """The image in `data` (already checked) in `mode` ("RGB" or "RGBA"), shrunk
    to fit `max_side` x `max_side` with its aspect ratio kept, never enlarged.

    The same result as `Image.thumbnail(..., reducing_gap=2.0)` on the converted
    image, without its full-size copies. Raises what Pillow raises for bad data.
    """
    if mode not in ("RGB", "RGBA"):
        raise ValueError(f"mode must be RGB or RGBA, not {mode}")
    # Premultiplied alpha while resampling, as Pillow does: a transparent pixel's
    # colour must not bleed into its neighbours.
    working = "RGBa" if mode == "RGBA" else "RGB"
    with Image.open(io.BytesIO(data)) as image:
        target = fitted(image.size, max_side)
        box = (0.0, 0.0, float(image.width), float(image.height))
        if target != image.size:
            wanted = (int(max_side * REDUCING_GAP), int(max_side * REDUCING_GAP))
            drafted = image.draft(None, wanted)  # JPEG only; None for the rest
            if drafted is not None:
                box = tuple(float(edge) for edge in drafted[1])  # type: ignore[assignment]
        image.load()
        small, box = _reduce(image, target, box, working)
    if small.size != target or box != (0.0, 0.0, float(small.width), float(small.height)):
        small = small.resize(target, resample, box=box)
    return small.convert(mode)


def fitted(size: tuple[int, int], max_side: int) -> tuple[int, int]:
    """`size` shrunk to fit max_side x max_side, rounded as Image.thumbnail rounds."""
    width, height = size
    if width <= max_side and height <= max_side:
        return size
    aspect = width / height

    def round_aspect(number: float, key: Callable[[int], float]) -> int:
        return max(min(math.floor(number), math.ceil(number), key=key), 1)

    if aspect <= 1:  # Pillow's "x / y >= aspect" with a square box
        return round_aspect(max_side * aspect, lambda n: abs(aspect - n / max_side)), max_side
    return max_side, round_aspect(
        max_side / aspect, lambda n: 0 if n == 0 else abs(aspect - max_side / n)
    )


def _reduce(
    image: Image.Image,
    target: tuple[int, int],
    box: tuple[float, float, float, float],
    working: str,
) -> tuple[Image.Image, tuple[float, float, float, float]]:
    """`image` converted to `working` and reduced by the whole factors
    Image.resize(reducing_gap=...) would use; returns it with `box` (the source
    area, in its coordinates) scaled to match."""
    factor_x = int((box[2] - box[0]) / target[0] / REDUCING_GAP) or 1
    factor_y = int((box[3] - box[1]) / target[1] / REDUCING_GAP) or 1
    width, height = image.size
    if factor_x == 1 and factor_y == 1:
        # At most 4x the target a side (or a JPEG already decoded small): small enough.
        return _converted(image, working), box
    reduced = Image.new(working, (-(-width // factor_x), -(-height // factor_y)))
    rows = max(1, BAND_PIXELS // (width * factor_y)) * factor_y  # whole blocks per band
    for top in range(0, height, rows):
        band = image.crop((0, top, width, min(height, top + rows)))
        reduced.paste(_converted(band, working).reduce((factor_x, factor_y)), (0, top // factor_y))
    scaled = (box[0] / factor_x, box[1] / factor_y, box[2] / factor_x, box[3] / factor_y)
    return reduced, scaled


def _converted(image: Image.Image, working: str) -> Image.Image:
    """A new image (a copy even in the same mode: the opened one is closed later)."""
    if working == "RGBa" and image.mode not in ("RGBA", "RGBa"):
        # Pillow makes RGBa from RGBA only; RGBA keeps a palette's transparency.
        image = image.convert("RGBA")
    return image.convert(working)
