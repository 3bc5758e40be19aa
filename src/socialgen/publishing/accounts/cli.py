"""`socialgen accounts ...`: connect, list, check and remove social accounts, and
bring an account's past posts in (`history`).

Secrets come from a hidden prompt, stdin or an environment variable, never from an
option (options land in shell history and `ps`), and are never printed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from socialgen.cli.refs import open_ref, shortener
from socialgen.cli.support import (
    JsonOpt,
    WorkspaceOpt,
    command_group,
    confirm,
    current_runtime,
    emit,
    open_workspace,
    print_rows,
    styled,
)
from socialgen.publishing.accounts.add_discord_cli import add_discord
from socialgen.publishing.accounts.add_nostr_cli import add_nostr
from socialgen.publishing.accounts.add_pixelfed_cli import add_pixelfed
from socialgen.publishing.accounts.add_telegram_cli import add_telegram
from socialgen.publishing.accounts.add_threads_cli import add_threads
from socialgen.publishing.accounts.add_x_cli import add_x
from socialgen.publishing.accounts.connected_cli import announce, store_connected
from socialgen.publishing.accounts.secret_input_cli import prompt_secret, read_stdin
from socialgen.publishing.networks_cli import command_networks

if TYPE_CHECKING:
    from rich.console import Console

app = command_group()  # its help: the feature's Group (feature.py)
add_app = command_group("Connect an account (again, to renew its credentials).")
app.add_typer(add_app, name="add")

BLUESKY_PASSWORD_ENV = "SOCIALGEN_BLUESKY_APP_PASSWORD"
LINKEDIN_CLIENT_ID_ENV = "SOCIALGEN_LINKEDIN_CLIENT_ID"
LINKEDIN_CLIENT_SECRET_ENV = "SOCIALGEN_LINKEDIN_CLIENT_SECRET"
TOKEN_NAME = "The access token"  # how messages name it (the HTTP API's field: secret)

AccountArg = Annotated[
    str,
    typer.Argument(
        help="Account handle, network:handle, display name, or id (6+ characters of it).",
        show_default=False,
    ),
]
NoBrowserOpt = Annotated[
    bool, typer.Option("--no-browser", help="Print the sign-in link instead of opening it.")
]
TokenStdinOpt = Annotated[
    bool, typer.Option("--token-stdin", help="Read an access token from stdin instead.")
]


@add_app.command("bluesky")
def add_bluesky(
    handle: Annotated[str, typer.Argument(help="Your handle, e.g. you.bsky.social.")],
    service: Annotated[
        str | None,
        typer.Option("--service", help="Your PDS, if not bsky.social.", show_default=False),
    ] = None,
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the app password from stdin.")
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Connect a Bluesky account with an app password (Settings > App passwords);
    also read from SOCIALGEN_BLUESKY_APP_PASSWORD."""
    from socialgen.publishing.accounts.service import connect_account

    engine, workspace_id = open_workspace(workspace)
    if password_stdin:
        password = read_stdin("app password")
    else:
        password = current_runtime().settings.bluesky_app_password or prompt_secret("App password")
    connected = connect_account(
        command_networks(),
        "bluesky",
        service,
        handle,
        password,
        secret_name="The app password",
    )
    store_connected(engine, workspace_id, "bluesky", connected, json_output)


