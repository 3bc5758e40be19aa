"""Slide images without any image model: abstract, deterministic, Pillow only.

Used when no SOCIALGEN_IMAGE_MODEL is set (and so by default in tests). The prompt's
hash picks a palette and seeds the layout, so the same prompt always gives the same
bytes and different prompts give visibly different images. Reference images pull
the palette towards their dominant colours.

Speed comes from never touching pixels in Python: the soft background is painted
at 1/8 scale, blurred and enlarged; the shapes are drawn at 1/2 scale (enlarging
them smooths their edges for free); only the last resize and the JPEG encoding
work at full size.
"""

from __future__ import annotations

import asyncio
import colorsys
import hashlib
import io
import math
import random
import threading
from collections import Counter
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFilter

from socialgen.ai.image_types import ImageResult
from socialgen.images.downscale import decode_reduced

RGB = tuple[int, int, int]

JPEG_QUALITY = 88
PALETTE_SIZE = 5
REFERENCE_WEIGHT = 0.7  # how far each palette colour moves towards a reference colour
REFERENCE_THUMBNAIL = 64  # px; dominant colours need no more
REFERENCE_COLOURS = 4  # per reference image
BACKGROUND_SCALE = 8  # the background is painted at 1/8 of the final size
SHAPES_SCALE = 2  # the shapes at 1/2
MAX_CACHED_REFERENCES = 64  # dominant colours kept per model (a few bytes each)


class ReferenceMemo:
    """The dominant colours of reference images already read, by content hash.

    Every slide of a carousel uses the same references, and decoding a large PNG
    costs far more than hashing it. One memo per image model, so the Runtime that
    holds the model owns it (no process-wide cache).
    """

    def __init__(self, capacity: int = MAX_CACHED_REFERENCES) -> None:
        self._capacity = capacity
        self._colours: dict[bytes, tuple[tuple[RGB, int], ...]] = {}  # blake2b -> colours
        self._lock = threading.Lock()  # images are painted in worker threads
        # One reference decoded at a time: a carousel paints its slides at once, and
        # each would otherwise decode the same (not yet read) reference side by side;
        # a 40 MP PNG is 160 MB decoded. The later ones wait, then find it here.
        self._decoding = threading.Lock()

    def dominant_colours(self, data: bytes) -> tuple[tuple[RGB, int], ...]:
        """(colour, pixel count) of one image, read once per memo."""
        key = hashlib.blake2b(data, digest_size=16).digest()
        with self._lock:
            known = self._colours.get(key)
        if known is not None:
            return known
        with self._decoding:
            with self._lock:
                known = self._colours.get(key)  # read while this thread waited?
            if known is not None:
                return known
            found = _read_dominant_colours(data)
            with self._lock:
                self._colours[key] = found
                while len(self._colours) > self._capacity:
                    del self._colours[next(iter(self._colours))]  # the oldest
        return found

    def clear(self) -> None:
        """Forget every reference read (a bench's cold start)."""
        with self._lock:
            self._colours.clear()


class ProceduralImageModel:
    """An `ImageModel` that paints abstract images locally (no network, no model)."""

    name = "procedural"

    def __init__(self) -> None:
        self.references = ReferenceMemo()

    async def generate(
        self, prompt: str, *, width: int, height: int, references: Sequence[bytes] = ()
    ) -> ImageResult:
        # Pillow releases the GIL in its C code: a thread keeps the event loop free.
        return await asyncio.to_thread(
            procedural_image, prompt, width, height, references, self.references
        )


