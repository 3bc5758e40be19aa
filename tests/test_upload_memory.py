"""The largest image the upload checks accept (39.9 megapixels) must not cost the
server several times its decoded size on its way to a 400 px logo.

Each case runs `tests/upload_memory_probe.py` in a process of its own (peak RSS is
per process) through the real upload path: the content check, the logo shrunk for
the slides, the procedural painter's reference colours. Before the images were
decoded at the size the slide needs, both cases grew the process by ~460 MB.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = Path(__file__).with_name("upload_memory_probe.py")
ROOT = PROBE.parent.parent
LARGEST_PIXELS = 7300 * 5465  # the probe's image: just under MAX_IMAGE_PIXELS
LARGEST_WEBP_PIXELS = 4600 * 3470  # just under MAX_WEBP_PIXELS
MIB = 1024 * 1024

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="peak RSS is read the Linux way"
)


def probe(*arguments: str) -> str:
    done = subprocess.run(
        [sys.executable, str(PROBE), *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def growth_mb(format_name: str, folder: Path) -> float:
    path = folder / f"largest.{format_name.lower()}"
    probe("--make", format_name, str(path))
    figures = json.loads(probe(str(path)).strip().splitlines()[-1])
    return float(figures["growth_mb"])


def test_a_largest_jpeg_is_never_decoded_at_full_size(tmp_path: Path) -> None:
    # Decoded at 1/8 scale throughout (Image.draft): a few MB, where the full
    # decode alone would be 152 MB (Pillow keeps RGB as 4 bytes a pixel).
    assert growth_mb("JPEG", tmp_path) < 64


def test_a_largest_png_is_decoded_at_full_size_once_and_never_copied(tmp_path: Path) -> None:
    # PNG has no scaled decoding: one RGBA decode (152 MB) is the floor; no
    # full-size convert() or premultiplied copy may come on top of it.
    decoded = LARGEST_PIXELS * 4 / MIB

    assert growth_mb("PNG", tmp_path) < decoded + 48


def test_a_largest_webp_stays_within_a_few_decoded_copies(tmp_path: Path) -> None:
    # No scaled decoding either, and libwebp holds about four RGBA-sized buffers
    # while it decodes (~240 MB at 15.96 MP, 61 MB each): a 39.9 MP WebP grew
    # `serve` by 666 MB, hence the 16 MP cap (test_carousel_uploads refuses above it).
    decoded = LARGEST_WEBP_PIXELS * 4 / MIB

    assert growth_mb("WEBP", tmp_path) < 5 * decoded
