"""HTTP: publish a post now, schedule it (at a time or the best one), read its publications.

POST /api/v1/ai-conversation/post/{workspaceId}/{postId}/publish publishes within the
request (the endpoint runs in FastAPI's thread pool; each network call in a worker
thread) and answers 200 with every publication's state: published with its URL,
failed with the network's words, unknown, or queued when the network asked for a
retry later (the scheduler of `serve`, or `publish-due`, takes it from there).
Members publish; owners and admins too.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from socialgen.api_support import EngineDep, RuntimeDep, SettingsDep, error_responses, fails_with
from socialgen.auth.api import WorkspaceAccess, WorkspaceGuard
from socialgen.request_body import body_cap
from socialgen.store.tables import Role

router = APIRouter(prefix="/api/v1/ai-conversation", tags=["publishing"])

Publisher = Annotated[
    WorkspaceAccess,
    Depends(
        WorkspaceGuard(
            bearer_required=False, roles=frozenset({Role.OWNER, Role.ADMIN, Role.MEMBER})
        )
    ),
]
PostIdPath = Annotated[str, Path(alias="postId")]
MAX_ACCOUNTS = 20


class PublishBody(BaseModel):
    model_config = ConfigDict(strict=True, populate_by_name=True)

    account_ids: list[Annotated[StrictStr, Field(min_length=1, max_length=320)]] = Field(
        alias="accountIds",
        min_length=1,
        max_length=MAX_ACCOUNTS,
        description="Accounts to publish to: ids, handles or network:handle.",
    )
    retry: StrictBool = Field(
        default=False, description="Queue failed, unknown or missed publications again."
    )
    dry_run: StrictBool = Field(
        default=False,
        alias="dryRun",
        description="Answer what each network would receive; send nothing.",
    )
    number_parts: StrictBool = Field(
        default=False,
        alias="numberParts",
        description='Number the parts of a thread ("1/3", "2/3", ...).',
    )


class ScheduleBody(BaseModel):
    model_config = ConfigDict(strict=True, populate_by_name=True)

    at: StrictStr = Field(
        min_length=1,
        max_length=64,
        description='When to publish: ISO 8601 (UTC unless an offset is given), or "best": '
        "the next free best time from the workspace's own history (GET /api/v1/insights).",
    )
    account_ids: list[Annotated[StrictStr, Field(min_length=1, max_length=320)]] = Field(
        default_factory=list,
        alias="accountIds",
        max_length=MAX_ACCOUNTS,
        description="Accounts to publish to at that time: ids, handles or network:handle.",
    )
    retry: StrictBool = Field(
        default=False, description="Queue failed, unknown or missed publications again."
    )
    number_parts: StrictBool = Field(
        default=False,
        alias="numberParts",
        description='Number the parts of a thread ("1/3", "2/3", ...).',
    )


class PublicationOut(BaseModel):
    id: str
    postId: str
    accountId: str
    network: str
    account: str
    state: str = Field(description="queued, publishing, published, failed, unknown or missed")
    dueAt: str | None
    attempts: int
    nextAttemptAt: str | None
    remoteId: str | None
    url: str | None
    message: str
    publishedAt: str | None


class PublicationsData(BaseModel):
    postId: str
    publications: list[PublicationOut] = Field(default_factory=list)
    networks: list[dict[str, Any]] | None = Field(
        default=None, description="dryRun only: each network's parts as it would receive them."
    )


class PublicationsResponse(BaseModel):
    success: bool
    data: PublicationsData


@router.post(
    "/post/{workspaceId}/{postId}/publish",
    response_model=PublicationsResponse,
    responses=error_responses(400, 401, 403, 404, 500),
    dependencies=[body_cap()],
)
@fails_with("Failed to publish post")
def publish_post(
    caller: Publisher,
    engine: EngineDep,
    settings: SettingsDep,
    post_id: PostIdPath,
    body: Annotated[PublishBody, Body()],
) -> dict[str, Any]:
    """Publish the post now to the accounts named; answers each publication's state."""
    if body.dry_run:
        from socialgen.publishing.outbox.dryrun import dry_run

        previews = dry_run(
            engine, caller.workspace_id, post_id, body.account_ids, number_parts=body.number_parts
        )
        return {"success": True, "data": {"postId": post_id, "networks": previews}}
    from socialgen.publishing.outbox.runner import publish_now
    from socialgen.publishing.settings import PublishTerms

    rows = publish_now(
        engine,
        caller.workspace_id,
        post_id,
        body.account_ids,
        retry=body.retry,
        number_parts=body.number_parts,
        terms=PublishTerms.of(settings),
    )
    return {"success": True, "data": {"postId": post_id, "publications": rows}}


class ScheduledData(BaseModel):
    postId: str
    status: str
    scheduledAt: str | None
    publications: list[PublicationOut] = Field(default_factory=list)


class ScheduledResponse(BaseModel):
    success: bool
    data: ScheduledData


@router.post(
    "/post/{workspaceId}/{postId}/schedule",
    response_model=ScheduledResponse,
    responses=error_responses(400, 401, 403, 404, 500),
    dependencies=[body_cap()],
)
@fails_with("Failed to schedule post")
def schedule_post_at(
    caller: Publisher,
    engine: EngineDep,
    runtime: RuntimeDep,
    post_id: PostIdPath,
    body: Annotated[ScheduleBody, Body()],
) -> dict[str, Any]:
    """Schedule a draft (or move a scheduled post) to `at`; with accountIds it goes out
    then. `"best"` takes the next free best time, or answers 400 saying how many more
    measured published posts that needs."""
    from socialgen.clock import iso
    from socialgen.publishing.outbox.schedule_time import parse_at, resolve_at
    from socialgen.publishing.outbox.service import schedule_post, views
    from socialgen.store.engine import transaction

    asked = parse_at(body.at)
    workspace_id = caller.workspace_id
    with transaction(engine) as session:
        moment = resolve_at(session, workspace_id, post_id, asked, runtime.settings.timezone)
        post, rows = schedule_post(
            session,
            workspace_id,
            post_id,
            moment,
            body.account_ids,
            retry=body.retry,
            number_parts=body.number_parts,
        )
        data = {
            "postId": post.id,
            "status": post.status,
            "scheduledAt": iso(post.scheduled_at),
            "publications": views(rows),
        }
    return {"success": True, "data": data}


@router.get(
    "/post/{workspaceId}/{postId}/publications",
    response_model=PublicationsResponse,
    responses=error_responses(401, 403, 404, 500),
)
@fails_with("Failed to retrieve publications")
def get_publications(caller: Publisher, engine: EngineDep, post_id: PostIdPath) -> dict[str, Any]:
    """The post's publications, one per account, with their states."""
    from socialgen.publishing.outbox.runner import post_views

    rows = post_views(engine, caller.workspace_id, post_id)
    return {"success": True, "data": {"postId": post_id, "publications": rows}}