def procedural_image(
    prompt: str,
    width: int,
    height: int,
    references: Sequence[bytes] = (),
    memo: ReferenceMemo | None = None,
) -> ImageResult:
    """A width x height JPEG for `prompt`; the same arguments give the same bytes.
    `memo` keeps the references' colours between calls (none: read them each time)."""
    if width < 1 or height < 1:
        raise ValueError(f"image size must be positive, not {width}x{height}")
    digest = hashlib.sha256(prompt.encode()).digest()
    rng = random.Random(digest)
    palette = _palette(digest)
    if references:
        palette = _blend(palette, reference_colours(references, memo))
    rng.shuffle(palette)

    image = _background(rng, palette, width, height)
    _shapes(rng, palette, image)
    image = image.resize((width, height), Image.Resampling.BICUBIC)

    out = io.BytesIO()
    image.save(out, "JPEG", quality=JPEG_QUALITY, optimize=False)
    return ImageResult(data=out.getvalue(), media_type="image/jpeg")


def _palette(digest: bytes) -> list[RGB]:
    """Five harmonious colours from the hash: one base hue, its neighbours and its
    complement, at lightness levels from deep to pale."""
    base = digest[0] / 255
    offsets = (0.0, 0.08, -0.08, 0.5, 0.42 + digest[1] / 255 * 0.16)
    saturation = 0.45 + digest[2] / 255 * 0.4
    lightness = (0.22, 0.38, 0.55, 0.68, 0.85)
    order = sorted(range(PALETTE_SIZE), key=lambda i: digest[3 + i])  # which hue gets which
    colours: list[RGB] = []
    for index, offset in enumerate(offsets):
        red, green, blue = colorsys.hls_to_rgb(
            (base + offset) % 1.0, lightness[order[index]], saturation
        )
        colours.append((round(red * 255), round(green * 255), round(blue * 255)))
    return colours


def reference_colours(references: Sequence[bytes], memo: ReferenceMemo | None = None) -> list[RGB]:
    """The dominant colours of the reference images, most common first.

    Unreadable references are skipped: they were checked on the way in, and a
    palette is not worth failing a carousel for.
    """
    memo = memo if memo is not None else ReferenceMemo()
    counts: Counter[RGB] = Counter()
    for data in references:
        for colour, count in memo.dominant_colours(data):
            counts[colour] += count
    return [colour for colour, _ in counts.most_common()]


def _read_dominant_colours(data: bytes) -> tuple[tuple[RGB, int], ...]:
    try:
        # A JPEG decoded at 1/2 to 1/8 scale; the others shrunk band by band, with
        # no full-size copy besides the decoded image itself.
        small = decode_reduced(data, REFERENCE_THUMBNAIL, "RGB", Image.Resampling.BICUBIC)
        quantized = small.quantize(REFERENCE_COLOURS, method=Image.Quantize.MEDIANCUT)
    except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError):
        return ()
    flat = quantized.getpalette() or []
    found: list[tuple[RGB, int]] = []
    for count, index in quantized.getcolors() or []:
        if not isinstance(index, int):  # a "P" image's colours are palette indexes
            continue
        red, green, blue = flat[index * 3 : index * 3 + 3]
        found.append(((red, green, blue), count))
    return tuple(found)


def _blend(palette: list[RGB], colours: list[RGB]) -> list[RGB]:
    if not colours:
        return palette
    return [
        _mix(colour, colours[index % len(colours)], REFERENCE_WEIGHT)
        for index, colour in enumerate(palette)
    ]


def _mix(a: RGB, b: RGB, weight: float) -> RGB:
    """`a` moved `weight` of the way towards `b`."""
    return (
        round(a[0] + (b[0] - a[0]) * weight),
        round(a[1] + (b[1] - a[1]) * weight),
        round(a[2] + (b[2] - a[2]) * weight),
    )


