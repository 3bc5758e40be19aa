"""Images from users: checked by content, size, pixel count; profile pictures fetched
through the SSRF guard; image files read for the CLI with a size cap."""

from __future__ import annotations

import asyncio
import io
import os
import struct
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image, ImageFile

from socialgen.carousels.uploads import (
    CheckedImage,
    check_image,
    check_reference_images,
    fetch_profile_image,
    read_image_file,
)
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import MAX_IMAGE_BYTES, MAX_REFERENCE_IMAGES
from socialgen.sources.guard import UrlNotAllowed

NOT_AN_IMAGE = "is not a PNG, JPEG, WebP or GIF image"


def encoded(format_name: str, size: tuple[int, int] = (40, 30), mode: str = "RGB") -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, (200, 40, 90)).save(out, format_name)
    return out.getvalue()


def png_header_only(width: int, height: int) -> bytes:
    """A PNG whose IHDR claims width x height, with one tiny IDAT: what a
    decompression bomb looks like before anything is decoded."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


def refused(data: bytes, what: str = "brandLogo") -> str:
    with pytest.raises(BadRequest) as caught:
        check_image(data, what)
    assert caught.value.status_code == 400
    return caught.value.message


# -- check_image ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("format_name", "media_type", "mode"),
    [
        ("PNG", "image/png", "RGBA"),
        ("JPEG", "image/jpeg", "RGB"),
        ("WEBP", "image/webp", "RGB"),
        ("GIF", "image/gif", "P"),
    ],
)
def test_the_four_formats_are_accepted(format_name: str, media_type: str, mode: str) -> None:
    data = encoded(format_name, (40, 30), mode)

    checked = check_image(data, "brandLogo")

    assert checked == CheckedImage(data=data, media_type=media_type, width=40, height=30)


def test_empty_is_refused() -> None:
    assert refused(b"") == "brandLogo is empty"


def test_over_the_byte_limit_is_refused_before_parsing() -> None:
    data = encoded("PNG") + b"\x00" * MAX_IMAGE_BYTES

    assert refused(data) == "brandLogo is larger than 8 MB"


def test_exactly_the_byte_limit_is_not_refused_for_its_size() -> None:
    # A valid PNG padded after IEND up to the limit: Pillow ignores trailing bytes.
    image = encoded("PNG")
    data = image + b"\x00" * (MAX_IMAGE_BYTES - len(image))

    assert check_image(data, "brandLogo").media_type == "image/png"


@pytest.mark.parametrize(
    "data",
    [
        b"hello, this is text",
        b"<svg xmlns='http://www.w3.org/2000/svg'><rect width='10' height='10'/></svg>",
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n",
        encoded("BMP"),  # real images, but not of the four formats
        encoded("TIFF"),
        encoded("ICO", (32, 32)),
    ],
    ids=["text", "svg", "pdf", "bmp", "tiff", "ico"],
)
def test_anything_but_the_four_formats_is_refused(data: bytes) -> None:
    assert refused(data, "referenceImages[1]") == f"referenceImages[1] {NOT_AN_IMAGE}"


# 2.5 gigapixels (Pillow's own bomb check refuses it at open) and 64 megapixels
# (Pillow opens it; only our limit stands between it and decoding), in ~100 bytes each.
@pytest.mark.parametrize("side", [50_000, 8_000])
def test_a_decompression_bomb_header_is_refused_without_decoding(
    side: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    bomb = png_header_only(side, side)
    decoded: list[object] = []

    def load(image: ImageFile.ImageFile) -> None:
        decoded.append(image)
        raise AssertionError("the pixels of a bomb were decoded")

    monkeypatch.setattr(ImageFile.ImageFile, "load", load)
    message = refused(bomb, "referenceImages[0]")

    assert message.startswith("referenceImages[0] has too many pixels")
    assert "at most 40 megapixels" in message
    assert decoded == []  # refused from its header: no clock needed


def test_our_pixel_limit_is_below_pillows_own() -> None:
    # 49 megapixels: Pillow alone would not even warn (its limit is ~89 M); ours refuses.
    message = refused(png_header_only(7_000, 7_000))

    assert message == "brandLogo has too many pixels (7000x7000): at most 40 megapixels are allowed"


def test_webp_has_a_lower_pixel_limit_than_the_other_formats() -> None:
    # 16 megapixels and one row: refused by its header, naming the WebP limit ...
    over = io.BytesIO()
    Image.new("RGB", (4000, 4001), (9, 9, 9)).save(over, "WEBP", quality=10)
    # ... while a PNG of the same size, under the 40 MP limit, passes.
    png = io.BytesIO()
    Image.new("RGB", (4000, 4001), (9, 9, 9)).save(png, "PNG", compress_level=1)

    assert refused(over.getvalue()) == (
        "brandLogo has too many pixels (4000x4001): "
        "at most 16 megapixels are allowed for a WebP image"
    )
    assert check_image(png.getvalue(), "brandLogo").height == 4001


def test_a_webp_of_exactly_sixteen_megapixels_is_accepted() -> None:
    at_limit = io.BytesIO()
    Image.new("RGB", (4000, 4000), (9, 9, 9)).save(at_limit, "WEBP", quality=10)

    assert check_image(at_limit.getvalue(), "brandLogo").media_type == "image/webp"


@pytest.mark.parametrize("format_name", ["PNG", "JPEG", "WEBP", "GIF"])
def test_a_truncated_image_is_refused(format_name: str) -> None:
    whole = io.BytesIO()
    Image.effect_noise((200, 200), 60).convert("RGB").save(whole, format_name)
    data = whole.getvalue()

    message = refused(data[: len(data) // 2])

    assert message.startswith("brandLogo is a damaged or incomplete image")


def test_a_png_with_a_broken_checksum_is_refused() -> None:
    data = bytearray(encoded("PNG"))
    data[29] ^= 0xFF  # inside IHDR's CRC

    assert refused(bytes(data)).startswith("brandLogo is a damaged or incomplete image")


def test_a_signature_without_a_valid_header_is_damaged_not_unknown() -> None:
    assert refused(b"\x89PNG\r\n\x1a\n" + b"\x00" * 20) == (
        "brandLogo is a damaged or incomplete image"
    )


# -- check_reference_images ---------------------------------------------------------------


def test_reference_images_are_checked_with_their_index() -> None:
    files = [encoded("PNG"), encoded("JPEG", (10, 20))]

    checked = check_reference_images(files)

    assert [(c.media_type, c.width, c.height) for c in checked] == [
        ("image/png", 40, 30),
        ("image/jpeg", 10, 20),
    ]
    with pytest.raises(BadRequest) as caught:
        check_reference_images([encoded("PNG"), encoded("PNG"), b"not an image"])
    assert caught.value.message == f"referenceImages[2] {NOT_AN_IMAGE}"


def test_no_more_than_five_reference_images() -> None:
    assert check_reference_images([]) == []
    assert len(check_reference_images([encoded("PNG")] * MAX_REFERENCE_IMAGES)) == 5

    with pytest.raises(BadRequest) as caught:
        check_reference_images([encoded("PNG")] * (MAX_REFERENCE_IMAGES + 1))

    assert caught.value.message == "At most 5 reference images are allowed"


# -- read_image_file ------------------------------------------------------------------------


def test_a_file_is_judged_by_its_content_not_its_name(tmp_path: Path) -> None:
    png_named_txt = tmp_path / "logo.txt"
    png_named_txt.write_bytes(encoded("PNG"))
    text_named_png = tmp_path / "logo.png"
    text_named_png.write_text("I am not a picture")

    assert read_image_file(png_named_txt, "brand logo").media_type == "image/png"
    with pytest.raises(BadRequest) as caught:
        read_image_file(text_named_png, "brand logo")
    assert caught.value.message == f"brand logo file {text_named_png} {NOT_AN_IMAGE}"


def test_a_missing_file_or_a_directory_is_refused(tmp_path: Path) -> None:
    missing = tmp_path / "x.png"
    with pytest.raises(BadRequest) as caught:
        read_image_file(missing, "brand logo")
    assert caught.value.message == f"brand logo file not found: {missing}"

    with pytest.raises(BadRequest) as caught:
        read_image_file(tmp_path, "brand logo")
    assert caught.value.message == f"brand logo file is not a regular file: {tmp_path}"


def bytes_read() -> int:
    """Bytes this process has read through read() calls (Linux: /proc/self/io rchar)."""
    with open("/proc/self/io") as io_counts:
        return int(next(line for line in io_counts if line.startswith("rchar:")).split()[1])


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="counts reads on Linux only")
def test_a_huge_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    huge = tmp_path / "huge.png"
    with huge.open("wb") as file:
        file.truncate(2 * 1024**3)  # 2 GB, sparse: costs no disk and no reading

    before = bytes_read()
    with pytest.raises(BadRequest) as caught:
        read_image_file(huge, "brand logo")

    assert caught.value.message == f"brand logo file is larger than 8 MB: {huge}"
    # What the kernel counted, not a clock: the capped read, never the 2 GB.
    assert bytes_read() - before <= MAX_IMAGE_BYTES + 1024**2


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads anything")
def test_an_unreadable_file_is_refused(tmp_path: Path) -> None:
    locked = tmp_path / "locked.png"
    locked.write_bytes(encoded("PNG"))
    locked.chmod(0)

    with pytest.raises(BadRequest) as caught:
        read_image_file(locked, "brand logo")

    assert caught.value.message == f"brand logo file cannot be read: {locked} (Permission denied)"


# -- fetch_profile_image --------------------------------------------------------------------


@dataclass
class LocalSite:
    """A tiny web server on 127.0.0.1: path -> (status, content type, body)."""

    pages: dict[str, tuple[int, str, bytes]]
    base_url: str = ""
    requests: list[dict[str, str]] = field(default_factory=list)


@pytest.fixture
def site() -> Iterator[LocalSite]:
    served = LocalSite(pages={})

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            served.requests.append(
                {"path": self.path, **{k.lower(): v for k, v in self.headers.items()}}
            )
            status, content_type, body = served.pages.get(self.path, (404, "text/plain", b"no"))
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    served.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01})
    thread.start()
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/avatar.png",
        "http://10.0.0.1/avatar.png",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/avatar.png",
    ],
)
def test_a_private_profile_image_url_is_refused(url: str) -> None:

    with pytest.raises(UrlNotAllowed) as caught:
        asyncio.run(fetch_profile_image(url, allow_private=False))

    assert isinstance(caught.value, BadRequest)
    assert caught.value.status_code == 400
    assert caught.value.message.startswith("URL not allowed")


def test_the_guard_refuses_before_connecting(site: LocalSite) -> None:
    site.pages["/me.png"] = (200, "image/png", encoded("PNG"))

    with pytest.raises(UrlNotAllowed):
        asyncio.run(fetch_profile_image(f"{site.base_url}/me.png", allow_private=False))

    assert site.requests == []  # the server never saw a request


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.com/me.png", "data:image/png;base64,AAAA"]
)
def test_only_http_and_https_profile_image_urls(url: str) -> None:
    with pytest.raises(UrlNotAllowed) as caught:
        asyncio.run(fetch_profile_image(url, allow_private=False))

    assert "only http and https" in caught.value.message


def test_a_profile_image_is_fetched_and_checked(site: LocalSite) -> None:
    picture = encoded("JPEG", (64, 48))
    # The server's Content-Type is wrong on purpose: the bytes decide.
    site.pages["/me.jpg"] = (200, "application/octet-stream", picture)

    checked = asyncio.run(fetch_profile_image(f"{site.base_url}/me.jpg", allow_private=True))

    assert checked == CheckedImage(data=picture, media_type="image/jpeg", width=64, height=48)
    assert site.requests[0]["accept"] == "image/*"


def test_a_profile_image_url_that_is_no_image_is_refused(site: LocalSite) -> None:
    site.pages["/me.png"] = (200, "image/png", b"<html>Sign in to see this picture</html>")

    with pytest.raises(BadRequest) as caught:
        asyncio.run(fetch_profile_image(f"{site.base_url}/me.png", allow_private=True))

    assert caught.value.message == f"the profile image {NOT_AN_IMAGE}"


def test_a_missing_profile_image_says_what_the_server_answered(site: LocalSite) -> None:
    url = f"{site.base_url}/gone.png"

    with pytest.raises(BadRequest) as caught:
        asyncio.run(fetch_profile_image(url, allow_private=True))

    assert caught.value.message == f"Could not fetch {url}: the server answered 404 Not Found"


def test_a_too_large_profile_image_is_refused(site: LocalSite) -> None:
    site.pages["/big.png"] = (200, "image/png", b"\x00" * (MAX_IMAGE_BYTES + 1))
    url = f"{site.base_url}/big.png"

    with pytest.raises(BadRequest) as caught:
        asyncio.run(fetch_profile_image(url, allow_private=True))

    assert caught.value.message.startswith(f"Could not fetch {url}: the page is larger than")
