"""HTTP: publish a post now, schedule it (at a time or the best one), read its publications.

POST /api/v1/ai-conversation/post/{workspaceId}/{postId}/publish publishes within the
request (the endpoint runs in FastAPI's thread pool; each network call in a worker
thread) and answers 200 with every publication's state: published with its URL,
failed with the network's words, unknown, or queued when the network asked for a
retry later (the scheduler of `serve`, or `publish-due`, takes it from there).
Members publish; owners and admins too.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Path

from socialgen.files.backends import files_of
from socialgen.http.guard import WorkspaceAccess, WorkspaceGuard
from socialgen.http.request_body import body_cap
from socialgen.http.support import EngineDep, RuntimeDep, error_responses, fails_with
from socialgen.publishing.outbox.schemas import (
    PublicationsData,
    PublicationsResponse,
    PublishBody,
    ScheduleBody,
    ScheduledData,
    ScheduledResponse,
)
from socialgen.publishing.registry import Networks
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
    runtime: RuntimeDep,
    post_id: PostIdPath,
    body: Annotated[PublishBody, Body()],
) -> PublicationsResponse:
    """Publish the post now to the accounts named; answers each publication's state."""
    if body.dry_run:
        from socialgen.publishing.outbox.dryrun import dry_run

        previews = dry_run(
            engine,
            caller.workspace_id,
            post_id,
            body.account_ids,
            number_parts=body.number_parts,
            networks=Networks.of(runtime),
            files=files_of(runtime),
        )
        return PublicationsResponse(
            success=True, data=PublicationsData(postId=post_id, networks=previews)
        )
    from socialgen.publishing.outbox.runner import publish_now
    from socialgen.publishing.settings import PublishTerms

    rows = publish_now(
        engine,
        caller.workspace_id,
        post_id,
        body.account_ids,
        retry=body.retry,
        number_parts=body.number_parts,
        terms=PublishTerms.of(runtime.settings, Networks.of(runtime), files_of(runtime)),
    )
    return PublicationsResponse(
        success=True, data=PublicationsData(postId=post_id, publications=rows)
    )


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
) -> ScheduledResponse:
    """Schedule a draft (or move a scheduled post) to `at`; with accountIds it goes out
    then. `"best"` takes the next free best time, or answers 400 saying how many more
    measured published posts that needs."""
    from socialgen.kit.clock import iso
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
        data = ScheduledData(
            postId=post.id,
            status=post.status,
            scheduledAt=iso(post.scheduled_at),
            publications=views(rows),
        )
    return ScheduledResponse(success=True, data=data)


@router.get(
    "/post/{workspaceId}/{postId}/publications",
    response_model=PublicationsResponse,
    responses=error_responses(401, 403, 404, 500),
)
@fails_with("Failed to retrieve publications")
def get_publications(
    caller: Publisher, engine: EngineDep, post_id: PostIdPath
) -> PublicationsResponse:
    """The post's publications, one per account, with their states."""
    from socialgen.publishing.outbox.runner import post_views

    rows = post_views(engine, caller.workspace_id, post_id)
    return PublicationsResponse(
        success=True, data=PublicationsData(postId=post_id, publications=rows)
    )
