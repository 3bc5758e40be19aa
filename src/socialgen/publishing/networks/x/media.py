"""Images on X posts: which part carries which, and the v2 upload.

X takes up to four images per post, each up to 5 MB, and no documents: a carousel's
PDF is left out, and its slides go as images instead, four on the first part, the
next four on the second, and so on down the thread; those beyond the thread's last
part are left out, and the dry run says which (`details["leftOut"]`).

An image is `POST /2/media/upload` (multipart: the bytes as `media`,
`media_category=tweet_image`, scope media.write) for a media id, then its alt text
with `POST /2/media/metadata`; the post names the ids. Nothing is live until the post
is created, so a failed upload is simply retried (the error is retryable).
"""

from __future__ import annotations

from typing import Any

from socialgen.publishing.networks.base import MediaItem, PublishError
from socialgen.publishing.networks.x.client import XClient

IMAGES_PER_POST = 4
MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_ALT_TEXT = 1000
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}


def plan_media(media: tuple[MediaItem, ...], parts: int) -> tuple[list[list[MediaItem]], list[str]]:
    """The images each of `parts` parts carries, and a sentence for each thing left out."""
    left_out: list[str] = []
    if any(item.kind == "document" for item in media):
        left_out.append(
            "The carousel's PDF is left out: X takes images, not documents"
            + (" (its slides go as images)" if any(i.kind == "image" for i in media) else "")
        )
    images: list[tuple[int, MediaItem]] = []
    for number, item in enumerate((i for i in media if i.kind == "image"), start=1):
        if len(item.data) > MAX_IMAGE_BYTES:
            left_out.append(f"Image {number} is left out: X takes images of at most 5 MB")
        elif item.mime_type not in EXTENSIONS:
            left_out.append(f"Image {number} is left out: X does not take {item.mime_type}")
        else:
            images.append((number, item))
    room = IMAGES_PER_POST * parts
    per_part = [
        [item for _, item in images[start : start + IMAGES_PER_POST]]
        for start in range(0, IMAGES_PER_POST * parts, IMAGES_PER_POST)
    ]
    if len(images) > room:
        extra = [number for number, _ in images[room:]]
        which = f"{extra[0]}" if len(extra) == 1 else f"{extra[0]} to {extra[-1]}"
        plural = "s" if parts > 1 else ""
        left_out.append(
            f"Image{'s' if len(extra) > 1 else ''} {which} left out: X takes "
            f"{IMAGES_PER_POST} images per post and the thread has {parts} post{plural}"
        )
    return per_part, left_out


def describe(images: list[MediaItem]) -> list[dict[str, Any]]:
    """A part's images as the dry run shows them (no bytes)."""
    return [
        {
            "mimeType": item.mime_type,
            "bytes": len(item.data),
            "altText": item.alt_text[:MAX_ALT_TEXT],
        }
        for item in images
    ]


def upload(client: XClient, item: MediaItem, number: int) -> str:
    """Upload one image (with its alt text); its media id."""
    what = f"uploading image {number}"
    name = f"image-{number}.{EXTENSIONS.get(item.mime_type, 'png')}"
    response = client.request(
        "POST",
        "/2/media/upload",
        what=what,
        files={"media": (name, item.data, item.mime_type)},
        data={"media_category": "tweet_image"},
    )
    data = client.json_of(response, what).get("data")
    media_id = data.get("id") if isinstance(data, dict) else None
    if not isinstance(media_id, str) or not media_id.isdigit():
        raise PublishError(f"X's answer while {what} named no media id", retryable=True)
    alt = item.alt_text.strip()[:MAX_ALT_TEXT]
    if alt:
        client.request(
            "POST",
            "/2/media/metadata",
            what=f"describing image {number}",
            json={"id": media_id, "metadata": {"alt_text": {"text": alt}}},
        )
    return media_id
