"""HTTP: the posting queue (/api/v1/ai-conversation/queue/{workspaceId}...) and
POST .../post/{workspaceId}/{postId}/queue, which puts a post in the next free slot.

Any member reads the queue; members, admins and owners change it (as they publish).
Times are ISO 8601 UTC; a time without an offset is UTC (SPEC.md); slots are wall
times in the queue's `timezone` (the server's timezone setting when not given).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Path, Query

from socialgen.http.guard import WorkspaceAccess, WorkspaceGuard
from socialgen.http.request_body import body_cap
from socialgen.http.support import EngineDep, RuntimeDep, error_responses, fails_with
from socialgen.kit.limits import NO_CONTROL_PATTERN
from socialgen.publishing.queue.listing import DEFAULT_LIMIT, MAX_LIMIT
from socialgen.publishing.queue.schemas import (
    MoveBody,
    MovedResponse,
    QueueData,
    QueuedResponse,
    QueuePostBody,
    QueueResponse,
    RemovedResponse,
    SlotsBody,
    SlotsData,
    SlotsResponse,
    SuggestBody,
    SuggestResponse,
)
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Role

router = APIRouter(prefix="/api/v1/ai-conversation", tags=["queue"])

Member = Annotated[WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=False))]
Publisher = Annotated[
    WorkspaceAccess,
    Depends(
        WorkspaceGuard(
            bearer_required=False, roles=frozenset({Role.OWNER, Role.ADMIN, Role.MEMBER})
        )
    ),
]
PostIdPath = Annotated[str, Path(alias="postId", pattern=NO_CONTROL_PATTERN)]
AccountQuery = Annotated[
    str | None,
    Query(
        alias="accountId",
        max_length=320,
        pattern=NO_CONTROL_PATTERN,
        description="Only this account's own queue (id, handle or network:handle).",
    ),
]


@router.get(
    "/queue/{workspaceId}",
    response_model=QueueResponse,
    responses=error_responses(400, 401, 403, 404, 500),
)
@fails_with("Failed to retrieve the queue")
def get_queue(
    caller: Member,
    engine: EngineDep,
    account_id: AccountQuery = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
) -> QueueResponse:
    """What goes out when: each queue's posts in slot order, with their publications."""
    from socialgen.publishing.queue.listing import queue_listing

    with read_session(engine) as session:
        listed = queue_listing(session, caller.workspace_id, account_ref=account_id, limit=limit)
    return QueueResponse(success=True, data=QueueData(queues=listed))


@router.get(
    "/queue/{workspaceId}/slots",
    response_model=SlotsResponse,
    responses=error_responses(400, 401, 403, 404, 500),
)
@fails_with("Failed to retrieve the slots")
def get_slots(caller: Member, engine: EngineDep, account_id: AccountQuery = None) -> SlotsResponse:
    """Each queue's weekly slots, its zone, its accounts and its next free slot."""
    from socialgen.publishing.queue.service import queue_view, queues

    with read_session(engine) as session:
        views = [
            queue_view(session, queue) for queue in queues(session, caller.workspace_id, account_id)
        ]
    return SlotsResponse(success=True, data=SlotsData(queues=views))


@router.put(
    "/queue/{workspaceId}/slots",
    response_model=SlotsResponse,
    responses=error_responses(400, 401, 403, 404, 500),
    dependencies=[body_cap()],
)
@fails_with("Failed to set the slots")
def put_slots(
    caller: Publisher,
    engine: EngineDep,
    runtime: RuntimeDep,
    body: Annotated[SlotsBody, Body()],
) -> SlotsResponse:
    """Set a queue's weekly slots (posts already queued keep their times)."""
    from socialgen.config.zone import resolve_zone
    from socialgen.publishing.queue.service import queue_view, set_slots

    zone = resolve_zone(body.timezone, runtime.settings.timezone).key
    with transaction(engine) as session:
        queue = set_slots(
            session,
            caller.workspace_id,
            body.slots,
            zone=zone,
            account_ref=body.account_id,
            per_day=body.per_day,
            account_refs=body.account_ids,
        )
        view = queue_view(session, queue)
    return SlotsResponse(success=True, data=SlotsData(queues=[view]))


