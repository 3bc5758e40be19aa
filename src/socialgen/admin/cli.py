"""`socialgen workspace|user|member ...`: administer a shared deployment."""

from __future__ import annotations

from typing import Annotated

import typer

from socialgen.cli.support import JsonOpt, command_group, emit, print_rows
from socialgen.kit.limits import POST_QUOTA

workspace_app = command_group()  # its help: the feature's Group (feature.py)
user_app = command_group()  # its help: the feature's Group (feature.py)
member_app = command_group()  # its help: the feature's Group (feature.py)

WorkspaceArg = Annotated[
    str, typer.Argument(help="Workspace name or id (6+ characters of it).", show_default=False)
]
EmailArg = Annotated[str, typer.Argument(help="The user's email.", show_default=False)]


@workspace_app.command("create")
def workspace_create(
    name: Annotated[str, typer.Argument(help="Workspace name.")], json_output: JsonOpt = False
) -> None:
    """Create a workspace."""
    from socialgen.cli.support import open_store
    from socialgen.store.engine import transaction
    from socialgen.workspaces.service import create_workspace

    with transaction(open_store()) as session:
        workspace = create_workspace(session, name)
        data = {"workspaceId": workspace.id, "name": workspace.name}
    emit(
        json_output,
        data,
        lambda out: out.print(f"Created workspace {name!r}: {data['workspaceId']}"),
    )


@workspace_app.command("list")
def workspace_list(json_output: JsonOpt = False) -> None:
    """All workspaces with their post quota."""
    from socialgen.cli.refs import shortener
    from socialgen.cli.support import open_store
    from socialgen.kit.clock import iso
    from socialgen.store.engine import read_session
    from socialgen.workspaces.repository import usage_by_workspace
    from socialgen.workspaces.service import list_workspaces

    engine = open_store()
    with read_session(engine) as session:
        usage = usage_by_workspace(session)
        rows = [
            {
                "workspaceId": w.id,
                "name": w.name,
                "default": w.is_default,
                "createdAt": iso(w.created_at),
                "postQuota": usage[w.id].post_quota if w.id in usage else None,
                "postsUsed": usage[w.id].posts_used if w.id in usage else 0,
            }
            for w in list_workspaces(session)
        ]
    shown = [
        {**row, "postQuota": row["postQuota"] if row["postQuota"] is not None else "unlimited"}
        for row in rows
    ]
    short_ids = {"workspaceId": shortener(engine, "workspace", None)}
    emit(json_output, rows, lambda out: print_rows(out, "Workspaces", shown, short_ids))


@workspace_app.command("quota")
def workspace_quota(
    workspace: WorkspaceArg,
    quota: Annotated[
        str, typer.Argument(help=f"Posts allowed ({POST_QUOTA.describe()}), or 'unlimited'.")
    ],
    json_output: JsonOpt = False,
) -> None:
    """Set how many posts a workspace may generate."""
    from socialgen.cli.support import open_store
    from socialgen.kit.errors import BadRequest
    from socialgen.store.engine import transaction
    from socialgen.workspaces.service import resolve_workspace, set_post_quota

    value: int | None
    if quota.strip().lower() == "unlimited":
        value = None
    else:
        try:
            value = int(quota)
        except ValueError:
            raise BadRequest(
                f"Quota must be a whole number or 'unlimited', not {quota!r}"
            ) from None
        POST_QUOTA.check(value)  # before the store: a 64-bit number overflows its column
    with transaction(open_store()) as session:
        workspace_id = resolve_workspace(session, workspace).id
        usage = set_post_quota(session, workspace_id, value)
        data = {
            "workspaceId": workspace_id,
            "postQuota": usage.post_quota,
            "postsUsed": usage.posts_used,
        }
    shown = "unlimited" if value is None else str(value)
    emit(json_output, data, lambda out: out.print(f"Post quota of {workspace_id}: {shown}"))


@user_app.command("create")
def user_create(
    email: EmailArg,
    name: Annotated[str | None, typer.Option("--name", help="Display name.")] = None,
    json_output: JsonOpt = False,
) -> None:
    """Create a user (give them access with `member add`, a token with `token create`)."""
    from socialgen.cli.support import open_store
    from socialgen.store.engine import transaction
    from socialgen.workspaces.service import create_user

    with transaction(open_store()) as session:
        user = create_user(session, email, name)
        data = {"userId": user.id, "email": user.email, "name": user.name}
    emit(
        json_output, data, lambda out: out.print(f"Created user {data['email']}: {data['userId']}")
    )


@user_app.command("list")
def user_list(json_output: JsonOpt = False) -> None:
    """All users."""
    from socialgen.cli.refs import shortener
    from socialgen.cli.support import open_store
    from socialgen.kit.clock import iso
    from socialgen.store.engine import read_session
    from socialgen.workspaces.service import list_users

    engine = open_store()
    with read_session(engine) as session:
        rows = [
            {"userId": u.id, "email": u.email, "name": u.name, "createdAt": iso(u.created_at)}
            for u in list_users(session)
        ]
    short_ids = {"userId": shortener(engine, "user", None)}
    emit(json_output, rows, lambda out: print_rows(out, "Users", rows, short_ids))


@member_app.command("add")
def member_add(
    workspace: WorkspaceArg,
    email: EmailArg,
    role: Annotated[str, typer.Option("--role", help="owner, admin or member.")] = "member",
    json_output: JsonOpt = False,
) -> None:
    """Add a user to a workspace (or change their role)."""
    from socialgen.cli.support import open_store
    from socialgen.store.engine import transaction
    from socialgen.workspaces.service import add_member, parse_role, resolve_workspace

    parse_role(role)  # refuse a bad role before touching the store
    with transaction(open_store()) as session:
        workspace_id = resolve_workspace(session, workspace).id
        membership = add_member(session, workspace_id, email, role)
        data = {"workspaceId": workspace_id, "userId": membership.user_id, "role": membership.role}
    emit(json_output, data, lambda out: out.print(f"{email} is {data['role']} of {workspace_id}"))


@member_app.command("remove")
def member_remove(workspace: WorkspaceArg, email: EmailArg, json_output: JsonOpt = False) -> None:
    """Take a user out of a workspace."""
    from socialgen.cli.support import open_store
    from socialgen.store.engine import transaction
    from socialgen.workspaces.service import remove_member, resolve_workspace

    with transaction(open_store()) as session:
        workspace_id = resolve_workspace(session, workspace).id
        membership = remove_member(session, workspace_id, email)
        data = {"workspaceId": workspace_id, "userId": membership.user_id, "removed": True}
    emit(json_output, data, lambda out: out.print(f"Removed {email} from {workspace_id}"))


@member_app.command("list")
def member_list(workspace: WorkspaceArg, json_output: JsonOpt = False) -> None:
    """Members of a workspace and their roles."""
    from socialgen.cli.refs import shortener
    from socialgen.cli.support import open_store
    from socialgen.store.engine import read_session
    from socialgen.workspaces.service import list_members, resolve_workspace

    engine = open_store()
    with read_session(engine) as session:
        workspace_id = resolve_workspace(session, workspace).id
        rows = [
            {"userId": user.id, "email": user.email, "name": user.name, "role": membership.role}
            for membership, user in list_members(session, workspace_id)
        ]
    short_ids = {"userId": shortener(engine, "user", None)}
    emit(
        json_output,
        rows,
        lambda out: print_rows(out, f"Members of {workspace_id}", rows, short_ids),
    )