@add_app.command("mastodon")
def add_mastodon(
    instance: Annotated[
        str, typer.Option("--instance", help="Your server, e.g. https://mastodon.social.")
    ],
    token_stdin: TokenStdinOpt = False,
    no_browser: NoBrowserOpt = False,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Loopback port (0: any free one).")
    ] = 0,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Connect a Mastodon account: sign in in the browser, or give an access token."""
    from socialgen.publishing.accounts.service import authorize_account, connect_account

    engine, workspace_id = open_workspace(workspace)
    if token_stdin:
        token = read_stdin("access token")
        connected = connect_account(
            command_networks(), "mastodon", instance, "", token, secret_name=TOKEN_NAME
        )
    else:
        connected = authorize_account(
            command_networks(),
            "mastodon",
            instance,
            {"port": str(port)},
            open_browser=not no_browser,
            announce=announce,
        )
    store_connected(engine, workspace_id, "mastodon", connected, json_output)


@add_app.command("linkedin")
def add_linkedin(
    token_stdin: TokenStdinOpt = False,
    client_id: Annotated[
        str | None,
        typer.Option(
            "--client-id",
            envvar=LINKEDIN_CLIENT_ID_ENV,
            help="Your LinkedIn app's client id (for the browser sign-in).",
            show_default=False,
        ),
    ] = None,
    client_secret_stdin: Annotated[
        bool,
        typer.Option(
            "--client-secret-stdin",
            help=f"Read the app's client secret from stdin (else {LINKEDIN_CLIENT_SECRET_ENV} "
            "or a hidden prompt).",
        ),
    ] = False,
    port: Annotated[
        int,
        typer.Option(
            "--port", min=1, max=65535, help="Loopback port: the redirect URL your app allows."
        ),
    ] = 8765,
    no_browser: NoBrowserOpt = False,
    with_history: Annotated[
        bool,
        typer.Option(
            "--history",
            help="Also ask for r_member_social and r_member_postAnalytics, for "
            "`accounts history` (your app needs LinkedIn's Community Management API).",
        ),
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Connect a LinkedIn member: sign in through your own LinkedIn app (scopes
    openid profile w_member_social; redirect http://127.0.0.1:PORT/callback), or give
    an access token."""
    from socialgen.kit.errors import BadRequest
    from socialgen.publishing.accounts.service import authorize_account, connect_account

    if token_stdin and client_secret_stdin:
        raise BadRequest("Only one secret can come from stdin: --token-stdin or the client secret")
    if token_stdin and with_history:
        raise BadRequest(
            "--history asks LinkedIn for more scopes during the browser sign-in; a token "
            "given with --token-stdin holds the scopes it was made with"
        )
    engine, workspace_id = open_workspace(workspace)
    if token_stdin:
        token = read_stdin("access token")
        connected = connect_account(
            command_networks(), "linkedin", None, "", token, secret_name=TOKEN_NAME
        )
    else:
        if not client_id:  # not given, nor exported: the config file's, if any
            client_id = current_runtime().settings.linkedin_client_id
        if not client_id:
            raise BadRequest(
                "Give your LinkedIn app with --client-id ID (and its client secret), "
                "or an access token with --token-stdin"
            )
        if client_secret_stdin:
            client_secret = read_stdin("client secret")
        else:
            client_secret = current_runtime().settings.linkedin_client_secret or prompt_secret(
                "Client secret"
            )
        connected = authorize_account(
            command_networks(),
            "linkedin",
            None,
            {
                "client_id": client_id,
                "client_secret": client_secret,
                "port": str(port),
                "history": "1" if with_history else "",
            },
            open_browser=not no_browser,
            announce=announce,
        )
    store_connected(engine, workspace_id, "linkedin", connected, json_output)


add_app.command("x")(add_x)
add_app.command("threads")(add_threads)
add_app.command("telegram", context_settings={"ignore_unknown_options": True})(add_telegram)
add_app.command("discord")(add_discord)
add_app.command("nostr")(add_nostr)
add_app.command("pixelfed")(add_pixelfed)


@app.command("list")
def list_command(workspace: WorkspaceOpt = None, json_output: JsonOpt = False) -> None:
    """The workspace's social accounts."""
    from socialgen.publishing.accounts.refs import ACCOUNT_REF
    from socialgen.publishing.accounts.service import account_view, list_accounts
    from socialgen.store.engine import read_session

    engine, workspace_id = open_workspace(workspace)
    with read_session(engine) as session:
        views = [account_view(account) for account in list_accounts(session, workspace_id)]
    rows = [
        {
            "id": v.id,
            "network": v.network,
            "handle": v.handle,
            "name": v.displayName,
            "server": v.serviceUrl,
        }
        for v in views
    ]
    short_ids = {"id": shortener(engine, ACCOUNT_REF, workspace_id)}
    emit(
        json_output,
        [view.model_dump() for view in views],
        lambda out: print_rows(
            out,
            "Social accounts",
            rows,
            short_ids,
            empty="Connect one: socialgen accounts add bluesky HANDLE (or mastodon, linkedin)",
        ),
    )


