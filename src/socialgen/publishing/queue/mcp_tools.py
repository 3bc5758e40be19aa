"""The queue's MCP tools: queue_post, list_queue, set_queue_slots, suggest_queue_slots,
move_queued_post, remove_from_queue. Each is what its command or endpoint does
(publishing/queue/cli.py, api.py), in a worker thread. Registered by feature.py."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from socialgen.app.caller import Caller
from socialgen.config.zone import resolve_zone
from socialgen.mcp_server.access import KEY, WRITER, Face, Need
from socialgen.mcp_server.inputs import InWorkspace, OnePost
from socialgen.mcp_server.tooling import add_tool, hints, in_thread
from socialgen.publishing.queue.listing import DEFAULT_LIMIT, MAX_LIMIT
from socialgen.publishing.queue.schemas import (
    AccountRef,
    MoveBody,
    MovedData,
    QueueData,
    QueuedData,
    QueuePostBody,
    RemovedData,
    SlotsBody,
    SlotsData,
    SuggestBody,
    SuggestData,
)
from socialgen.store.engine import read_session, transaction


class QueuePostInput(QueuePostBody, OnePost):
    """queue's body."""


class ListQueueInput(InWorkspace):
    accountId: AccountRef | None = Field(default=None, description="Only this account's queue.")
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Posts per queue.")


class SetSlotsInput(SlotsBody, InWorkspace):
    """PUT .../slots' body."""


class SuggestInput(SuggestBody, InWorkspace):
    """POST .../slots/suggest's body."""


class MoveInput(MoveBody, OnePost):
    """move's body."""


class RemoveInput(OnePost):
    closeGap: bool = Field(
        default=False,
        description="The later posts each move up one place; default: the slot stays free.",
    )


def register(server: MCPServer[Any], face: Face) -> None:
    async def caller(context: Context[Any, Any], ref: str | None, need: Need) -> Caller:
        return await in_thread(face.caller, context, ref, need)

    async def queue_post(context: Context[Any, Any], request: QueuePostInput) -> QueuedData:
        who = await caller(context, request.workspaceId, WRITER)
        return await in_thread(_queue, who, request)

    async def list_queue(context: Context[Any, Any], request: ListQueueInput) -> QueueData:
        who = await caller(context, request.workspaceId, KEY)
        return await in_thread(_list, who, request)

    async def set_queue_slots(context: Context[Any, Any], request: SetSlotsInput) -> SlotsData:
        who = await caller(context, request.workspaceId, WRITER)
        return await in_thread(_set_slots, who, request)

    async def suggest_queue_slots(context: Context[Any, Any], request: SuggestInput) -> SuggestData:
        who = await caller(context, request.workspaceId, WRITER)
        return await in_thread(_suggest, who, request)

    async def move_queued_post(context: Context[Any, Any], request: MoveInput) -> MovedData:
        who = await caller(context, request.workspaceId, WRITER)
        return await in_thread(_move, who, request)

    async def remove_from_queue(context: Context[Any, Any], request: RemoveInput) -> RemovedData:
        who = await caller(context, request.workspaceId, WRITER)
        return await in_thread(_remove, who, request)

    add_tool(
        server, "queue_post", QueuePostInput, queue_post, QueuedData,
        hints(read_only=False, idempotent=True),
        title="Queue a post",
        description="Put a draft in the next free slot of its posting queue (an account's "
        "own when it goes to that one account and it has slots, else the workspace's): "
        "it is scheduled at that slot, and published then to accountIds (default: the "
        "post's accounts already chosen, else the queue's). A post already in the queue "
        "keeps its slot. Refused when the queue has no slots (set_queue_slots).",
    )  # fmt: skip
    add_tool(
        server, "list_queue", ListQueueInput, list_queue, QueueData,
        hints(read_only=True),
        title="What goes out when",
        description="Each posting queue: its weekly slots (wall times in its timezone), "
        "its next free slot, and its posts in order with their accounts; freeAt lists the "
        "slots left free between them. Times are ISO 8601 UTC.",
    )  # fmt: skip
    add_tool(
        server, "set_queue_slots", SetSlotsInput, set_queue_slots, SlotsData,
        hints(read_only=False, idempotent=True),
        title="Set posting slots",
        description='Set a queue\'s weekly slots, e.g. "Tue 08:30, Thu 08:30, Sat 10:00" '
        "(wall times in timezone, default the server's), with perDay (no day gets more "
        "slots) and, for the workspace's queue, accountIds (where a post queued without "
        "accounts goes). Posts already queued keep their times.",
    )  # fmt: skip
    add_tool(
        server, "suggest_queue_slots", SuggestInput, suggest_queue_slots, SuggestData,
        hints(read_only=False, idempotent=True),
        title="Suggest posting slots",
        description="Slots from the workspace's own history: those whose posts stand out "
        "beyond chance, the rest exploration (Thompson draws, to learn), never more than "
        "perDay a day; with too little history, exploration only (enough: false). apply: "
        "true makes them the queue's slots.",
    )  # fmt: skip
    add_tool(
        server, "move_queued_post", MoveInput, move_queued_post, MovedData,
        hints(read_only=False, idempotent=False),
        title="Move a queued post",
        description="Move a queued post to another free slot of its queue, or to any other "
        "time (it then leaves the queue). closeGap: the later posts each move up one place; "
        "default: its old slot stays free.",
    )  # fmt: skip
    add_tool(
        server, "remove_from_queue", RemoveInput, remove_from_queue, RemovedData,
        hints(read_only=False, idempotent=False),
        title="Remove a post from the queue",
        description="Take a post out of its queue: a draft again, its queued publications "
        "dropped (it goes out nowhere). closeGap: the later posts each move up one place.",
    )  # fmt: skip


