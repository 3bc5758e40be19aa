"""`socialgen key ...` and `socialgen token ...`: secrets for the HTTP API."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from socialgen.cli.support import JsonOpt, WorkspaceOpt, command_group, emit, print_rows
from socialgen.kit.limits import DEFAULT_TOKEN_DAYS, TOKEN_DAYS

if TYPE_CHECKING:
    from rich.console import Console

key_app = command_group()  # its help: the feature's Group (feature.py)
token_app = command_group()  # its help: the feature's Group (feature.py)


@key_app.command("create")
def key_create(
    name: Annotated[str | None, typer.Option("--name", help="A label for the key.")] = None,
    any_workspace: Annotated[
        bool,
        typer.Option(
            "--any-workspace",
            help="Not bound to a workspace: every request must then carry a user's bearer token.",
        ),
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Create an API key, bound to a workspace by default. The key is printed once."""
    from socialgen.auth.service import create_api_key
    from socialgen.cli.support import open_workspace
    from socialgen.store.engine import transaction

    if any_workspace:
        from socialgen.cli.support import open_store

        engine, workspace_id = open_store(), None
    else:
        engine, workspace_id = open_workspace(workspace)
    with transaction(engine) as session:
        key, secret = create_api_key(session, name=name, workspace_id=workspace_id)
        data = {
            "keyId": key.id,
            "apiKey": secret,
            "name": key.name,
            "workspaceId": key.workspace_id,
        }

    def show(out: Console) -> None:
        bound = f"bound to workspace {data['workspaceId']}" if data["workspaceId"] else "unbound"
        out.print(f"API key {data['keyId']} ({bound}). Store it now, it is not shown again:")
        out.print(secret, markup=False)

    emit(json_output, data, show)


@key_app.command("list")
def key_list(json_output: JsonOpt = False) -> None:
    """API keys (never their secrets)."""
    from socialgen.auth.service import list_api_keys
    from socialgen.cli.refs import shortener
    from socialgen.cli.support import open_store
    from socialgen.kit.clock import iso
    from socialgen.store.engine import read_session

    engine = open_store()
    with read_session(engine) as session:
        rows = [
            {
                "keyId": k.id,
                "name": k.name,
                "prefix": k.prefix,
                "workspaceId": k.workspace_id,
                "createdAt": iso(k.created_at),
                "revokedAt": iso(k.revoked_at),
            }
            for k in list_api_keys(session)
        ]
    short_ids = {
        "keyId": shortener(engine, "key", None),
        "workspaceId": shortener(engine, "workspace", None),
    }
    emit(json_output, rows, lambda out: print_rows(out, "API keys", rows, short_ids))


@key_app.command("revoke")
def key_revoke(
    key_id: Annotated[
        str, typer.Argument(help="Key name or id (from `key list`; 6+ characters of it).")
    ],
    json_output: JsonOpt = False,
) -> None:
    """Revoke an API key: requests with it are refused from now on."""
    from socialgen.auth.service import revoke_api_key
    from socialgen.cli.refs import resolve
    from socialgen.cli.support import open_store
    from socialgen.kit.clock import iso
    from socialgen.store.engine import transaction

    with transaction(open_store()) as session:
        key_id = resolve(session, "key", None, key_id)
        key = revoke_api_key(session, key_id)
        data = {"keyId": key.id, "revokedAt": iso(key.revoked_at)}
    emit(json_output, data, lambda out: out.print(f"Revoked API key {key_id}"))


@token_app.command("create")
def token_create(
    email: Annotated[str, typer.Argument(help="The user the token identifies.")],
    days: Annotated[
        int, typer.Option("--days", help=f"Days until it expires, {TOKEN_DAYS.describe()}.")
    ] = DEFAULT_TOKEN_DAYS,
    json_output: JsonOpt = False,
) -> None:
    """Create a bearer token for a user. The token is printed once."""
    from socialgen.auth.service import create_token
    from socialgen.cli.support import open_store
    from socialgen.kit.clock import iso
    from socialgen.store.engine import transaction

    with transaction(open_store()) as session:
        token, secret, user = create_token(session, email, days=days)
        data = {
            "tokenId": token.id,
            "token": secret,
            "userId": user.id,
            "email": user.email,
            "expiresAt": iso(token.expires_at),
        }

    def show(out: Console) -> None:
        from socialgen.cli.support import creator_zone
        from socialgen.kit.local_time import local_moment

        expires = local_moment(str(data["expiresAt"]), creator_zone())
        out.print(
            f"Token {data['tokenId']} for {data['email']}, expires {expires}. "
            "Store it now, it is not shown again:"
        )
        out.print(secret, markup=False)

    emit(json_output, data, show)


@token_app.command("list")
def token_list(json_output: JsonOpt = False) -> None:
    """Bearer tokens (never their secrets)."""
    from socialgen.auth.service import list_tokens
    from socialgen.cli.refs import shortener
    from socialgen.cli.support import open_store
    from socialgen.kit.clock import iso
    from socialgen.store.engine import read_session

    engine = open_store()
    with read_session(engine) as session:
        rows = [
            {
                "tokenId": t.id,
                "email": u.email,
                "prefix": t.prefix,
                "expiresAt": iso(t.expires_at),
                "revokedAt": iso(t.revoked_at),
            }
            for t, u in list_tokens(session)
        ]
    short_ids = {"tokenId": shortener(engine, "token", None)}
    emit(json_output, rows, lambda out: print_rows(out, "Tokens", rows, short_ids))


@token_app.command("revoke")
def token_revoke(
    token_id: Annotated[
        str, typer.Argument(help="Token id (from `token list`; 6+ characters of it).")
    ],
    json_output: JsonOpt = False,
) -> None:
    """Revoke a bearer token."""
    from socialgen.auth.service import revoke_token
    from socialgen.cli.refs import resolve
    from socialgen.cli.support import open_store
    from socialgen.kit.clock import iso
    from socialgen.store.engine import transaction

    with transaction(open_store()) as session:
        token_id = resolve(session, "token", None, token_id)
        token = revoke_token(session, token_id)
        data = {"tokenId": token.id, "revokedAt": iso(token.revoked_at)}
    emit(json_output, data, lambda out: out.print(f"Revoked token {token_id}"))
