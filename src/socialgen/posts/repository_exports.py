"""The workspace's posts as `posts export` writes them: every field a post has, its
counts (posts/repository_counts.py) and whether it carries media. Takes the caller's
session and never commits."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session, col, select

from socialgen.posts.export_item import ExportItem
from socialgen.posts.repository_counts import latest_readings, summed_counts
from socialgen.store.tables import Conversation, Post, PostStatus


def export_items(
    session: Session, workspace_id: str, statuses: Sequence[str] = ()
) -> list[ExportItem]:
    """Every post of the workspace (or those with one of `statuses`) as export items,
    newest first, each dated by when it is scheduled, was published or (drafts) was
    created. The theme is the conversation title."""
    statement = (
        select(Post, Conversation.title)
        .outerjoin(Conversation, col(Conversation.id) == col(Post.conversation_id))
        .where(col(Post.workspace_id) == workspace_id)
    )
    if statuses:
        statement = statement.where(col(Post.status).in_(list(statuses)))
    counts = summed_counts(latest_readings(session, workspace_id))
    items = []
    for post, title in session.exec(statement).all():
        if post.status == PostStatus.PUBLISHED:
            moment = post.published_at or post.scheduled_at or post.created_at
        elif post.status == PostStatus.SCHEDULED:
            moment = post.scheduled_at or post.created_at
        else:
            moment = post.created_at
        items.append(
            ExportItem(
                post_id=post.id,
                content=post.content,
                date=moment,
                status=post.status,
                theme=title or None,
                variation=post.variation_name,
                post_type=post.post_type,
                created_at=post.created_at,
                scheduled_at=post.scheduled_at,
                published_at=post.published_at,
                post_url=post.post_url,
                account_name=post.social_account_name,
                account_email=post.social_account_email,
                counts=counts.get(post.id),
                # As insights ask it (insights/repository.py): any media reference.
                media=any(
                    media is not None
                    for media in (post.carousel, post.custom_image, post.infographic)
                ),
            )
        )
    items.sort(key=lambda item: (item.moment, item.post_id), reverse=True)
    return items
