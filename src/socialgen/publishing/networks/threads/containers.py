"""Threads publishes in two steps: a media container (`POST /{user-id}/threads`), then
the container made live (`POST /{user-id}/threads_publish?creation_id=...`).

A container is never shown until it is published, so creating one again is harmless;
publishing is the step that makes a post live, and the one an unanswered request
leaves in doubt (adapter.py looks on the account, then at the container's status).
Between the two, the container must say FINISHED: Meta processes it first (text is
usually at once, media up to about 30 s), so its status is polled with a short,
growing pause, for at most `CONTAINER_WAIT` seconds.
"""

from __future__ import annotations

import time
from typing import Any

from socialgen.publishing.networks.base import PublishError
from socialgen.publishing.networks.threads.client import ThreadsClient, Unanswered

CONTAINER_WAIT = 30.0  # seconds a container may take to be ready (Meta: about 30 s)
FIRST_PAUSE = 0.2  # seconds before the first look again; doubled each time, up to 5 s
LONGEST_PAUSE = 5.0
FINISHED, IN_PROGRESS, PUBLISHED = "FINISHED", "IN_PROGRESS", "PUBLISHED"
ERROR, EXPIRED = "ERROR", "EXPIRED"


def create_text(client: ThreadsClient, user_id: str, text: str, reply_to: str | None) -> str:
    """A TEXT container for `text` (a reply to `reply_to` in a thread); its id."""
    params = {"media_type": "TEXT", "text": text}
    if reply_to:
        params["reply_to_id"] = reply_to
    body = client.post(f"/{user_id}/threads", params, what="preparing the post")
    return _id(body, "preparing the post")


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