@app.command()
def check(
    account: AccountArg, workspace: WorkspaceOpt = None, json_output: JsonOpt = False
) -> None:
    """Ask the network whether the stored credentials still work, and whose they are."""
    from socialgen.publishing.accounts.refs import ACCOUNT_REF
    from socialgen.publishing.accounts.service import check_account, check_view, get_account
    from socialgen.store.engine import read_session

    engine, workspace_id, account = open_ref(workspace, ACCOUNT_REF, account)
    with read_session(engine) as session:
        found = get_account(session, workspace_id, account)
    # outside any transaction: it calls the network
    identity = check_account(command_networks(), engine, found)
    data = check_view(found, identity).model_dump()
    emit(
        json_output,
        data,
        lambda out: out.print(
            styled(("OK", "green"), f" {found.network} says this is {identity.handle}"),
            f"({identity.display_name})" if identity.display_name else "",
        ),
    )


@app.command()
def history(
    account: AccountArg,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            help="Only posts published from this date or time on (ISO 8601, UTC by default).",
            show_default=False,
        ),
    ] = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Bring the account's own past posts in, with their likes, reposts and comments
    (Bluesky, Mastodon; LinkedIn when connected with --history by an approved app):
    they count in insights. Pulling again adds no duplicate."""
    from socialgen.publishing.accounts.history import parse_since, pull_history
    from socialgen.publishing.accounts.refs import ACCOUNT_REF
    from socialgen.publishing.accounts.service import get_account
    from socialgen.store.engine import read_session

    moment = parse_since(since)
    engine, workspace_id, account = open_ref(workspace, ACCOUNT_REF, account)
    with read_session(engine) as session:
        found = get_account(session, workspace_id, account)
    # outside any transaction: network calls
    summary = pull_history(command_networks(), engine, found, moment)

    def show(out: Console) -> None:
        out.print(
            styled(("Pulled", "green"), f" {summary.fetched} posts from {found.handle}:"),
            f"{summary.created} new, {summary.updated} with new counts, "
            f"{summary.skipped} unchanged or without text",
        )
        if summary.stopped is not None:
            out.print(
                styled(
                    ("Stopped early:", "yellow"), f" {summary.stopped}; what came before is kept"
                )
            )

    emit(json_output, summary.model_dump(), show)


@app.command()
def remove(
    account: AccountArg,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Remove an account; publications still queued for it are dropped with it."""
    from socialgen.publishing.accounts.refs import ACCOUNT_REF
    from socialgen.publishing.accounts.schemas import RemovedView
    from socialgen.publishing.accounts.service import (
        account_view,
        get_account,
        queued_publications,
        remove_account,
    )
    from socialgen.store.engine import read_session, transaction

    engine, workspace_id, account = open_ref(workspace, ACCOUNT_REF, account)
    if not yes:
        with read_session(engine) as session:
            found = get_account(session, workspace_id, account)
            waiting = queued_publications(session, found.id)
        confirm(
            f"Remove {found.network} account {found.handle}"
            f"{_queued_note(waiting, 'will be dropped')}?"
        )
    with transaction(engine) as session:
        found = get_account(session, workspace_id, account)
        queued = queued_publications(session, found.id)
        removed = remove_account(session, workspace_id, found.id)
        view = account_view(removed)
    data = RemovedView(account=view, queuedPublicationsRemoved=queued)
    emit(
        json_output,
        data.model_dump(),
        lambda out: out.print(
            styled(("Removed", "green"), f" {view.network} account {view.handle}"),
            _queued_note(queued, "dropped").lstrip(" ,") or "(no queued publications)",
        ),
    )


def _queued_note(count: int, verb: str) -> str:
    if not count:
        return ""
    plural = "publication" if count == 1 else "publications"
    return f", {count} queued {plural} {verb}"
