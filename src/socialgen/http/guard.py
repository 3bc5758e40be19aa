"""Who is calling, and may they act on this workspace? FastAPI dependencies.

Every endpoint takes an `x-api-key`. A key bound to a workspace only ever acts
on that workspace; with no bearer token it acts as that workspace where SPEC.md
does not require one. A bearer token identifies a user, who must be a member.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Path

from socialgen.auth.service import (
    NOT_AUTHORIZED,
    TokenRejected,
    authenticate_api_key,
    authenticate_token,
)
from socialgen.http.support import EngineDep
from socialgen.kit.errors import Forbidden, NotAuthenticated
from socialgen.store.engine import read_session
from socialgen.store.tables import Role
from socialgen.workspaces.service import role_in

ACCESS_DENIED = "Access denied"
NOT_AUTHORIZED_FOR_WORKSPACE = "Not authorized to access this workspace"
ANY_ROLE = frozenset(Role)


@dataclass(frozen=True)
class WorkspaceAccess:
    workspace_id: str
    user_id: str | None  # None when a workspace-bound key acts without a user
    role: Role | None


class WorkspaceGuard:
    """A dependency: resolve the caller of a `/{workspaceId}` endpoint or refuse."""

    def __init__(
        self,
        *,
        bearer_required: bool,
        forbidden_message: str = NOT_AUTHORIZED_FOR_WORKSPACE,
        roles: frozenset[Role] = ANY_ROLE,
        key_error_status: int = 401,
    ) -> None:
        self.key_error_status = key_error_status
        self.bearer_required = bearer_required
        self.forbidden_message = forbidden_message
        self.roles = roles

    def __call__(
        self,
        engine: EngineDep,
        workspace_id: Annotated[str, Path(alias="workspaceId")],
        x_api_key: Annotated[str | None, Header(description="Service API key.")] = None,
        authorization: Annotated[
            str | None, Header(description="Bearer <ACCESS_TOKEN> identifying a user.")
        ] = None,
    ) -> WorkspaceAccess:
        with read_session(engine) as session:
            try:
                key = authenticate_api_key(session, x_api_key)
            except NotAuthenticated as error:
                error.status_code = self.key_error_status
                raise
            if key.workspace_id is not None and key.workspace_id != workspace_id:
                raise Forbidden(self.forbidden_message)
            bearer = _bearer(authorization)
            if bearer is None:
                if self.bearer_required or key.workspace_id is None:
                    raise NotAuthenticated(NOT_AUTHORIZED)
                return WorkspaceAccess(workspace_id=workspace_id, user_id=None, role=None)
            user = authenticate_token(session, bearer)
            role = role_in(session, workspace_id, user.id)
        if role is None or role not in self.roles:
            raise Forbidden(self.forbidden_message)
        return WorkspaceAccess(workspace_id=workspace_id, user_id=user.id, role=role)


def _bearer(authorization: str | None) -> str | None:
    if authorization is None or not authorization.strip():
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise TokenRejected("malformed Authorization header: expected 'Bearer <token>'")
    return token.strip()


@dataclass(frozen=True)
class UserAccess:
    user_id: str | None  # None when a workspace-bound key acts without a user
    workspace_id: str | None  # the key's workspace, when it is bound to one


def authenticated_user(
    engine: EngineDep,
    x_api_key: Annotated[str | None, Header(description="Service API key.")] = None,
    authorization: Annotated[
        str | None, Header(description="Bearer <ACCESS_TOKEN> identifying a user.")
    ] = None,
) -> UserAccess:
    """For endpoints outside any workspace that need "an authenticated user": a valid
    key plus a bearer token, or a workspace-bound key (it stands for that workspace)."""
    with read_session(engine) as session:
        key = authenticate_api_key(session, x_api_key)
        bearer = _bearer(authorization)
        if bearer is None:
            if key.workspace_id is None:
                raise NotAuthenticated(NOT_AUTHORIZED)
            return UserAccess(user_id=None, workspace_id=key.workspace_id)
        user = authenticate_token(session, bearer)
    return UserAccess(user_id=user.id, workspace_id=key.workspace_id)


AuthenticatedUser = Annotated[UserAccess, Depends(authenticated_user)]
