"""The rows `posts import` writes for the posts of a file: a conversation, the post and
its first version (source "import") each, and a metrics snapshot for a measured
published row; in batches of INSERT_BATCH_ROWS, made one batch ahead of the writes
(store.bulk.insert_batches), so a generator, not a list of every row."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from socialgen.kit.clock import iso
from socialgen.kit.errors import BadRequest
from socialgen.kit.ids import new_ids
from socialgen.posts.conversations import TITLE_CHARS
from socialgen.posts.history_rows import history_snapshot
from socialgen.posts.views import snippet
from socialgen.store.bulk import Batch, table_of
from socialgen.store.tables import Conversation, MetricSnapshot, Post, PostStatus, PostVersion

if TYPE_CHECKING:
    from socialgen.posts.imported import ImportedPost

INSERT_BATCH_ROWS = 2000  # posts per batch: bounded memory, few round trips
# A published row's media flag, kept where the store keeps a post's image (its
# customImage, which nothing publishes again): the file names no image, only that the
# post had one, which is what insights compare (insights/repository.py's has_media).
IMPORTED_MEDIA: dict[str, Any] = {"url": "", "source": "import"}


@dataclass
class Made:
    """What the batches made so far hold, kept up to date as they are drawn."""

    post_ids: list[str] = field(default_factory=list)  # in the file's order
    scheduled: int = 0
    published: int = 0


def import_batches(
    posts: Sequence[ImportedPost],
    workspace_id: str,
    *,
    user_id: str | None,
    start: datetime,
    now: datetime,
    made: Made,
) -> Iterator[Batch]:
    """The rows of `posts`, batch by batch. Post `index` is created at `start` plus
    `index` microseconds (naive UTC), as creating them one by one did: the listings
    (latest first) then show the last row on top, and ties never arise."""
    conversation_table, post_table = table_of(Conversation), table_of(Post)
    version_table, snapshot_table = table_of(PostVersion), table_of(MetricSnapshot)
    for first in range(0, len(posts), INSERT_BATCH_ROWS):
        conversations: list[dict[str, Any]] = []
        rows: list[dict[str, Any]] = []
        versions: list[dict[str, Any]] = []
        snapshots: list[dict[str, Any]] = []
        batch = posts[first : first + INSERT_BATCH_ROWS]
        ids = iter(new_ids(4 * len(batch)))  # conversation, post, version, snapshot
        for index, imported in enumerate(batch, start=first):
            created = start + timedelta(microseconds=index)
            scheduled_at = _scheduled_at(imported, now)
            conversation_id, drawn_id, version_id, snapshot_id = (
                next(ids),
                next(ids),
                next(ids),
                next(ids),
            )
            post_id = imported.post_id or drawn_id  # an exported file's own id is kept
            conversations.append(
                {
                    "id": conversation_id,
                    "workspace_id": workspace_id,
                    "user_id": user_id,
                    "title": (imported.theme or snippet(imported.content))[:TITLE_CHARS],
                    "status": "active",
                    "metadata": {},
                    "current_content": imported.content,
                    "created_at": created,
                    "updated_at": created,
                }
            )
            history, fields = imported.history, imported.fields
            media = None
            if history is None:
                row_status = PostStatus.SCHEDULED if scheduled_at else PostStatus.DRAFT
                published_at, timeline_at = None, scheduled_at or created
                post_url, likes, comments = None, 0, 0
            else:
                row_status = PostStatus.PUBLISHED
                published_at = timeline_at = history.published_at  # Post.place_on_timeline
                post_url, likes, comments = history.post_url, history.likes, history.comments
                media = IMPORTED_MEDIA if fields.media else None
                if history.measured:
                    snapshots.append(history_snapshot(snapshot_id, post_id, history, now))
                made.published += 1
            rows.append(
                {
                    "id": post_id,
                    "workspace_id": workspace_id,
                    "conversation_id": conversation_id,
                    "content": imported.content,
                    "post_type": "text",
                    "status": row_status,
                    "created_at": created,
                    "updated_at": created,
                    "scheduled_at": scheduled_at,
                    "timeline_at": timeline_at,  # Post.place_on_timeline
                    "likes": likes,
                    "comments": comments,
                    "published_at": published_at,
                    "post_url": post_url,
                    "variation_name": fields.variation,
                    "social_account_name": fields.account_name,
                    "social_account_email": fields.account_email,
                    "custom_image": media,
                }
            )
            versions.append(
                {
                    "id": version_id,
                    "post_id": post_id,
                    "version": 1,
                    "content": imported.content,
                    "source": "import",
                    "created_at": created,
                }
            )
            made.post_ids.append(post_id)
            made.scheduled += scheduled_at is not None
        yield [
            (conversation_table, conversations),
            (post_table, rows),
            (version_table, versions),
            (snapshot_table, snapshots),
        ]


def _scheduled_at(imported: ImportedPost, now: datetime) -> datetime | None:
    if imported.status != PostStatus.SCHEDULED or imported.date is None:
        return None
    if imported.date <= now:  # the date passed since the file was checked
        raise BadRequest(
            f"Nothing imported: {imported.where}: "
            f"The scheduled time must be in the future (got {iso(imported.date)})"
        )
    return imported.date
