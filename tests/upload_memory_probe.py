"""How much memory one uploaded image costs on its way through a carousel.

Run as a script, in a process of its own (peak RSS is per process and never goes
down): it warms up on a small image of the same format, notes the resident size,
then takes the given file through what generate-with-images does with an upload
(the content check, the logo shrunk for the slides, the procedural painter's
reference colours, read by three slides at once as the service paints them) and
prints one JSON line:

    {"rss_mb": ..., "peak_mb": ..., "growth_mb": ...}

growth_mb = peak RSS after - resident size before: what the upload added at its
worst. Linux and macOS (ru_maxrss is in KiB on Linux, bytes on macOS).

    python tests/upload_memory_probe.py /tmp/logo.png
    python tests/upload_memory_probe.py --make PNG /tmp/logo.png   # the largest accepted

`--make` writes the largest image the upload checks accept (39.9 megapixels, a
WebP 15.96) in
its own process, so that making it costs the measuring process nothing.
"""

from __future__ import annotations

import io
import json
import resource
import sys
import threading
from pathlib import Path

# 7300 x 5465 = 39.9 megapixels: just under MAX_IMAGE_PIXELS (40 M); WebP's own
# limit is lower (MAX_WEBP_PIXELS, 16 M): 4600 x 3470 = 15.96 megapixels.
LARGEST = (7300, 5465)
LARGEST_WEBP = (4600, 3470)


def largest_size(format_name: str) -> tuple[int, int]:
    """The largest picture of this format the upload checks accept."""
    return LARGEST_WEBP if format_name.upper() == "WEBP" else LARGEST


def _status_mb(field: str) -> float | None:
    """A size from /proc/self/status (Linux), in MB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def resident_mb() -> float:
    """The current resident size (Linux: /proc; elsewhere the peak so far)."""
    return _status_mb("VmRSS") or peak_mb()


def peak_mb() -> float:
    """The peak resident size of this program. On Linux VmHWM, not ru_maxrss: the
    kernel carries ru_maxrss across exec, so a probe started from a large parent
    (pytest after the whole suite, ~1 GB) would report the parent's size."""
    high_water = _status_mb("VmHWM")
    if high_water is not None:
        return high_water
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def upload_path(data: bytes) -> None:
    """What the server does with an uploaded logo and reference image."""
    from socialgen.ai.procedural import ReferenceMemo, reference_colours
    from socialgen.carousels.assets import brand_image
    from socialgen.carousels.uploads import check_image, check_reference_images

    checked = check_image(data, "brandLogo")
    brand_image(checked.data, checked.media_type)
    check_reference_images([data])
    # A carousel paints IMAGE_CONCURRENCY slides at once, each reading the references.
    memo = ReferenceMemo()  # one model's: its slides share what the first one reads
    painters = [threading.Thread(target=reference_colours, args=([data], memo)) for _ in range(3)]
    for painter in painters:
        painter.start()
    for painter in painters:
        painter.join()


def small_like(data: bytes) -> bytes:
    """A small image in the format of `data`, to load every codec before measuring."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        format_name, mode = image.format or "PNG", image.mode
    out = io.BytesIO()
    Image.new(mode, (600, 500)).save(out, format_name)
    return out.getvalue()


def make_largest(format_name: str, path: Path) -> None:
    """The largest accepted logo-like picture (39.9 MP; WebP 15.96 MP): JPEG and
    WebP as RGB, PNG as RGBA (the costliest)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", largest_size(format_name), (30, 90, 160))
    draw = ImageDraw.Draw(image)
    draw.ellipse((1000, 1000, 5000, 4000), (220, 80, 40))
    draw.rectangle((200, 200, 2000, 900), (250, 250, 250))
    if format_name == "PNG":
        image.convert("RGBA").save(path, "PNG", compress_level=1)
    else:
        image.save(path, format_name, quality=90)


def main() -> None:
    if sys.argv[1] == "--make":
        make_largest(sys.argv[2], Path(sys.argv[3]))
        return
    data = Path(sys.argv[1]).read_bytes()
    upload_path(small_like(data))
    before = resident_mb()
    upload_path(data)
    peak = peak_mb()
    figures = {"rss_mb": before, "peak_mb": peak, "growth_mb": peak - before}
    print(json.dumps({name: round(value, 1) for name, value in figures.items()}))


if __name__ == "__main__":
    main()
