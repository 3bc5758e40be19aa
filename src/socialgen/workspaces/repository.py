"""Queries over workspaces, users and memberships, for workspaces.service and for the
plans and faces that need them, so SQL stays out of those (tests/test_architecture_sql.py,
tests/test_architecture_sql_repositories.py). Every function takes the caller's
session and never commits. The quota's ledger has its own: repository_quota.py."""

from __future__ import annotations

from sqlmodel import Session, col, func, select

from socialgen.store.tables import Membership, Role, User, Workspace, WorkspaceUsage


def usage_by_workspace(session: Session) -> dict[str, WorkspaceUsage]:
    """Every workspace's quota row, by workspace id (a workspace may have none yet)."""
    return {usage.workspace_id: usage for usage in session.exec(select(WorkspaceUsage))}


def find_user(session: Session, user_id: str | None) -> User | None:
    return session.get(User, user_id) if user_id else None


def workspace_id_named(session: Session, name: str) -> str | None:
    """The id of the workspace with exactly this name, or None."""
    return session.exec(select(Workspace.id).where(Workspace.name == name)).first()


def workspaces_by_creation(session: Session) -> list[Workspace]:
    """Every workspace, oldest first."""
    return list(session.exec(select(Workspace).order_by(col(Workspace.created_at))))


def flagged_default_workspace(session: Session) -> Workspace | None:
    """A workspace flagged as the default, or None before the first run's defaults."""
    return session.exec(select(Workspace).where(col(Workspace.is_default))).first()


def user_with_email(session: Session, email: str) -> User | None:
    """The user with exactly this (already normalised) email address, or None."""
    return session.exec(select(User).where(User.email == email)).first()


def users_by_creation(session: Session) -> list[User]:
    """Every user, oldest first."""
    return list(session.exec(select(User).order_by(col(User.created_at))))


def members_with_users(session: Session, workspace_id: str) -> list[tuple[Membership, User]]:
    """The workspace's memberships with their users, oldest membership first."""
    statement = (
        select(Membership, User)
        .join(User, col(User.id) == col(Membership.user_id))
        .where(Membership.workspace_id == workspace_id)
        .order_by(col(Membership.created_at))
    )
    return [(membership, user) for membership, user in session.exec(statement)]


def other_owner_count(session: Session, workspace_id: str, user_id: str) -> int:
    """How many owners the workspace has besides `user_id`."""
    return session.exec(
        select(func.count())
        .select_from(Membership)
        .where(
            Membership.workspace_id == workspace_id,
            Membership.role == Role.OWNER,
            Membership.user_id != user_id,
        )
    ).one()


def first_owner_id(session: Session, workspace_id: str) -> str | None:
    """The user id of the workspace's oldest owner membership, or None."""
    return session.exec(
        select(Membership.user_id)
        .where(col(Membership.workspace_id) == workspace_id, col(Membership.role) == Role.OWNER)
        .order_by(col(Membership.created_at))
    ).first()
