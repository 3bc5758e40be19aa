"""HTTP endpoints for social accounts (/api/v1/social-accounts/{workspaceId}).

Any member may list, read and check accounts and pull an account's past posts in
(members publish through them); only owners and admins add or remove them. Adding is
the non-interactive way in: an app password or an access token in the body (the
browser sign-in is the CLI's). No answer ever carries a secret.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, cast

from fastapi import APIRouter, Body, Depends, Path, Request
from pydantic import ConfigDict, Field, StrictStr, StringConstraints
from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool

from socialgen.http.guard import WorkspaceAccess, WorkspaceGuard
from socialgen.http.request_body import body_cap
from socialgen.http.support import EngineDep, RuntimeDep, error_responses
from socialgen.kit.body_fields import CheckedBody, ShownAs
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import NO_CONTROL_PATTERN, NOT_BLANK_PATTERN
from socialgen.publishing.accounts import service as accounts
from socialgen.publishing.accounts.history import parse_since, pull_history
from socialgen.publishing.accounts.pull_watch import PullsRunning, until_client_leaves
from socialgen.publishing.accounts.schemas import (
    AccountListResponse,
    AccountResponse,
    CheckResponse,
    HistoryResponse,
    RemovedResponse,
    RemovedView,
)
from socialgen.publishing.accounts.service import (
    MAX_HANDLE,
    MAX_SECRET_CHARS,
    MAX_SERVICE_URL,
)
from socialgen.publishing.networks.pull import Pull, PullLimits
from socialgen.publishing.registry import BUILT_IN, Networks
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Role, SocialAccount

router = APIRouter(prefix="/api/v1/social-accounts", tags=["social accounts"])

Member = Annotated[WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=False))]
Manager = Annotated[
    WorkspaceAccess,
    Depends(WorkspaceGuard(bearer_required=False, roles=frozenset({Role.OWNER, Role.ADMIN}))),
]
AccountId = Annotated[str, Path(alias="accountId", pattern=NO_CONTROL_PATTERN)]
# What `connect_account` accepts, documented (the body takes any string or null).
Network = cast(Any, Literal)[tuple(BUILT_IN)]
Secret = Annotated[str, Field(min_length=1, max_length=MAX_SECRET_CHARS, pattern=NOT_BLANK_PATTERN)]


class AddAccountBody(CheckedBody):
    """An account and its secret. The endpoint names a missing or blank field itself;
    the model refuses wrong types and overlong fields, with the limits its schema
    shows (StringConstraints: the document and the check are one declaration).
    What the fields hold (control characters, a LinkedIn serviceUrl) is
    `accounts.connect_account`'s to check, for every way in."""

    model_config = ConfigDict(strict=True)

    network: Annotated[StrictStr | None, ShownAs(Network, required=True)] = Field(
        default=None, description="One of: " + ", ".join(BUILT_IN) + "."
    )
    handle: Annotated[StrictStr, StringConstraints(max_length=MAX_HANDLE)] | None = Field(
        default=None,
        description="Bluesky: the handle the app password belongs to. Telegram: the channel "
        "(@name or its numeric id). Others: leave out (the secret says whose it is).",
    )
    service_url: Annotated[StrictStr, StringConstraints(max_length=MAX_SERVICE_URL)] | None = Field(
        default=None,
        alias="serviceUrl",
        description="Where the account's API lives: a Bluesky PDS, a Mastodon or Pixelfed "
        "instance (required for those two), a Nostr account's relays (comma-separated "
        "wss:// URLs), another network's API base (a proxy); the network's own when left "
        "out. Not for LinkedIn (refused: its token goes to LinkedIn's API only).",
    )
    secret: Annotated[
        Annotated[StrictStr, StringConstraints(max_length=MAX_SECRET_CHARS)] | None,
        ShownAs(Secret, required=True),
    ] = Field(
        default=None,
        description="A Bluesky app password; a Mastodon, Pixelfed, LinkedIn, X or Threads "
        "access token; a Telegram bot token; a Discord webhook URL; a Nostr key (nsec1...). "
        "On one line (no control characters; printable ASCII but for Bluesky). "
        "Stored encrypted; never returned.",
    )
    missing_body: ClassVar[str] = "network and secret are required"


class HistoryBody(CheckedBody):
    """Which posts to pull; the body may be left out (every post)."""

    model_config = ConfigDict(strict=True)

    since: Annotated[StrictStr | None, ShownAs(Annotated[str, Field(max_length=64)] | None)] = (
        Field(
            default=None,
            description="Only posts published from this ISO 8601 date or time on (UTC when it "
            "names no offset); null for every post.",
        )
    )


@router.get(
    "/{workspaceId}", response_model=AccountListResponse, responses=error_responses(401, 403)
)
def list_social_accounts(caller: Member, engine: EngineDep) -> AccountListResponse:
    """The workspace's social accounts (never their secrets)."""
    with read_session(engine) as session:
        found = accounts.list_accounts(session, caller.workspace_id)
        return AccountListResponse(success=True, data=[accounts.account_view(a) for a in found])


