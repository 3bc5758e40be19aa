"""Threads publishes in two steps: a media container (`POST /{user-id}/threads`), then
the container made live (`POST /{user-id}/threads_publish?creation_id=...`).

A container is never shown until it is published, so creating one again is harmless;
publishing is the step that makes a post live, and the one an unanswered request
leaves in doubt (adapter.py looks on the account, then at the container's status).
An image post is an IMAGE container naming the image's public URL; a carousel is one
container per image (`is_carousel_item`), each FINISHED, then a CAROUSEL container
naming them as its `children` (media.py says which images go).
Between the two steps, a container must say FINISHED: Meta processes it first (text is
usually at once, media up to about 30 s), so its status is polled with a short,
growing pause, for at most `CONTAINER_WAIT` seconds.
"""

from __future__ import annotations

import time
from typing import Any

from socialgen.publishing.networks.base import MediaItem, PublishError
from socialgen.publishing.networks.threads.client import ThreadsClient, Unanswered

CONTAINER_WAIT = 30.0  # seconds a container may take to be ready (Meta: about 30 s)
FIRST_PAUSE = 0.2  # seconds before the first look again; doubled each time, up to 5 s
LONGEST_PAUSE = 5.0
FINISHED, IN_PROGRESS, PUBLISHED = "FINISHED", "IN_PROGRESS", "PUBLISHED"
ERROR, EXPIRED = "ERROR", "EXPIRED"
FETCH_HINT = (
    "Threads downloads each image itself from its presigned link to the file bucket: "
    "the bucket must be reachable from the internet, and up"
)


def create_text(client: ThreadsClient, user_id: str, text: str, reply_to: str | None) -> str:
    """A TEXT container for `text` (a reply to `reply_to` in a thread); its id."""
    params = {"media_type": "TEXT", "text": text}
    if reply_to:
        params["reply_to_id"] = reply_to
    body = client.post(f"/{user_id}/threads", params, what="preparing the post")
    return _id(body, "preparing the post")


def create_image(
    client: ThreadsClient,
    user_id: str,
    image: MediaItem,
    text: str,
    reply_to: str | None,
    *,
    carousel_item: bool = False,
) -> str:
    """An IMAGE container Meta fetches from `image.public_url`: the post itself with
    `text`, or (`carousel_item`) one of a carousel's images, which takes no text."""
    params = {"media_type": "IMAGE", "image_url": image.public_url}
    if image.alt_text:
        params["alt_text"] = image.alt_text
    if carousel_item:
        params["is_carousel_item"] = "true"
    else:
        params["text"] = text
        if reply_to:
            params["reply_to_id"] = reply_to
    what = "preparing the post's images" if carousel_item else "preparing the post's image"
    try:
        # Meta may quote the link it could not fetch: a presigned link is not for messages.
        body = client.post(f"/{user_id}/threads", params, what=what, hide=(image.public_url,))
    except PublishError as error:
        if not (error.retryable or error.reconnect or error.outcome_unknown):
            error.message += f"; {FETCH_HINT}"
        raise
    return _id(body, what)


def create_carousel(
    client: ThreadsClient, user_id: str, children: list[str], text: str, reply_to: str | None
) -> str:
    """A CAROUSEL container of `children` (FINISHED carousel items, in order)."""
    params = {"media_type": "CAROUSEL", "children": ",".join(children), "text": text}
    if reply_to:
        params["reply_to_id"] = reply_to
    what = "preparing the carousel"
    return _id(client.post(f"/{user_id}/threads", params, what=what), what)


def status(client: ThreadsClient, container_id: str) -> tuple[str, str]:
    """(status, error_message) of a container."""
    body = client.get(
        f"/{container_id}",
        {"fields": "status,error_message"},
        what="reading the state of the post being prepared",
    )
    return str(body.get("status") or ""), str(body.get("error_message") or "")


def wait_finished(client: ThreadsClient, container_id: str, wait: float = CONTAINER_WAIT) -> None:
    """Return once the container is FINISHED; a PublishError when it failed, expired
    or is not ready in time (retryable: a new container is made next time)."""
    deadline = time.monotonic() + wait
    pause = FIRST_PAUSE
    while True:
        state, message = status(client, container_id)
        if state == FINISHED:
            return
        if state == ERROR:
            raise PublishError(f"Threads could not prepare the post: {message or 'ERROR'}")
        if state == EXPIRED:
            raise PublishError("Threads let the prepared post expire", retryable=True)
        if state == PUBLISHED:  # not ours to publish twice
            raise PublishError("Threads says this prepared post is already published")
        if state != IN_PROGRESS:
            raise PublishError(
                f"Threads gave the prepared post an unknown state ({state or 'none'})",
                retryable=True,
            )
        left = deadline - time.monotonic()
        if left <= 0:
            raise PublishError(
                f"Threads was still preparing the post after {wait:g} s; it is not live "
                "and will be prepared again on the next attempt",
                retryable=True,
            )
        time.sleep(min(pause, left))
        pause = min(pause * 2, LONGEST_PAUSE)


def publish(client: ThreadsClient, user_id: str, container_id: str) -> str:
    """Make the container live; the post's (media) id. May raise `Unanswered`."""
    body = client.post(
        f"/{user_id}/threads_publish",
        {"creation_id": container_id},
        what="publishing the post",
        creates=True,
    )
    try:
        return _id(body, "publishing the post")
    except PublishError:
        # Accepted, with no id: live, most likely; the adapter looks for it.
        raise Unanswered("Threads accepted the post but named no id for it") from None


def permalink(client: ThreadsClient, media_id: str) -> str:
    """Where a person sees the post ("" when Threads does not say)."""
    try:
        body = client.get(f"/{media_id}", {"fields": "permalink"}, what="reading the post's link")
    except PublishError:
        return ""  # the post is live: a missing link is not worth failing it for
    link = body.get("permalink")
    return link if isinstance(link, str) and link.startswith(("https://", "http://")) else ""


def _id(body: dict[str, Any], what: str) -> str:
    value = body.get("id")
    if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
        return str(value).strip()
    raise PublishError(f"Threads' answer while {what} names no id", retryable=True)
