"""Workspaces, users and memberships, over workspaces.repository's queries. Services
never commit: callers do."""

from __future__ import annotations

import re

from sqlmodel import Session

from socialgen.kit.errors import BadRequest, NotFound
from socialgen.store.refs import RefKind, find_id
from socialgen.store.tables import Membership, Role, User, Workspace, WorkspaceUsage
from socialgen.workspaces.repository import (
    first_owner_id,
    flagged_default_workspace,
    members_with_users,
    other_owner_count,
    user_with_email,
    users_by_creation,
    workspace_id_named,
    workspaces_by_creation,
)

MAX_NAME_CHARS = 200
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")
WORKSPACE_REF = RefKind(
    "workspace", "workspaces", Workspace, lambda w: w.name, scope=None, names=("name",)
)


def create_workspace(session: Session, name: str, *, is_default: bool = False) -> Workspace:
    name = _clean_name(name, "Workspace name")
    if workspace_id_named(session, name) is not None:
        raise BadRequest(f"A workspace named {name!r} already exists")
    workspace = Workspace(name=name, is_default=is_default)
    session.add(workspace)
    session.add(WorkspaceUsage(workspace_id=workspace.id))
    session.flush()
    return workspace


def list_workspaces(session: Session) -> list[Workspace]:
    return workspaces_by_creation(session)


def default_workspace(session: Session) -> Workspace | None:
    return flagged_default_workspace(session)


def resolve_workspace(session: Session, ref: str | None) -> Workspace:
    """The workspace named by id, name or id prefix; the default workspace when `ref`
    is None. The CLI's (--workspace): the HTTP API names workspaces by whole id."""
    if ref is None or not ref.strip():
        workspace = default_workspace(session)
        if workspace is None:
            raise NotFound("No default workspace: name one with --workspace")
        return workspace
    # By id, exact name, name in any case or unique id prefix (store/refs.py).
    workspace = session.get(Workspace, find_id(session, WORKSPACE_REF, None, ref))
    if workspace is None:  # deleted between the two reads
        raise NotFound(f"Workspace not found: {ref.strip()}")
    return workspace


def set_post_quota(session: Session, workspace_id: str, quota: int | None) -> WorkspaceUsage:
    """Set the post quota; None means unlimited."""
    if quota is not None and quota < 0:
        raise BadRequest("The post quota must be a whole number of 0 or more, or unlimited")
    usage = get_usage(session, workspace_id)
    usage.post_quota = quota
    session.add(usage)
    session.flush()
    return usage


def get_usage(session: Session, workspace_id: str) -> WorkspaceUsage:
    usage = session.get(WorkspaceUsage, workspace_id)
    if usage is None:
        raise NotFound(f"Workspace not found: {workspace_id}")
    return usage


def create_user(session: Session, email: str, name: str | None = None) -> User:
    email = normalise_email(email)
    if user_with_email(session, email) is not None:
        raise BadRequest(f"A user with email {email} already exists")
    user = User(email=email, name=_clean_name(name, "User name") if name is not None else None)
    session.add(user)
    session.flush()
    return user


def list_users(session: Session) -> list[User]:
    return users_by_creation(session)


def get_user_by_email(session: Session, email: str) -> User:
    user = user_with_email(session, normalise_email(email))
    if user is None:
        raise NotFound(f"User not found: {email.strip()}")
    return user


def add_member(session: Session, workspace_id: str, email: str, role: str) -> Membership:
    """Add a user to a workspace, or change the role of an existing member."""
    parsed_role = parse_role(role)
    user = get_user_by_email(session, email)
    membership = session.get(Membership, (workspace_id, user.id))
    if membership is None:
        membership = Membership(workspace_id=workspace_id, user_id=user.id, role=parsed_role)
    else:
        if membership.role == Role.OWNER and parsed_role != Role.OWNER:
            _ensure_another_owner(session, workspace_id, user.id)
        membership.role = parsed_role
    session.add(membership)
    session.flush()
    return membership


def remove_member(session: Session, workspace_id: str, email: str) -> Membership:
    user = get_user_by_email(session, email)
    membership = session.get(Membership, (workspace_id, user.id))
    if membership is None:
        raise NotFound(f"{user.email} is not a member of workspace {workspace_id}")
    if membership.role == Role.OWNER:
        _ensure_another_owner(session, workspace_id, user.id)
    session.delete(membership)
    session.flush()
    return membership


def list_members(session: Session, workspace_id: str) -> list[tuple[Membership, User]]:
    return members_with_users(session, workspace_id)


def role_in(session: Session, workspace_id: str, user_id: str) -> Role | None:
    membership = session.get(Membership, (workspace_id, user_id))
    return Role(membership.role) if membership is not None else None


def parse_role(role: str) -> Role:
    try:
        return Role(role.strip().lower())
    except ValueError:
        allowed = ", ".join(r.value for r in Role)
        raise BadRequest(f"Unknown role {role!r}: use one of {allowed}") from None


def normalise_email(email: str) -> str:
    email = email.strip().lower()
    if not _EMAIL.match(email) or len(email) > 320:
        raise BadRequest(f"Not a valid email address: {email!r}")
    return email


def _ensure_another_owner(session: Session, workspace_id: str, user_id: str) -> None:
    if other_owner_count(session, workspace_id, user_id) == 0:
        raise BadRequest("A workspace keeps at least one owner: add another owner first")


def _clean_name(name: str | None, what: str) -> str:
    cleaned = (name or "").strip()
    if not cleaned:
        raise BadRequest(f"{what} is required")
    if len(cleaned) > MAX_NAME_CHARS:
        raise BadRequest(f"{what} is longer than {MAX_NAME_CHARS} characters")
    return cleaned


def workspace_owner(session: Session, workspace_id: str) -> str | None:
    """Who a workspace-bound key acts for when no user is named: its first owner."""
    return first_owner_id(session, workspace_id)
