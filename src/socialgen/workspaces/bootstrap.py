"""First run: a default workspace and a local owner, so a creator never has to care."""

from __future__ import annotations

import getpass

from sqlmodel import Session

from socialgen.store.tables import Membership, Role
from socialgen.workspaces.service import create_user, create_workspace, default_workspace

DEFAULT_WORKSPACE_NAME = "Personal"
LOCAL_OWNER_EMAIL = "owner@localhost"


def ensure_defaults(session: Session) -> bool:
    """Create the default workspace and local owner when missing; True when created."""
    if default_workspace(session) is not None:
        return False
    workspace = create_workspace(session, DEFAULT_WORKSPACE_NAME, is_default=True)
    owner = create_user(session, LOCAL_OWNER_EMAIL, _local_user_name())
    session.add(Membership(workspace_id=workspace.id, user_id=owner.id, role=Role.OWNER))
    session.flush()
    return True


def _local_user_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "owner"