def _queue(who: Caller, request: QueuePostInput) -> QueuedData:
    from socialgen.publishing.queue.service import queue_post
    from socialgen.publishing.queue.views import queued_data

    with transaction(who.engine) as session:
        queued = queue_post(
            session,
            who.workspace_id,
            request.postId,
            request.account_ids,
            number_parts=request.number_parts,
        )
        return queued_data(session, queued)


def _list(who: Caller, request: ListQueueInput) -> QueueData:
    from socialgen.publishing.queue.listing import queue_listing

    with read_session(who.engine) as session:
        listed = queue_listing(
            session, who.workspace_id, account_ref=request.accountId, limit=request.limit
        )
    return QueueData(queues=listed)


def _set_slots(who: Caller, request: SetSlotsInput) -> SlotsData:
    from socialgen.publishing.queue.service import queue_view, set_slots

    zone = resolve_zone(request.timezone, who.settings.timezone).key
    with transaction(who.engine) as session:
        queue = set_slots(
            session,
            who.workspace_id,
            request.slots,
            zone=zone,
            account_ref=request.account_id,
            per_day=request.per_day,
            account_refs=request.account_ids,
        )
        return SlotsData(queues=[queue_view(session, queue)])


def _suggest(who: Caller, request: SuggestInput) -> SuggestData:
    from socialgen.publishing.queue.suggest import suggest_slots

    with transaction(who.engine) as session:
        return suggest_slots(
            session,
            who.workspace_id,
            zone=resolve_zone(None, who.settings.timezone).key,
            per_day=request.per_day,
            count=request.count,
            account_ref=request.account_id,
            apply=request.apply,
        )


def _move(who: Caller, request: MoveInput) -> MovedData:
    from socialgen.kit.errors import BadRequest
    from socialgen.publishing.outbox.schedule_time import parse_at
    from socialgen.publishing.queue.moves import move
    from socialgen.publishing.queue.views import moved_data

    at = parse_at(request.at)
    if at is None:
        raise BadRequest('at takes a time here, not "best"')
    with transaction(who.engine) as session:
        return moved_data(
            move(session, who.workspace_id, request.postId, at, close_gap=request.close_gap)
        )


def _remove(who: Caller, request: RemoveInput) -> RemovedData:
    from socialgen.publishing.queue.moves import remove
    from socialgen.publishing.queue.views import removed_data

    with transaction(who.engine) as session:
        return removed_data(
            remove(session, who.workspace_id, request.postId, close_gap=request.closeGap)
        )
