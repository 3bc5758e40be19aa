"""The post's first comment in the preview: read from the follow-ups slice, shown under
each network that can post under a post, measured as that network measures it.

publishing/followups/ stores and sends first comments (issue 41, item 2); the preview
reads one through its `first_comment_of(session, workspace_id, post_id)`. Whether a
network takes one is its adapter module's `CAN_REPLY` (networks/base.py). A first
comment goes the way a thread's next part goes (a reply to the post's first part), so
it is split by the same rules; LinkedIn's is a comment (1,250 characters kept) and
Pixelfed's a comment under the photo (its caption rules).
"""

from __future__ import annotations

import importlib

from sqlmodel import Session

from socialgen.publishing.followups.service import first_comment_of
from socialgen.publishing.networks.base import PublishError
from socialgen.publishing.preview.plan import plan_for
from socialgen.publishing.preview.schemas import FirstCommentView
from socialgen.publishing.preview.shapes import NAMES

WHERE = {
    "linkedin": "A comment under the post (LinkedIn has no replies), once it is live",
    "pixelfed": "A comment under the photo, once it is live",
    "nostr": "A reply note under the post (NIP-10), once it is live",
    "telegram": "A message replying to the post in the channel, once it is live",
}
REPLY = "A reply under the post, once it is live"
CANNOT = {"discord": "Not on Discord: a channel's webhook cannot reply under a message"}


def stored_first_comment(session: Session, workspace_id: str, post_id: str) -> str | None:
    """The post's first comment, or None."""
    found = first_comment_of(session, workspace_id, post_id)
    return found if found is not None and found.strip() else None


def can_reply(network: str) -> bool:
    """Whether socialgen posts under a post on `network` (its module's CAN_REPLY)."""
    try:
        module = importlib.import_module(f"socialgen.publishing.networks.{network}.adapter")
    except ModuleNotFoundError:  # a network socialgen does not know
        return False
    return bool(getattr(module, "CAN_REPLY", False))


def comment_view(network: str, text: str) -> tuple[FirstCommentView, list[str]]:
    """Where `text` goes on `network`, and warnings when it would not go as one."""
    name = NAMES.get(network, network)
    if not can_reply(network):
        how = CANNOT.get(network, f"Not on {name}: socialgen cannot post under a post there")
        return FirstCommentView(text=text, supported=False, how=how), []
    how = WHERE.get(network, REPLY)
    if network in ("linkedin", "pixelfed"):
        return _comment(network, text, how)
    try:
        plan = plan_for(network, text, (), False)
    except PublishError as error:
        view = FirstCommentView(text=text, supported=True, how=how)
        return view, [f"The first comment would be refused: {error.message}"]
    first = plan.parts[0]
    view = FirstCommentView(
        text=text, supported=True, how=how, count=first.count, limit=first.limit
    )
    if len(plan.parts) > 1:
        return view, [
            f"The first comment is longer than one reply on {name} ({first.limit} "
            f"{first.unit}): it goes as {len(plan.parts)} replies"
        ]
    return view, []


def _comment(network: str, text: str, how: str) -> tuple[FirstCommentView, list[str]]:
    """LinkedIn's comment and Pixelfed's: one piece, refused when too long."""
    if network == "linkedin":
        from socialgen.publishing.networks.linkedin.comments import MAX_COMMENT

        kept, limit, unit = text.strip(), MAX_COMMENT, "characters"
    else:
        from socialgen.publishing.networks.pixelfed.text import (
            DEFAULT_MAX_CHARACTERS,
            as_kept,
        )

        kept, limit, unit = as_kept(text)[0], DEFAULT_MAX_CHARACTERS, "characters"
    view = FirstCommentView(text=kept, supported=True, how=how, count=len(kept), limit=limit)
    if len(kept) <= limit:
        return view, []
    return view, [
        f"The first comment has {len(kept)} {unit} and {NAMES[network]} keeps {limit} in a "
        "comment: it would be refused, shorten it"
    ]
