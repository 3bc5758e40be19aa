"""Queries over workspaces and users for the plans and faces that need them, so SQL
stays out of those (tests/test_architecture_sql.py). Every function takes the
caller's session and never commits."""

from __future__ import annotations

from sqlmodel import Session, select

from socialgen.store.tables import User, WorkspaceUsage


def usage_by_workspace(session: Session) -> dict[str, WorkspaceUsage]:
    """Every workspace's quota row, by workspace id (a workspace may have none yet)."""
    return {usage.workspace_id: usage for usage in session.exec(select(WorkspaceUsage))}


def find_user(session: Session, user_id: str | None) -> User | None:
    return session.get(User, user_id) if user_id else None
