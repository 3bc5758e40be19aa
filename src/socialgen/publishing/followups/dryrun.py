"""The follow-ups in a dry run (`posts publish --dry-run`): under each network's
preview, what its first comment and plug would be (the parts the adapter makes of
them, as a reply under the post), or why that network cannot take them: a Discord
webhook cannot reply under a message, and a text over a network's comment limit is
refused there (LinkedIn keeps 1,250 characters in a comment)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from socialgen.publishing.adapters import build_adapter
from socialgen.publishing.followups import repository
from socialgen.publishing.followups.claim import can_reply
from socialgen.publishing.followups.views import FACE_KIND
from socialgen.publishing.followups.worker import followup_key
from socialgen.publishing.networks.base import OutgoingPost, PublishError
from socialgen.publishing.registry import Networks
from socialgen.store.tables import FollowupKind, PostFollowup, SocialAccount

THE_POST = "(the post, once live)"  # what a preview replies to: it has no id yet


def post_followups(session: Session, post_id: str) -> list[PostFollowup]:
    return sorted(repository.of_posts(session, [post_id]), key=lambda found: found.kind)


def add_followup_previews(
    engine: Engine,
    previews: Sequence[dict[str, Any]],
    followups: Sequence[PostFollowup],
    accounts: Sequence[SocialAccount | str],
    networks: Networks,
) -> None:
    """Give each preview its `followups` (none when the post has none)."""
    if not followups:
        return
    by_id = {a.id: a for a in accounts if isinstance(a, SocialAccount)}
    for preview in previews:
        account = by_id.get(str(preview.get("accountId") or ""))
        preview["followups"] = [
            followup_preview(engine, str(preview["network"]), account, found, networks)
            for found in followups
        ]


def followup_preview(
    engine: Engine,
    network: str,
    account: SocialAccount | None,
    followup: PostFollowup,
    networks: Networks,
) -> dict[str, Any]:
    kind = FACE_KIND[FollowupKind(followup.kind)]
    shown: dict[str, Any] = {"kind": kind, "text": followup.text, "replyTo": THE_POST}
    if followup.kind == FollowupKind.FIRST_COMMENT:
        shown["delaySeconds"] = followup.delay_seconds
    else:
        shown["afterLikes"] = followup.like_threshold
    if not can_reply(networks, network):
        shown["parts"] = []
        shown["error"] = (
            f"{network} cannot post a reply under a post through its API (a webhook posts "
            f"new messages only): the {kind.replace('-', ' ')} is not posted there"
        )
        return shown
    if account is None:  # not connected: the text as it stands
        shown["parts"] = [{"text": followup.text, "details": {}}]
        return shown
    outgoing = OutgoingPost(
        publication_id=f"dry-run-{followup.id}",
        idempotency_key=followup_key(f"dry-run-{followup.id}-{account.id}"),
        text=followup.text,
        reply_to=THE_POST,
    )
    try:
        prepared = build_adapter(networks, engine, account).prepare(outgoing)
        shown["parts"] = [
            {"text": part.text, "details": _plain(part.details)} for part in prepared.parts
        ]
    except PublishError as error:
        shown["parts"] = []
        shown["error"] = error.message
    return shown


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)
