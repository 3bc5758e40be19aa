"""LinkedIn: a comment on a member's own post (a follow-up: publishing/followups/).

LinkedIn has no replies: what goes under a post is a comment, made with the Comments
API (`POST /rest/socialActions/{postUrn}/comments`, permission w_member_social) whose
body names the member (`actor`), the post (`object`) and the text (`message.text`,
plain text: not the Posts API's "little" text, so nothing is escaped). LinkedIn keeps
a comment to 1,250 characters: a longer one is refused before anything is sent.

As for a post, there is no idempotency key: a comment request that got no answer may
be live, and is `outcome_unknown` (client.py's `creates`), never sent again blind.
"""

from __future__ import annotations

from urllib.parse import quote

from socialgen.publishing.networks.base import (
    OutgoingPost,
    PreparedPart,
    PreparedPost,
    Published,
    PublishError,
)
from socialgen.publishing.networks.linkedin.client import LinkedInClient, json_body

MAX_COMMENT = 1250  # characters LinkedIn keeps in a comment


def comment_text(post: OutgoingPost) -> str:
    """The comment as sent, or a refusal LinkedIn would make (too long, empty)."""
    text = post.text.strip()
    if not text:
        raise PublishError("LinkedIn: the comment has no text")
    if len(text) > MAX_COMMENT:
        raise PublishError(
            f"The comment has {len(text)} characters and LinkedIn keeps {MAX_COMMENT} in a "
            "comment: shorten it"
        )
    return text


def prepared_comment(post: OutgoingPost, api_version: str) -> PreparedPost:
    """What the dry run shows: the comment's one part, on which post."""
    text = comment_text(post)
    details = {
        "apiVersion": api_version,
        "commentOn": post.reply_to,
        "characters": len(text),
        "limit": MAX_COMMENT,
    }
    return PreparedPost(network="linkedin", parts=(PreparedPart(text=text, details=details),))


def post_comment(client: LinkedInClient, actor: str, post: OutgoingPost) -> Published:
    """Comment on `post.reply_to` as `actor`; the comment's URN and where it is seen."""
    target = str(post.reply_to or "")
    body = {"actor": actor, "object": target, "message": {"text": comment_text(post)}}
    response = client.request(
        "POST",
        f"/rest/socialActions/{quote(target, safe='')}/comments",
        what="commenting on the post",
        json=body,
        creates=True,
    )
    answer = json_body(response)
    urn = str(answer.get("$URN") or response.headers.get("x-restli-id", "")).strip()
    if not urn:
        raise PublishError(
            "LinkedIn took the comment but gave no id for it: it may be live. Check the "
            "post's comments before sending it again",
            outcome_unknown=True,
        )
    post.note_posted(0, urn)
    url = f"https://www.linkedin.com/feed/update/{target}/?commentUrn={quote(urn, safe='')}"
    return Published(remote_id=urn, url=url, part_ids=(urn,))
