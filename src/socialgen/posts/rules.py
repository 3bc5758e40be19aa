"""What a post's content and status may be, checked the same by every way in: the
CLI, the HTTP API, file imports (whose text never passes the request checks), and
whatever comes next. The same on SQLite and PostgreSQL: the check runs before the
store sees the text (PostgreSQL refuses NUL in text, SQLite keeps it)."""

from __future__ import annotations

from socialgen.kit.errors import BadRequest, SocialgenError
from socialgen.kit.limits import MAX_POST_CHARS
from socialgen.kit.text_check import shows_nothing, text_problem
from socialgen.store.tables import Publication, PublicationState, SocialAccount
from socialgen.store.tables.posts import EDITABLE_STATUSES, Post

CONTENT_REQUIRED = "Content is required"

# Publication.options, written by publishing/: the text of an attempt whose outcome is
# not known (the network may have taken it). It may be live, and every later attempt
# of the publication sends that same text under the same idempotency key (a network
# that dedupes answers a repeat with the first post), so the post's text is frozen
# until the publication settles.
UNSETTLED_TEXT = "unsettled_text"


def valid_content(content: str | None) -> str:
    """The content to store (surrounding whitespace trimmed), or a 400: content that
    would look empty (whitespace, zero-width and other invisible characters only) is
    missing content, and a NUL or a lone surrogate cannot be stored or sent, nor a
    control character (but tab and line breaks) be printed (kit/control_chars.py)."""
    text = (content or "").strip()
    if shows_nothing(text):
        raise BadRequest(CONTENT_REQUIRED)
    if (problem := text_problem(text, "Content")) is not None:
        raise BadRequest(problem)
    if len(text) > MAX_POST_CHARS:
        raise BadRequest(
            f"Content exceeds the character limit of {MAX_POST_CHARS} characters "
            f"({len(text)} given)"
        )
    return text


def ensure_editable(post: Post) -> None:
    if post.status not in EDITABLE_STATUSES:
        raise BadRequest(
            f"Cannot edit a post with status {post.status}: "
            "only draft and scheduled posts can be edited"
        )


def ensure_deletable(post: Post) -> None:
    if post.status not in EDITABLE_STATUSES:
        raise BadRequest(
            f"Cannot delete a {post.status} post here: "
            "a published post must be deleted on the social network directly"
        )


def unsettled(publication: Publication) -> bool:
    """Whether an attempt of `publication` may be live with the text it sent, or one
    is under way: the post's text must not change until it settles."""
    if publication.state in (PublicationState.PUBLISHING, PublicationState.UNKNOWN):
        return True
    return publication.state != PublicationState.PUBLISHED and UNSETTLED_TEXT in (
        publication.options or {}
    )


def edit_refused(post_id: str, publication: Publication, account: SocialAccount) -> SocialgenError:
    """A 409 naming the unsettled publication and the command that settles it."""
    where = f"{account.network} {account.handle}"
    if publication.state == PublicationState.PUBLISHING:
        reason = (
            f"it is being published to {where} right now. Wait for the answer "
            f"(socialgen posts publications {post_id}), then edit"
        )
    elif publication.state == PublicationState.UNKNOWN:
        reason = (
            f"its publication to {where} is unknown: the text sent may be live. Check the "
            f"account: if the post is there, record it with `socialgen posts mark-published "
            f"{post_id} --url URL`; if not, send it again with `socialgen posts publish "
            f"{post_id} --to {account.handle} --retry` (the same text)"
        )
    elif publication.state == PublicationState.QUEUED:
        reason = (
            f"an attempt to publish it to {where} got no clear answer, so that text may be "
            "live, and the retry planned sends the same text (the network answers a repeat "
            "with the first post). Let the retry run (`socialgen publish-due`, or the "
            "scheduler of `socialgen serve`), or, if the post is not on the account, drop "
            f"the retry with `socialgen posts unschedule {post_id}`, then edit"
        )
    else:
        reason = (
            f"an attempt to publish it to {where} got no clear answer ({publication.state}), "
            "so that text may be live. Check the account: if the post is there, record it "
            f"with `socialgen posts mark-published {post_id} --url URL`; if not, send it "
            f"again with `socialgen posts publish {post_id} --to {account.handle} --retry` "
            "(the same text)"
        )
    return SocialgenError(f"Cannot edit the post now: {reason}", status_code=409)
