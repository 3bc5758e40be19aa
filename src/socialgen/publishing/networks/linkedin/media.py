"""Files on a LinkedIn post: the Images and Documents APIs.

Each file is two calls: `POST /rest/{images|documents}?action=initializeUpload` for
an upload URL and the file's URN, then a PUT of the bytes to that URL. The post then
names the URN. Nothing is live until the post itself is created, so a failed upload
is simply retried (the outbox does so: the error is retryable).

A carousel reaches LinkedIn as a document post (its PDF, which LinkedIn shows as
swipeable pages); slides as images go to the networks without documents. One image is
`content.media`, two to twenty are `content.multiImage`.
"""

from __future__ import annotations

from typing import Any

from socialgen.publishing.networks.base import MediaItem, PublishError
from socialgen.publishing.networks.linkedin.client import LinkedInClient

MAX_IMAGES = 20  # a multiImage post holds 2 to 20 images
MAX_ALT_TEXT = 4086  # LinkedIn's limit for a media's altText
DEFAULT_DOCUMENT_TITLE = "Carousel"


def chosen_media(media: tuple[MediaItem, ...]) -> tuple[MediaItem, ...]:
    """What LinkedIn receives of a post's files: the first document alone (a post has
    one), else up to 20 images."""
    documents = [item for item in media if item.kind == "document"]
    if documents:
        return (documents[0],)
    return tuple(item for item in media if item.kind == "image")[:MAX_IMAGES]


def describe(media: tuple[MediaItem, ...]) -> list[dict[str, Any]]:
    """The files as the dry run shows them (no bytes)."""
    return [
        {"kind": item.kind, "mimeType": item.mime_type, "bytes": len(item.data)}
        | ({"title": item.title or DEFAULT_DOCUMENT_TITLE} if item.kind == "document" else {})
        | ({"altText": item.alt_text[:MAX_ALT_TEXT]} if item.kind == "image" else {})
        for item in chosen_media(media)
    ]


def post_content(
    client: LinkedInClient, owner: str, media: tuple[MediaItem, ...]
) -> dict[str, Any] | None:
    """Upload the files and return the post's `content` (None for a text post)."""
    chosen = chosen_media(media)
    if not chosen:
        return None
    if chosen[0].kind == "document":
        document = chosen[0]
        urn = upload(client, owner, document)
        return {"media": {"id": urn, "title": document.title or DEFAULT_DOCUMENT_TITLE}}
    images = [
        {"id": upload(client, owner, item), "altText": item.alt_text[:MAX_ALT_TEXT]}
        for item in chosen
    ]
    if len(images) == 1:
        return {"media": images[0]}
    return {"multiImage": {"images": images}}


def upload(client: LinkedInClient, owner: str, item: MediaItem) -> str:
    """Upload one file; its URN (urn:li:image:... or urn:li:document:...)."""
    kind = "document" if item.kind == "document" else "image"
    response = client.request(
        "POST",
        f"/rest/{kind}s?action=initializeUpload",
        what=f"preparing the {kind} upload",
        json={"initializeUploadRequest": {"owner": owner}},
    )
    try:
        value = response.json()["value"]
        upload_url, urn = str(value["uploadUrl"]), str(value[kind])
    except (ValueError, KeyError, TypeError) as error:
        raise PublishError(f"LinkedIn's answer to the {kind} upload had no upload URL") from error
    client.upload(upload_url, item.data, item.mime_type, what=f"uploading the {kind}")
    return urn
