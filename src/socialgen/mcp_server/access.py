"""Who a tool runs for, and with what: the face the server was built for.

Over stdio the person at the terminal runs socialgen: tools act in the default
workspace (or --workspace, or the workspaceId argument, an id or a name), as the
CLI does. Over HTTP every call is checked as its HTTP endpoint is: the request's
API key and bearer token, the workspace they may act on, the role (`Need`, the
endpoint's `WorkspaceGuard`); without workspaceId a tool acts in the key's
workspace. Either way the Runtime (settings, models) is the one the server was
built with: the CLI's for stdio, `app.state.runtime` for HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from socialgen.app.caller import Caller
from socialgen.files.backends import files_of
from socialgen.store.tables import Role

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from socialgen.app.runtime import Runtime

EVERY_ROLE = frozenset(Role)
WRITERS = frozenset({Role.OWNER, Role.ADMIN, Role.MEMBER})


@dataclass(frozen=True)
class Need:
    """What a tool asks of an HTTP caller: its endpoint's guard, in the same words."""

    bearer_required: bool = False
    roles: frozenset[Role] = EVERY_ROLE
    forbidden_message: str | None = None  # None: the guard's own


KEY = Need()  # a workspace's key is enough (timeline, generation, styles ...)
MEMBER_WITH_BEARER = Need(bearer_required=True)  # PUT and DELETE post
RECENT = Need(bearer_required=True, forbidden_message="Access denied")  # recent-posts
WRITER = Need(roles=WRITERS)  # publish, schedule


class Face(Protocol):
    """How the tools reach their Runtime and their caller. `context` is the SDK's
    request context (its HTTP request, for the HTTP face)."""

    # Whether a tool may read or write a file path its caller names (import_posts'
    # path, export_posts' output): over stdio the caller is the person whose machine
    # the server runs on, as with the CLI; over HTTP a path would name a file of the
    # server, which no API key may reach.
    local_files: bool

    def runtime(self, context: Any) -> Runtime: ...

    def caller(self, context: Any, workspace_ref: str | None, need: Need) -> Caller:
        """Blocking (a key lookup, a workspace's id): called in a worker thread."""
        ...


class LocalFace:
    """stdio: the local user, as the CLI runs, in `default_workspace_id` unless a tool
    names another workspace (by id or by name)."""

    local_files = True

    def __init__(self, runtime: Runtime, engine: Engine, default_workspace_id: str) -> None:
        self._runtime = runtime
        self.engine = engine
        self.default_workspace_id = default_workspace_id

    def runtime(self, context: Any) -> Runtime:
        return self._runtime

    def caller(self, context: Any, workspace_ref: str | None, need: Need) -> Caller:
        workspace_id = self.default_workspace_id
        if workspace_ref is not None and workspace_ref.strip():
            from socialgen.store.engine import read_session
            from socialgen.workspaces.service import resolve_workspace

            with read_session(self.engine) as session:
                workspace_id = resolve_workspace(session, workspace_ref).id
        return Caller(
            engine=self.engine,
            workspace_id=workspace_id,
            user_id=None,
            settings=self._runtime.settings,
            files=files_of(self._runtime),
            rankers=self._runtime.held.rankers,
        )