def _background(rng: random.Random, palette: list[RGB], width: int, height: int) -> Image.Image:
    """A two-colour gradient at a random angle with soft glows: painted at 1/8 scale,
    blurred there (cheap), returned enlarged to 1/2 scale for the shapes."""
    small = (max(1, width // BACKGROUND_SCALE), max(1, height // BACKGROUND_SCALE))
    side = math.ceil(math.hypot(*small))  # a rotated square that still covers `small`
    ramp = Image.linear_gradient("L").resize((side, side), Image.Resampling.BILINEAR)
    ramp = ramp.rotate(rng.uniform(0, 360), Image.Resampling.BILINEAR)
    left, top = (side - small[0]) // 2, (side - small[1]) // 2
    mask = ramp.crop((left, top, left + small[0], top + small[1]))
    image = Image.composite(
        Image.new("RGB", small, palette[0]), Image.new("RGB", small, palette[1]), mask
    )
    # Glows: big translucent discs, then one blur makes them soft light.
    draw = ImageDraw.Draw(image, "RGBA")
    shortest = min(small)
    for colour in palette[2:5]:
        radius = shortest * rng.uniform(0.25, 0.6)
        x, y = rng.uniform(0, small[0]), rng.uniform(0, small[1])
        draw.ellipse((x - radius, y - radius, x + radius, y + radius), (*colour, 150))
    image = image.filter(ImageFilter.GaussianBlur(max(1.0, shortest / 10)))
    half = (max(1, width // SHAPES_SCALE), max(1, height // SHAPES_SCALE))
    return image.resize(half, Image.Resampling.BICUBIC)


def _shapes(rng: random.Random, palette: list[RGB], image: Image.Image) -> None:
    """A few translucent bands, polygons, rings and dots, drawn in place."""
    draw = ImageDraw.Draw(image, "RGBA")
    width, height = image.size
    shortest = min(width, height)
    painters = (_band, _polygon, _ring, _disc)
    for _ in range(rng.randint(3, 5)):
        painter = rng.choice(painters)
        colour = rng.choice(palette)
        painter(rng, draw, colour, width, height, shortest)


def _band(
    rng: random.Random, draw: ImageDraw.ImageDraw, colour: RGB, w: int, h: int, shortest: int
) -> None:
    """A wide diagonal stripe across the whole image."""
    angle = rng.uniform(0, math.pi)
    dx, dy = math.cos(angle), math.sin(angle)
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    half_width = shortest * rng.uniform(0.04, 0.14)
    reach = w + h  # far enough to leave the image on both sides
    nx, ny = -dy * half_width, dx * half_width
    points = [
        (cx - dx * reach + nx, cy - dy * reach + ny),
        (cx + dx * reach + nx, cy + dy * reach + ny),
        (cx + dx * reach - nx, cy + dy * reach - ny),
        (cx - dx * reach - nx, cy - dy * reach - ny),
    ]
    draw.polygon(points, (*colour, rng.randint(70, 140)))


def _polygon(
    rng: random.Random, draw: ImageDraw.ImageDraw, colour: RGB, w: int, h: int, shortest: int
) -> None:
    """A regular polygon (triangle to hexagon), rotated."""
    sides = rng.randint(3, 6)
    radius = shortest * rng.uniform(0.12, 0.35)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    start = rng.uniform(0, 2 * math.pi)
    points = [
        (
            cx + radius * math.cos(start + 2 * math.pi * k / sides),
            cy + radius * math.sin(start + 2 * math.pi * k / sides),
        )
        for k in range(sides)
    ]
    draw.polygon(points, (*colour, rng.randint(90, 170)))


def _ring(
    rng: random.Random, draw: ImageDraw.ImageDraw, colour: RGB, w: int, h: int, shortest: int
) -> None:
    radius = shortest * rng.uniform(0.15, 0.45)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    thickness = max(2, round(shortest * rng.uniform(0.01, 0.035)))
    box = (cx - radius, cy - radius, cx + radius, cy + radius)
    draw.ellipse(box, outline=(*colour, rng.randint(120, 200)), width=thickness)


def _disc(
    rng: random.Random, draw: ImageDraw.ImageDraw, colour: RGB, w: int, h: int, shortest: int
) -> None:
    radius = shortest * rng.uniform(0.05, 0.22)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    draw.ellipse(
        (cx - radius, cy - radius, cx + radius, cy + radius), (*colour, rng.randint(90, 180))
    )
