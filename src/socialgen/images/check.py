"""Image bytes checked by content before anything else touches them.

What a file claims to be (its name, a Content-Type) is ignored: Pillow reads the
bytes, and only PNG, JPEG, WebP and GIF pass. The decoded size is checked from the
header before any pixel is decoded, so a small file that would unpack into
gigabytes (a decompression bomb) is refused cheaply.

Below both of its users: the carousel slice checks images from people with it,
and the image gateway (`ai/images.py`) checks what a provider sends back.
"""

from __future__ import annotations

import io
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS, MAX_WEBP_PIXELS
from socialgen.kit.local_files import read_regular_file

# Pillow format name -> media type. Nothing else is accepted (no SVG, TIFF, BMP ...).
MEDIA_TYPES = {
    "PNG": "image/png",
    "JPEG": "image/jpeg",
    "WEBP": "image/webp",
    "GIF": "image/gif",
}
NOT_AN_IMAGE = "is not a PNG, JPEG, WebP or GIF image"


@dataclass(frozen=True)
class CheckedImage:
    data: bytes  # exactly the bytes given, unchanged
    media_type: str  # from the content: "image/png", "image/jpeg", "image/webp", "image/gif"
    width: int
    height: int


def check_image(data: bytes, what: str) -> CheckedImage:
    """`data` as a `CheckedImage`, or `BadRequest` saying what is wrong with `what`
    (e.g. "referenceImages[2]", "brandLogo", "the profile image")."""
    if not data:
        raise BadRequest(f"{what} is empty")
    if len(data) > MAX_IMAGE_BYTES:
        raise BadRequest(f"{what} is larger than {_megabytes(MAX_IMAGE_BYTES)}")
    with warnings.catch_warnings():
        # Pillow warns (rather than raises) between its own limit and twice it: make
        # that an error too; our own pixel limit below is the one that decides.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            return _check(data, what)
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            # Named by its signature, so that a huge WebP is told WebP's own limit.
            raise _too_many_pixels(what, None, format_name_of(data) or "") from None


def _check(data: bytes, what: str) -> CheckedImage:
    try:
        # formats=: Pillow never even tries its other decoders (EPS, PSD, TIFF ...).
        with Image.open(io.BytesIO(data), formats=tuple(MEDIA_TYPES)) as image:
            format_name = image.format or ""
            width, height = image.size
            # The header's size, before a single pixel is decoded.
            if width * height > pixel_limit(format_name):
                raise _too_many_pixels(what, (width, height), format_name)
            image.verify()  # structure and checksums, without decoding the pixels
        # verify() leaves the image unusable and misses truncated pixel data:
        # decode it for real (bounded by the pixel check above), as small as the
        # format allows: a JPEG at 1/8 scale (every byte is still read, so a
        # truncated one still fails; a 40 MP JPEG costs 2 MB, not 120 MB). The
        # others have no scaled decoding: once, in their own mode, then freed.
        with Image.open(io.BytesIO(data), formats=tuple(MEDIA_TYPES)) as image:
            image.draft(None, (1, 1))  # a no-op but for JPEG
            image.load()
    except UnidentifiedImageError:
        if format_name_of(data) is None:
            raise BadRequest(f"{what} {NOT_AN_IMAGE}") from None
        # The right signature but Pillow cannot make sense of the header.
        raise BadRequest(f"{what} is a damaged or incomplete image") from None
    except (OSError, SyntaxError, ValueError, EOFError, IndexError, TypeError) as error:
        # Pillow reports broken files in many ways (SyntaxError for a bad PNG chunk,
        # OSError "image file is truncated", ...).
        raise BadRequest(f"{what} is a damaged or incomplete image ({_reason(error)})") from None
    media_type = MEDIA_TYPES.get(format_name)
    if media_type is None or width < 1 or height < 1:  # formats= makes this unlikely
        raise BadRequest(f"{what} {NOT_AN_IMAGE}")
    return CheckedImage(data=data, media_type=media_type, width=width, height=height)


def format_name_of(data: bytes) -> str | None:
    """The format the first bytes announce (PNG, JPEG, WEBP, GIF), or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF"
    return None


def read_image_file(path: Path, what: str) -> CheckedImage:
    """Read and check an image file for the CLI; `what` names it ("brand logo").

    Regular files only, and the read is capped whatever the file's size claims, so
    pointing at a huge file, a device or a FIFO costs nothing (socialgen.kit.local_files).
    """
    data = read_regular_file(path, MAX_IMAGE_BYTES, what=f"{what} file")
    return check_image(data, f"{what} file {path}")


def pixel_limit(format_name: str) -> int:
    """The most pixels an image of this Pillow format may decode to."""
    return MAX_WEBP_PIXELS if format_name == "WEBP" else MAX_IMAGE_PIXELS


def _too_many_pixels(
    what: str, size: tuple[int, int] | None = None, format_name: str = ""
) -> BadRequest:
    shown = f" ({size[0]}x{size[1]})" if size else ""
    limit = pixel_limit(format_name)
    kind = " for a WebP image" if format_name == "WEBP" else ""
    return BadRequest(
        f"{what} has too many pixels{shown}: at most "
        f"{limit / 1_000_000:g} megapixels are allowed{kind}"
    )


def _megabytes(count: int) -> str:
    return f"{count / (1024 * 1024):g} MB"


def _reason(error: BaseException) -> str:
    text = os.strerror(error.errno) if isinstance(error, OSError) and error.errno else str(error)
    return " ".join(text.split())[:200] or type(error).__name__