@router.post(
    "/{workspaceId}",
    status_code=201,
    response_model=AccountResponse,
    responses=error_responses(400, 401, 403, 502),
    dependencies=[body_cap()],
)
def add_social_account(
    caller: Manager,
    engine: EngineDep,
    runtime: RuntimeDep,
    body: Annotated[AddAccountBody, Body()],
) -> AccountResponse:
    """Connect an account with an app password (Bluesky) or an access token (Mastodon,
    LinkedIn), verified with the network first. The same account again (network and
    handle) is reconnected: its secret is replaced, its id kept."""
    if body.network is None or not body.network.strip():
        raise BadRequest(f"network is required: {', '.join(BUILT_IN)}")
    if body.secret is None or not body.secret.strip():
        raise BadRequest("secret is required: an app password or access token")
    networks = Networks.of(runtime)
    connected = accounts.connect_account(
        networks, body.network, body.service_url, body.handle or "", body.secret
    )
    with transaction(engine) as session:
        account = accounts.add_account(
            session, caller.workspace_id, body.network, connected, networks=networks
        )
        return AccountResponse(success=True, data=accounts.account_view(account))


@router.get(
    "/{workspaceId}/{accountId}",
    response_model=AccountResponse,
    responses=error_responses(400, 401, 403, 404),
)
def get_social_account(caller: Member, engine: EngineDep, account_id: AccountId) -> AccountResponse:
    """One account, by id (or handle, or network:handle)."""
    with read_session(engine) as session:
        account = accounts.get_account(session, caller.workspace_id, account_id)
        return AccountResponse(success=True, data=accounts.account_view(account))


@router.post(
    "/{workspaceId}/{accountId}/check",
    response_model=CheckResponse,
    responses=error_responses(400, 401, 403, 404, 409, 502),
)
def check_social_account(
    caller: Member, engine: EngineDep, runtime: RuntimeDep, account_id: AccountId
) -> CheckResponse:
    """Ask the network whether the stored credentials still work, and whose they are.
    A refusal is a 400 in the network's words; an unreachable network a 502."""
    with read_session(engine) as session:
        account = accounts.get_account(session, caller.workspace_id, account_id)
    # no transaction held meanwhile
    identity = accounts.check_account(Networks.of(runtime), engine, account)
    return CheckResponse(success=True, data=accounts.check_view(account, identity))


@router.post(
    "/{workspaceId}/{accountId}/history",
    response_model=HistoryResponse,
    responses=error_responses(400, 401, 403, 404, 409, 502),
    dependencies=[body_cap()],
)
async def pull_account_history(
    caller: Member,
    engine: EngineDep,
    runtime: RuntimeDep,
    account_id: AccountId,
    request: Request,
    body: Annotated[HistoryBody | None, Body()] = None,
) -> HistoryResponse:
    """Bring the account's own past posts in with their counts (Bluesky, Mastodon,
    LinkedIn), as published posts with a metrics snapshot each; a post already here
    (published by socialgen, or pulled before) gets a new snapshot only. LinkedIn
    answers 403 unless its token was granted r_member_social and
    r_member_postAnalytics (the message names what is missing). The pull is bounded
    (a deadline, a page cap, answers capped in size) and stops when the client leaves:
    what it read is kept, and `complete: false` with `stopped` says why it ended. One
    pull per account at a time (409)."""
    since = parse_since(body.since if body is not None else None)
    account = await run_in_threadpool(_account, engine, caller.workspace_id, account_id)
    running = runtime.held.keep(("history_pulls",), PullsRunning)
    with running.only_one(account.id):
        networks = Networks.of(runtime)
        pull = Pull(PullLimits.of(networks.settings))
        work = run_in_threadpool(pull_history, networks, engine, account, since, pull)
        summary = await until_client_leaves(work, request.receive, pull.left)
    return HistoryResponse(success=True, data=summary)


def _account(engine: Engine, workspace_id: str, account_id: str) -> SocialAccount:
    with read_session(engine) as session:
        return accounts.get_account(session, workspace_id, account_id)


@router.delete(
    "/{workspaceId}/{accountId}",
    response_model=RemovedResponse,
    responses=error_responses(400, 401, 403, 404),
)
def remove_social_account(
    caller: Manager, engine: EngineDep, account_id: AccountId
) -> RemovedResponse:
    """Remove an account with its publications; says how many were still queued."""
    with transaction(engine) as session:
        account = accounts.get_account(session, caller.workspace_id, account_id)
        queued = accounts.queued_publications(session, account.id)
        accounts.remove_account(session, caller.workspace_id, account.id)
        view = accounts.account_view(account)
    return RemovedResponse(
        success=True,
        message="Social account removed",
        data=RemovedView(account=view, queuedPublicationsRemoved=queued),
    )