@router.post(
    "/queue/{workspaceId}/slots/suggest",
    response_model=SuggestResponse,
    responses=error_responses(400, 401, 403, 404, 500),
    dependencies=[body_cap()],
)
@fails_with("Failed to suggest slots")
def suggest_slots(
    caller: Publisher,
    engine: EngineDep,
    runtime: RuntimeDep,
    body: Annotated[SuggestBody, Body()],
) -> SuggestResponse:
    """Slots from the workspace's own history: where its best times stand out, and
    exploration (Thompson draws) elsewhere; `apply` makes them the queue's."""
    from socialgen.config.zone import resolve_zone
    from socialgen.publishing.queue.suggest import suggest_slots as suggest

    with transaction(engine) as session:
        data = suggest(
            session,
            caller.workspace_id,
            zone=resolve_zone(None, runtime.settings.timezone).key,
            per_day=body.per_day,
            count=body.count,
            account_ref=body.account_id,
            apply=body.apply,
        )
    return SuggestResponse(success=True, data=data)


@router.post(
    "/post/{workspaceId}/{postId}/queue",
    response_model=QueuedResponse,
    responses=error_responses(400, 401, 403, 404, 500),
    dependencies=[body_cap()],
)
@fails_with("Failed to queue post")
def queue_post(
    caller: Publisher,
    engine: EngineDep,
    post_id: PostIdPath,
    body: Annotated[QueuePostBody, Body()],
) -> QueuedResponse:
    """Put the post in the next free slot of its queue; it is scheduled there, with
    its publications queued for that moment."""
    from socialgen.publishing.queue.service import queue_post as put_in_queue
    from socialgen.publishing.queue.views import queued_data

    with transaction(engine) as session:
        queued = put_in_queue(
            session,
            caller.workspace_id,
            post_id,
            body.account_ids,
            number_parts=body.number_parts,
        )
        data = queued_data(session, queued)
    return QueuedResponse(success=True, data=data)


@router.post(
    "/queue/{workspaceId}/{postId}/move",
    response_model=MovedResponse,
    responses=error_responses(400, 401, 403, 404, 500),
    dependencies=[body_cap()],
)
@fails_with("Failed to move post")
def move_post(
    caller: Publisher,
    engine: EngineDep,
    post_id: PostIdPath,
    body: Annotated[MoveBody, Body()],
) -> MovedResponse:
    """Move a queued post to another free slot (or, to any other time, out of the
    queue); `closeGap` moves the later posts up one place."""
    from socialgen.kit.errors import BadRequest
    from socialgen.publishing.outbox.schedule_time import parse_at
    from socialgen.publishing.queue.moves import move
    from socialgen.publishing.queue.views import moved_data

    at = parse_at(body.at)
    if at is None:
        raise BadRequest('at takes a time here, not "best"')
    with transaction(engine) as session:
        data = moved_data(move(session, caller.workspace_id, post_id, at, close_gap=body.close_gap))
    return MovedResponse(success=True, data=data)


@router.delete(
    "/queue/{workspaceId}/{postId}",
    response_model=RemovedResponse,
    responses=error_responses(400, 401, 403, 404, 500),
)
@fails_with("Failed to remove post from the queue")
def remove_post(
    caller: Publisher,
    engine: EngineDep,
    post_id: PostIdPath,
    close_gap: Annotated[
        bool,
        Query(
            alias="closeGap",
            description="The later posts each move up one place; default: the slot stays free.",
        ),
    ] = False,
) -> RemovedResponse:
    """Take the post out of the queue: a draft again, its queued publications dropped."""
    from socialgen.publishing.queue.moves import remove
    from socialgen.publishing.queue.views import removed_data

    with transaction(engine) as session:
        data = removed_data(remove(session, caller.workspace_id, post_id, close_gap=close_gap))
    return RemovedResponse(success=True, data=data)
