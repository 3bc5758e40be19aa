"""Pixelfed: a comment under a photo post (a follow-up: publishing/followups/).

On Pixelfed a reply is a comment: `POST /api/v1/statuses` with `in_reply_to_id` and
no media (Pixelfed takes a status without media only as a reply:
ApiV1Controller::statusCreate), its text kept as Pixelfed keeps a caption (what reads
as an HTML tag removed) within the instance's caption limit.

Exactly once as for a post (adapter.py): the follow-up's key goes as the
Idempotency-Key, which Pixelfed refuses as a repeat for an hour. A create call that
got no answer, a key refused as a repeat, and a retry of an attempt that may be live
are settled by looking among the post's comments (its context's descendants) for
the account's comment with this text: found, it is the comment, never sent again.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol

from socialgen.kit.clock import iso
from socialgen.publishing.networks.base import (
    OutgoingPost,
    PreparedPart,
    PreparedPost,
    Published,
    PublishError,
)
from socialgen.publishing.networks.pixelfed.errors import KeyTaken, MaybeLive
from socialgen.publishing.networks.pixelfed.text import as_kept, count
from socialgen.sources.profiles.text import html_to_text


class PixelfedAdapter(Protocol):
    """What this module uses of adapter.py's PixelfedAdapter (which imports it)."""

    def limits(self) -> Any: ...

    def _api(self) -> Any: ...

    def _calls(self, creating: bool = False) -> AbstractContextManager[None]: ...

    def _live(self, post: OutgoingPost, status: Any) -> Published: ...

    def _already_live(self, remote_id: str) -> Published: ...


def prepared(adapter: PixelfedAdapter, post: OutgoingPost) -> PreparedPost:
    """The comment's one part as Pixelfed keeps it, or a refusal it would make."""
    limit = adapter.limits().max_characters
    text, removed = as_kept(post.text)
    if not text.strip():
        raise PublishError("Pixelfed: the comment has no text")
    if count(text) > limit:
        raise PublishError(
            f"The comment has {count(text)} characters and Pixelfed takes {limit}: shorten it"
        )
    details: dict[str, Any] = {
        "characters": count(text),
        "limit": limit,
        "in_reply_to": post.reply_to,
        "idempotency_key": post.idempotency_key,
    }
    if removed:
        details["leftOut"] = [
            "Pixelfed removes what reads as an HTML tag: "
            + ", ".join(repr(piece) for piece in removed)
        ]
    return PreparedPost(network="pixelfed", parts=(PreparedPart(text, details),))


def posted(adapter: PixelfedAdapter, post: OutgoingPost) -> Published:
    """Comment on `post.reply_to` once (see the module's note)."""
    parent = str(post.reply_to or "")
    if post.posted_parts:  # an earlier attempt got it live and said so
        return adapter._already_live(post.posted_parts[0])
    text = prepared(adapter, post).parts[0].text  # refusals before anything is sent
    if post.earlier_attempt_at is not None:
        found = _look(adapter, parent, text)
        if found is not None:
            return adapter._live(post, found)
    try:
        with adapter._calls(creating=True):
            status = adapter._api().status_post(
                text, in_reply_to_id=parent, idempotency_key=post.idempotency_key
            )
    except (MaybeLive, KeyTaken) as error:
        try:
            found = _look(adapter, parent, text)
        except PublishError:
            found = None
        if found is not None:
            return adapter._live(post, found)
        if isinstance(error, MaybeLive):
            raise  # retried with the same key, which cannot make a second comment
        raise PublishError(
            f"{error.message}, and no comment with this text is under the post now "
            f"({iso(post.earlier_attempt_at) or 'an earlier attempt'} may have failed after "
            "Pixelfed took its key). Check the post's comments",
            outcome_unknown=True,
        ) from None
    if not isinstance(status, dict) or not status.get("id"):
        raise PublishError("Pixelfed took the comment but named no id for it", outcome_unknown=True)
    return adapter._live(post, status)


def _look(adapter: PixelfedAdapter, parent: str, text: str) -> Any | None:
    """The account's comment under `parent` with `text`, if there is one."""
    with adapter._calls():
        me = str(adapter._api().account_verify_credentials().id)
        context = adapter._api().status_context(parent)
    wanted = " ".join(text.split())
    for status in context.get("descendants") or []:
        account = status.get("account") or {}
        kept = status.get("content_text")
        said = kept if isinstance(kept, str) else html_to_text(str(status.get("content") or ""))
        if str(account.get("id")) == me and " ".join(said.split()) == wanted:
            return status
    return None
