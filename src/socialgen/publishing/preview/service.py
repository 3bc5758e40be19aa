"""`posts preview`: how a post reads on each network it goes to, before it goes.

Read-only and offline: the post, its media and first comment are read from the
store and the file store; each network's plan (plan.py) applies that network's own
rules; nothing is sent, fetched or decrypted, so a preview of nine networks takes
milliseconds and works without credentials. Every face (CLI, HTTP, MCP) answers the
`PostPreview` built here.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Engine

from socialgen.files.store import FileStore
from socialgen.insights.text_features import describe
from socialgen.kit.clock import iso
from socialgen.kit.limits import MAX_HASHTAGS  # what a generated post carries at most
from socialgen.posts.service import get_post
from socialgen.publishing.networks.base import MediaItem, PublishError
from socialgen.publishing.outbox.media import MAX_IMAGES, post_media
from socialgen.publishing.preview.cards import link_card
from socialgen.publishing.preview.first_comment import comment_view, stored_first_comment
from socialgen.publishing.preview.fold import fold_of
from socialgen.publishing.preview.plan import plan_for
from socialgen.publishing.preview.repository import carousel_slides
from socialgen.publishing.preview.schemas import NetworkPreview, PostMediaView, PostPreview
from socialgen.publishing.preview.shapes import NAMES, Plan, plural
from socialgen.publishing.preview.targets import Target, choose
from socialgen.store.engine import read_session

MESSAGES = {"discord": "messages", "telegram": "messages, each a reply to the one before"}


def preview_post(
    engine: Engine,
    workspace_id: str,
    post_id: str,
    refs: Sequence[str] = (),
    *,
    number_parts: bool = False,
    files: FileStore,
) -> PostPreview:
    """The post as each chosen network would show it (targets.py says which)."""
    with read_session(engine) as session:
        post = get_post(session, workspace_id, post_id)
        chosen = choose(session, workspace_id, post.id, refs)
        slides = carousel_slides(session, workspace_id, post.id)
        comment = stored_first_comment(session, workspace_id, post.id)
        targets = [_detached(target) for target in chosen.targets]
    media = post_media(engine, files, post)
    networks = [
        network_preview(target, post.content, media, number_parts, comment) for target in targets
    ]
    return PostPreview(
        postId=post.id,
        postContent=post.content,
        status=post.status,
        scheduledAt=iso(post.scheduled_at),
        publishedAt=iso(post.published_at),
        numberParts=number_parts,
        chosenBy=chosen.by,
        note=chosen.note,
        media=_media_summary(media, slides),
        firstComment=comment,
        networks=networks,
    )


def network_preview(
    target: tuple[str, str | None, str | None],
    text: str,
    media: tuple[MediaItem, ...],
    number_parts: bool,
    comment: str | None,
) -> NetworkPreview:
    """One network's preview; `target` is (network, account id, handle)."""
    network, account_id, handle = target
    preview = NetworkPreview(
        network=network,
        networkName=NAMES.get(network, network),
        accountId=account_id,
        account=handle,
        connected=account_id is not None,
    )
    try:
        plan = plan_for(network, text, media, number_parts)
    except PublishError as error:
        preview.error = error.message
        return preview
    preview.rules = plan.rules
    preview.parts = plan.parts
    preview.fold = fold_of(network, plan.parts[0].text) if plan.parts else None
    preview.linkCard = link_card(network, text, plan)
    preview.leftOut = plan.left_out
    preview.warnings = [*plan.warnings, *_warnings(network, text, plan)]
    if comment is not None:
        preview.firstComment, said = comment_view(network, comment)
        preview.warnings += said
    return preview


def _warnings(network: str, text: str, plan: Plan) -> list[str]:
    said: list[str] = []
    if len(plan.parts) > 1:
        many = MESSAGES.get(network, "parts, each a reply to the one before")
        said.append(f"Longer than one post there: it goes out as {len(plan.parts)} {many}")
    tags = describe(text).hashtags
    if tags > MAX_HASHTAGS:
        said.append(
            f"{plural(tags, 'hashtag')}: more than {MAX_HASHTAGS} reads as spam to readers "
            "and to feeds"
        )
    return said


def _detached(target: Target) -> tuple[str, str | None, str | None]:
    """What the preview needs of a target, read while its session is open."""
    if target.account is None:
        return target.network, None, None
    return target.network, target.account.id, target.account.handle


def _media_summary(media: tuple[MediaItem, ...], slides: int) -> PostMediaView:
    images = sum(1 for item in media if item.kind == "image")
    document = next((item.title or "Carousel" for item in media if item.kind == "document"), None)
    note = ""
    if slides > images:
        note = (
            f"The carousel has {plural(slides, 'slide')}: the outbox sends its PDF and its "
            f"first {MAX_IMAGES} slides as images"
        )
    return PostMediaView(images=images, slides=slides, document=document, note=note)
