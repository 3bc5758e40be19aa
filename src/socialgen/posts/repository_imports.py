"""Queries an import runs to recognise what the store already has: the owners of the
post ids a file names (posts.import_ids) and the keys of a workspace's published
posts (posts.import_dedup). Every function takes the caller's session and never
commits."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Result, or_, select
from sqlmodel import Session, col

from socialgen.store.tables import Post, PostStatus

# Ids per lookup: one query each, whatever the file's length, within SQLite's bound
# on parameters.
_LOOKUP_SLICE = 500
_STREAM_ROWS = 5000


def post_owners(session: Session, post_ids: Sequence[str]) -> list[tuple[str, str]]:
    """(post id, its workspace id) for each of `post_ids` some post has, in any
    workspace; looked up in slices of a few hundred ids."""
    owners: list[tuple[str, str]] = []
    for first in range(0, len(post_ids), _LOOKUP_SLICE):
        part = post_ids[first : first + _LOOKUP_SLICE]
        statement = select(col(Post.id), col(Post.workspace_id)).where(col(Post.id).in_(part))
        owners += [(post_id, owner) for post_id, owner in session.execute(statement)]
    return owners


def published_keys(session: Session, workspace_id: str) -> Result[str | None, str, datetime | None]:
    """(post_url, content, published_at) of every post of the workspace that has an
    address, or is published with a date: streamed, a few thousand rows at a time, as
    the caller iterates the result."""
    statement: Any = (
        select(col(Post.post_url), col(Post.content), col(Post.published_at))
        .where(col(Post.workspace_id) == workspace_id)
        .where(
            or_(
                col(Post.post_url).is_not(None),
                (col(Post.status) == PostStatus.PUBLISHED) & col(Post.published_at).is_not(None),
            )
        )
        .execution_options(yield_per=_STREAM_ROWS)
    )
    return session.execute(statement)
