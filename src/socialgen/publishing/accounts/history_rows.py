"""New posts of a pulled history, written as rows in bulk (store/bulk.py: COPY on
PostgreSQL, executemany elsewhere): an account with thousands of posts goes in within
seconds, where one ORM object at a time took 12 ms a post.

Each post gets what `posts import` gives a post (a conversation and a first version,
source "import"), marked published at the network's time, with its publication
(options.origin "history") and one metrics snapshot. Never commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

from socialgen.kit.errors import BadRequest
from socialgen.kit.ids import new_id
from socialgen.posts.conversations import TITLE_CHARS
from socialgen.posts.rules import valid_content
from socialgen.posts.views import snippet
from socialgen.publishing.networks.base import PastPost
from socialgen.store.bulk import insert_rows, table_of
from socialgen.store.tables import (
    Conversation,
    MetricSnapshot,
    Post,
    PostStatus,
    PostVersion,
    Publication,
    PublicationState,
    SocialAccount,
)

ORIGIN = "history"  # Publication.options["origin"] of a pulled post
BATCH_ROWS = 2000  # posts per round of inserts: bounded memory, few round trips


@dataclass
class _Rows:
    conversations: list[dict[str, Any]] = field(default_factory=list)
    posts: list[dict[str, Any]] = field(default_factory=list)
    versions: list[dict[str, Any]] = field(default_factory=list)
    publications: list[dict[str, Any]] = field(default_factory=list)
    snapshots: list[dict[str, Any]] = field(default_factory=list)


def insert_pulled(
    session: Session, account: SocialAccount, pulled: Sequence[PastPost], now: datetime
) -> tuple[int, int]:
    """Create every post of `pulled` (each remote id once); (created, skipped): a post
    with no text to keep (an image alone) or more than a post may hold is skipped."""
    created = skipped = 0
    connection = session.connection()
    for first in range(0, len(pulled), BATCH_ROWS):
        rows = _Rows()
        for index, past in enumerate(pulled[first : first + BATCH_ROWS], start=first):
            try:
                text = valid_content(past.text)
            except BadRequest:
                skipped += 1
                continue
            # Microseconds apart, as `posts import` does: no ties in the listings.
            _add(rows, account, past, text, now + timedelta(microseconds=index))
            created += 1
        insert_rows(connection, table_of(Conversation), rows.conversations)
        insert_rows(connection, table_of(Post), rows.posts)
        insert_rows(connection, table_of(PostVersion), rows.versions)
        insert_rows(connection, table_of(Publication), rows.publications)
        insert_rows(connection, table_of(MetricSnapshot), rows.snapshots)
    return created, skipped


def _add(rows: _Rows, account: SocialAccount, past: PastPost, text: str, now: datetime) -> None:
    conversation_id, post_id, publication_id = new_id(), new_id(), new_id()
    url = past.url[:2048] or None
    counts = past.metrics
    rows.conversations.append(
        {
            "id": conversation_id,
            "workspace_id": account.workspace_id,
            "user_id": None,
            "title": snippet(text)[:TITLE_CHARS],
            "status": "active",
            "metadata": {},
            "current_content": text,
            "created_at": now,
            "updated_at": now,
        }
    )
    rows.posts.append(
        {
            "id": post_id,
            "workspace_id": account.workspace_id,
            "conversation_id": conversation_id,
            "content": text,
            "post_type": "text",
            "status": PostStatus.PUBLISHED,
            "created_at": now,
            "updated_at": now,
            "scheduled_at": past.published_at,
            "published_at": past.published_at,
            "timeline_at": past.published_at,  # Post.place_on_timeline
            "post_url": url,
            "social_account_name": (account.display_name or account.handle)[:200],
            "social_account_email": account.email or None,
            "likes": counts.likes,
            "comments": counts.comments,
        }
    )
    rows.versions.append(
        {
            "id": new_id(),
            "post_id": post_id,
            "version": 1,
            "content": text,
            "source": "import",
            "created_at": now,
        }
    )
    rows.publications.append(
        {
            "id": publication_id,
            "workspace_id": account.workspace_id,
            "post_id": post_id,
            "account_id": account.id,
            "state": PublicationState.PUBLISHED,
            "due_at": past.published_at,
            "attempts": 0,
            "remote_id": past.remote_id,
            "remote_url": url,
            "part_ids": [past.remote_id],
            "message": "",
            "options": {"origin": ORIGIN},
            "created_at": now,
            "updated_at": now,
            "published_at": past.published_at,
            "metrics_at": now,
        }
    )
    rows.snapshots.append(
        {
            "id": new_id(),
            "publication_id": publication_id,
            "post_id": post_id,
            "taken_at": now,
            "likes": counts.likes,
            "reposts": counts.reposts,
            "comments": counts.comments,
            "impressions": counts.impressions,
        }
    )
