"""The post quota: reserve before generating, give back what failed."""

from __future__ import annotations

from sqlalchemy import update
from sqlmodel import Session, col

from socialgen.errors import QuotaExceeded
from socialgen.store.tables import WorkspaceUsage
from socialgen.workspaces.service import get_usage


def reserve_posts(session: Session, workspace_id: str, count: int) -> None:
    """Take `count` posts from the quota in one atomic UPDATE, or refuse with 403."""
    statement = (
        update(WorkspaceUsage)
        .where(col(WorkspaceUsage.workspace_id) == workspace_id)
        .where(
            col(WorkspaceUsage.post_quota).is_(None)
            | (col(WorkspaceUsage.posts_used) + count <= col(WorkspaceUsage.post_quota))
        )
        .values(posts_used=col(WorkspaceUsage.posts_used) + count)
    )
    if session.connection().execute(statement).rowcount == 1:
        return
    usage = get_usage(session, workspace_id)
    left = max(0, (usage.post_quota or 0) - usage.posts_used)
    raise QuotaExceeded(
        f"Post quota exceeded: {count} requested, {left} left of {usage.post_quota}"
    )


def release_posts(session: Session, workspace_id: str, count: int) -> None:
    """Give back posts that were reserved but not produced."""
    statement = (
        update(WorkspaceUsage)
        .where(col(WorkspaceUsage.workspace_id) == workspace_id)
        .values(posts_used=col(WorkspaceUsage.posts_used) - count)
    )
    session.connection().execute(statement)
